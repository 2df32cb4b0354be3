// CPU reference of the local operators (reinhard-local, reinhard-sat, drago-local, local-laplacian,
// exposure-fusion): statistics,
// local adaptation, then the global pipeline's vectorised colour/transfer/quantise stages
// (cpu/map_kernels.hpp) with chunk.ld filled from the local result. The maths is
// core/local_settings.hpp and sat/box_query.hpp, the functions the CUDA kernels call.
#pragma once
#include "core/local_settings.hpp"
#include "core/map_settings.hpp"
#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::cpu::local {

// Views already checked by cpu::tone_map; params.op().locality == Locality::local.
Status tone_map_local(const ImageView& in, const Params& params, const ImageView& out, FrameStats* stats_out,
                      MapTimings* timings, const CurveStatsHook* hook = nullptr);

// The operators. Each reads the input once for statistics fused with its own first pass
// (table rows or luminance plane), derives core::LocalSettings from Params and the statistics,
// and returns the statistics (bit-identical to cpu::compute_stats); *stats_ms gets the fused pass.
FrameStats reinhard_gauss_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                              const ImageView& out, double* stats_ms, const CurveStatsHook* hook = nullptr);
FrameStats reinhard_sat_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                            const ImageView& out, double* stats_ms, const CurveStatsHook* hook = nullptr);
FrameStats drago_local_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                           const ImageView& out, double* stats_ms, const CurveStatsHook* hook = nullptr);
FrameStats local_laplacian_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                               const ImageView& out, double* stats_ms, const CurveStatsHook* hook = nullptr);
FrameStats exposure_fusion_map(const ImageView& in, const Params& params, const core::ColourSettings& c,
                               const ImageView& out, double* stats_ms, const CurveStatsHook* hook = nullptr);

// Scale selection of reinhard-local on a float plane (w x h, packed): fills `response` with
// V1(x, y, s_m) per pixel, in units of plane * plane_scale (the operator passes L_w and
// lum_scale). Exposed for the tests.
void reinhard_gauss_response(const float* plane, int w, int h, const core::LocalSettings& s, float* response,
                             float plane_scale = 1.0f);
// Same for reinhard-sat: `lum` is the scaled luminance L of each pixel (level 0), `table` a float64
// summed-area table (sat_table.hpp layout) of lum / table_scale (the operator: of L_w, with
// table_scale = lum_scale; tests: of L with 1).
void reinhard_sat_response(const float* lum, const double* table, int w, int h, const core::LocalSettings& s,
                           float* response, double table_scale = 1.0);
// Qian 2013's pixel-centred n x n mean of a plane (running sums; borders copy the nearest interior
// value); n is clipped per axis to the largest odd size that fits.
// local-laplacian's collapsed output O_0 (ln units; L_d = core::llf_display(O_0, frame)) of a
// plane of sanitised L_w (w x h, packed), with the frame constants it used; the log-average is
// read only with c.contrast_ln > 0 (the frame's beta). Exposed for the tests.
core::LlfFrame local_laplacian_output(const float* lw, int w, int h, const core::LlfCurve& c, double max_luminance,
                                      double min_positive, float* out, double log_average = 0.0);
// exposure-fusion's steps (exposed for the tests): the N normalised weight planes (e * w * h + i)
// from p = L_w^(1/2.2) and the channels' q (3 planes, r g b), then the blended display value F.
void exposure_fusion_weights(const float* p, const float* q, int w, int h, const core::FusionFrame& f, float* weights);
void exposure_fusion_output(const float* p, const float* weights, int w, int h, const core::FusionFrame& f, float* out);
// core::fusion_encode (x^(1/2.2)) and core::fusion_display (clamped o^2.2) over n values, as the
// operator takes them (their powers in double without libm: equal but for values within ~1e-15 of
// a float's rounding boundary).
void exposure_fusion_encode(const float* x, std::size_t n, float* out);
void exposure_fusion_display(const float* o, std::size_t n, float* ld);
void pixel_centred_mean(const float* plane, int w, int h, int window, float* mean);

}  // namespace tonekit::cpu::local
