// tonekit video IN OUT (the program tonekit-video, which `tonekit video` runs; see
// tonekit_video_main.cpp): an HDR video file to an SDR one on FFmpeg's libraries. IN is demuxed and
// decoded by libavformat/libavcodec (apps/video/video_input), each frame is mapped by the stream
// command's FrameMapper (the same CPU and CUDA paths as `tonekit stream`), encoded by libavcodec
// and muxed with the input's audio, subtitles and chapters (apps/video/video_output). The
// source peak of the display curves comes from the HDR10 metadata (MaxCLL, else the mastering
// display's maximum) or per scene from HDR10+. Every check on the arguments and the input runs
// before the output file exists; the output appears whole (renamed into place) or not at all,
// except that a truncated input still gets the frames it had, finalised.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>

#include "cli_common.hpp"
#include "stream/frame_mapper.hpp"
#include "stream/progress.hpp"
#include "tonekit/temporal.hpp"
#include "video/av_util.hpp"
#include "video/frame_convert.hpp"
#include "video/hdr_metadata.hpp"
#include "video/video_input.hpp"
#include "video/video_output.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace tonekit::cli {
namespace {

namespace fs = std::filesystem;
using namespace tonekit::video;
using Clock = std::chrono::steady_clock;

struct VideoOptions {
  std::string input, output;
  std::string op = "hable";
  std::vector<std::string> settings;
  std::string backend = "auto";
  std::string input_transfer, primaries, gamut;
  double reference_white = 203.0, hlg_peak = 1000.0;
  std::string peak = "metadata";
  std::string codec = "libx264";
  int crf = -1;
  std::string preset;
  std::vector<std::string> encoder_options;
  std::string range = "limited";
  std::string output_transfer = "bt709";
  std::string container;
  long long frames = -1;
  GlareParams glare;
  bool temporal = false;
  bool exact = false;
  bool summary = false;
  bool quiet = false;
  bool no_nvdec = false;
};

bool user_set(const VideoOptions& o, std::string_view name) {
  for (const std::string& s : o.settings)
    if (s.size() > name.size() && s.compare(0, name.size(), name) == 0 && s[name.size()] == '=') return true;
  return false;
}

// The input's colour for the mapper: the stream's tags unless the flags say otherwise.
Result<InputColour> input_colour(const VideoOptions& o, const AVFrame& f, SourceTransfer transfer) {
  InputColour c;
  c.transfer = transfer == SourceTransfer::pq    ? Transfer::pq
               : transfer == SourceTransfer::hlg ? Transfer::hlg
                                                 : Transfer::linear;  // SDR arrives linearised
  const bool wide = f.color_primaries == AVCOL_PRI_BT2020 ||
                    (f.color_primaries == AVCOL_PRI_UNSPECIFIED && is_hdr(transfer));
  c.primaries = wide ? Primaries::bt2020 : Primaries::bt709;
  if (Status s = stream::apply_primaries_flag(c, o.primaries); !s.ok()) return s;
  const bool matrix709 = f.colorspace == AVCOL_SPC_BT709 || (f.colorspace == AVCOL_SPC_UNSPECIFIED && !wide);
  c.matrix = matrix709 ? YuvMatrix::bt709 : YuvMatrix::bt2020_ncl;
  c.range = f.color_range == AVCOL_RANGE_JPEG ? YuvRange::full : YuvRange::limited;
  return stream::finish_input_colour(c, o.gamut, o.reference_white, o.hlg_peak);
}

// The source peak of the display curves and why (for --summary).
struct PeakChoice {
  double cd = 0.0;       // 0: measured from each frame
  std::string origin;
  bool per_scene = false;  // HDR10+ may replace it per frame
};

Result<PeakChoice> choose_peak(const VideoOptions& o, const Params& params, const Hdr10Metadata& meta,
                               SourceTransfer transfer) {
  PeakChoice c;
  double given = 0.0;
  if (o.peak != "metadata" && o.peak != "measured") {
    char* end = nullptr;
    given = std::strtod(o.peak.c_str(), &end);
    if (end == o.peak.c_str() || *end != '\0' || !(given > 0) || given > 10000)
      return invalid_argument("--peak expects metadata, measured or cd/m^2 in (0, 10000], got '" + o.peak + "'");
  }
  if (!params.has("source_peak")) {
    c.origin = "not used by " + std::string(params.op().id);
    return c;
  }
  if (user_set(o, "source_peak")) {
    c.cd = params.get("source_peak");
    c.origin = "--set source_peak";
    return c;
  }
  if (o.peak == "measured") {
    c.origin = "measured (each frame's robust peak, temporally adapted)";
    return c;
  }
  if (given > 0) {
    c.cd = given;
    c.origin = "--peak";
    return c;
  }
  c.per_scene = true;
  if (meta.light && meta.light->max_cll > 0) {
    c.cd = meta.light->max_cll;
    c.origin = "MaxCLL";
  } else if (meta.static_peak() > 0) {
    c.cd = meta.static_peak();
    c.origin = "mastering display maximum";
  } else if (transfer == SourceTransfer::hlg) {
    c.cd = o.hlg_peak;
    c.origin = "HLG nominal peak (--hlg-peak)";
  } else if (!is_hdr(transfer)) {
    c.cd = 100.0;
    c.origin = "SDR nominal white";
  } else {
    c.origin = "measured (no HDR10 metadata)";
  }
  c.cd = std::min(c.cd, 10000.0);
  return c;
}

// The encoder's settings from the flags.
Result<EncoderSettings> encoder_settings(const VideoOptions& o) {
  EncoderSettings e;
  e.codec = o.codec;
  e.crf = o.crf;
  e.preset = o.preset;
  e.container = o.container;
  for (const std::string& kv : o.encoder_options) {
    auto p = parse_setting(kv);
    if (!p.ok()) return invalid_argument("--encoder-opt expects KEY=VALUE, got '" + kv + "'");
    e.options.push_back(*p);
  }
  auto r = parse_yuv_range(o.range);
  if (!r.ok()) return r.status();
  e.range = *r;
  if (o.output_transfer == "bt709" || o.output_transfer == "bt1886") e.transfer = AVCOL_TRC_BT709;
  else if (o.output_transfer == "srgb") e.transfer = AVCOL_TRC_IEC61966_2_1;
  else return invalid_argument("--output-transfer expects bt709, bt1886 or srgb, got '" + o.output_transfer + "'");
  return e;
}

// The mapper writes BT.709-OETF limited-range yuv420p (or sRGB RGB for --output-transfer srgb);
// libswscale turns that into what --range and --output-transfer ask for when they differ.
class OutputConverter {
 public:
  Status setup(bool rgb_in, YuvRange range, int w, int h) {
    if (!rgb_in && range == YuvRange::limited) return {};
    w_ = w;
    h_ = h;
    src_fmt_ = rgb_in ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_YUV420P;
    sws_.reset(sws_getContext(w, h, src_fmt_, w, h, AV_PIX_FMT_YUV420P, SWS_BILINEAR | SWS_ACCURATE_RND, nullptr,
                              nullptr, nullptr));
    if (!sws_) return unsupported("libswscale cannot make the output's yuv420p");
    const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
    sws_setColorspaceDetails(sws_.get(), bt709, rgb_in ? 1 : 0, bt709, range == YuvRange::full ? 1 : 0, 0, 1 << 16,
                             1 << 16);
    buffer_.resize(output_frame_bytes(OutputLayout::yuv420p, w, h, 3, 1));
    return {};
  }
  const std::uint8_t* convert(const std::uint8_t* mapped) {
    if (!sws_) return mapped;
    const std::uint8_t* src[4];
    int src_stride[4];
    std::uint8_t* dst[4];
    int dst_stride[4];
    av_image_fill_arrays(const_cast<std::uint8_t**>(src), src_stride, mapped, src_fmt_, w_, h_, 1);
    av_image_fill_arrays(dst, dst_stride, buffer_.data(), AV_PIX_FMT_YUV420P, w_, h_, 1);
    sws_scale(sws_.get(), src, src_stride, 0, h_, dst, dst_stride);
    return buffer_.data();
  }

 private:
  SwsPtr sws_;
  AVPixelFormat src_fmt_ = AV_PIX_FMT_YUV420P;
  int w_ = 0, h_ = 0;
  std::vector<std::uint8_t> buffer_;
};

std::string rate_text(AVRational r) {
  if (r.num <= 0 || r.den <= 0) return "unknown fps";
  char t[48];
  std::snprintf(t, sizeof t, "%.3f fps", av_q2d(r));
  return t;
}

int run_video_command(const VideoOptions& o) {
  install_log_hook();
  // 1. The arguments.
  auto params = params_from_settings(o.op, o.settings);
  if (!params.ok()) return report(params.status());
  auto enc = encoder_settings(o);
  if (!enc.ok()) return report(enc.status());
  std::optional<SourceTransfer> forced_transfer;
  if (!o.input_transfer.empty()) {
    auto t = parse_source_transfer(o.input_transfer);
    if (!t.ok()) return report(t.status());
    forced_transfer = *t;
  }
  if (o.crf > 63) return report(invalid_argument("--crf must be in [0, 63]"));
  {
    std::error_code ec;
    if (fs::exists(o.output, ec) && fs::equivalent(o.input, o.output, ec))
      return report(invalid_argument(o.output + ": would overwrite its own input"));
  }
  auto backend = begin_backend(o.backend);
  if (!backend.ok()) return report(backend.status());

  // 2. The input and its first frame: what the stream is, before any output exists. With the
  // CUDA backend the decoder runs on NVDEC where it can (software decoding otherwise, said once).
  const bool want_nvdec =
      !o.no_nvdec && (*backend == Backend::cuda || (*backend == Backend::automatic && cuda_available()));
  std::string nvdec_note;
  auto input = VideoInput::open(o.input, want_nvdec, &nvdec_note);
  if (input.ok() && want_nvdec && !nvdec_note.empty())
    warn("NVDEC: " + nvdec_note + "; decoding on the CPU");
  if (!input.ok()) return report(input.status());
  VideoInput& in = **input;
  std::unique_ptr<VideoOutput> output;
  std::vector<PacketPtr> early;  // other streams' packets read before the output exists
  auto other = [&](AVPacket& p) -> Status {
    if (output) return output->copy_packet(p);
    early.emplace_back(av_packet_clone(&p));
    return {};
  };
  auto first = in.next_frame(other);
  if (!first.ok()) return report(first.status());
  if (!*first)
    return report(Status{StatusCode::bad_input, o.input + ": no video frame could be decoded" +
                                                    (in.read_error().empty() ? "" : " (" + in.read_error() + ")")});
  const AVFrame& f0 = **first;
  const int width = f0.width, height = f0.height;
  const bool nvdec_frames = f0.format == AV_PIX_FMT_CUDA && f0.hw_frames_ctx;
  // NVDEC's frames: the layout of the surfaces behind them (P010 for 10-bit 4:2:0).
  const AVPixelFormat pix_fmt =
      nvdec_frames ? reinterpret_cast<const AVHWFramesContext*>(f0.hw_frames_ctx->data)->sw_format
                   : static_cast<AVPixelFormat>(f0.format);
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(pix_fmt);
  const int bit_depth = desc ? desc->comp[0].depth : 8;
  const SourceTransfer transfer =
      forced_transfer ? *forced_transfer : source_transfer_from(f0.color_trc, bit_depth);
  Hdr10Metadata meta;
  read_stream_metadata(in.stream(), meta);
  read_frame_metadata(f0, meta);
  auto colour = input_colour(o, f0, transfer);
  if (!colour.ok()) return report(colour.status());
  FrameConverter converter(pix_fmt, width, height, transfer, *colour, f0.colorspace);
  auto peak = choose_peak(o, *params, meta, transfer);
  if (!peak.ok()) return report(peak.status());
  Params mapped_params = *params;
  if (peak->cd > 0 && !user_set(o, "source_peak"))
    if (Status s = mapped_params.set("source_peak", peak->cd); !s.ok()) return report(s);
  const bool measured = o.peak == "measured" && params->has("source_peak");
  if (measured && params->has("peak_percentile") && !user_set(o, "peak_percentile"))
    if (Status s = mapped_params.set("peak_percentile", 99.99); !s.ok()) return report(s);
  // bt1886: display-referred, the inverse of BT.1886's EOTF (gamma 2.4) instead of the camera OETF.
  if (o.output_transfer == "bt1886" && !user_set(o, "gamma"))
    if (Status s = mapped_params.set("gamma", 2.4); !s.ok()) return report(s);
  const bool rgb_out = o.output_transfer == "srgb";

  stream::MapperSetup ms;
  ms.width = width;
  ms.height = height;
  ms.format = converter.format();
  ms.colour = *colour;
  ms.params = mapped_params;
  ms.backend = *backend;
  ms.glare = o.glare;
  ms.out = rgb_out ? stream::OutputKind::rgb24 : stream::OutputKind::yuv420p;
  const AVRational rate = in.frame_rate();
  ms.frame_seconds = rate.num > 0 && rate.den > 0 ? av_q2d(av_inv_q(rate)) : 1.0 / 30.0;
  if (o.temporal || measured) {
    auto tp = prepare_temporal({});
    if (!tp.ok()) return report(tp.status());
    ms.temporal = *tp;
  }
  ms.exact = o.exact;
  auto mapper = stream::FrameMapper::create(ms);
  if (!mapper.ok()) return report(mapper.status());
  if (Status s = (*mapper)->start(); !s.ok()) return report(s);
  // P010 surfaces go to the device mapper by their device pointers; anything else NVDEC gives
  // (8-bit NV12, 4:4:4, SDR) is downloaded and converted as a software frame would be.
  const bool frames_stay_on_device = nvdec_frames && converter.direct() && converter.format() == InputFormat::p010 &&
                                     std::string_view((*mapper)->backend_label()) == "cuda";
  FramePtr downloaded(av_frame_alloc());  // NVDEC frames that are not P010, on the host
  OutputConverter post;
  if (Status s = post.setup(rgb_out, enc->range, width, height); !s.ok()) return report(s);

  // 3. The output: encoder, streams, header. From here on the file exists (under its temporary name).
  auto opened = VideoOutput::open(o.output, in.format(), in.stream(), rate, width, height, *enc);
  if (!opened.ok()) return report(opened.status());
  output = std::move(*opened);
  for (PacketPtr& p : early)
    if (Status s = output->copy_packet(*p); !s.ok()) return report(s);
  early.clear();

  // 4. Decode, map, encode. The device path keeps up to frames_in_flight() frames pending, so
  // that one frame's upload (or NVDEC surface), kernels and download overlap the next frames'
  // decoding; the CPU finishes each frame as it is submitted. Frames are written in order.
  const auto t0 = Clock::now();
  stream::StreamProgress progress(in.frame_count_hint(), in.duration_seconds(), !o.quiet);
  const AVRational tb = in.stream().time_base;
  const long long start_pts = in.stream().start_time != AV_NOPTS_VALUE ? in.stream().start_time : 0;
  double current_peak = peak->cd;
  long long hdr10plus_frames = 0;
  double hdr10plus_min = 0, hdr10plus_max = 0;
  struct InFlight {
    FramePtr surface;          // an NVDEC frame held until its kernels have read it
    stream::Frame in, out;     // buffers reused across frames (page-locked by the device path)
    long long pts = AV_NOPTS_VALUE;
  };
  std::deque<InFlight> flight;
  std::vector<InFlight> spare;
  const std::size_t depth = static_cast<std::size_t>(std::max(1, (*mapper)->frames_in_flight()));
  auto complete_oldest = [&]() -> Status {
    Status s = (*mapper)->complete_oldest();
    InFlight f = std::move(flight.front());
    flight.pop_front();
    f.surface.reset();
    if (s.ok()) s = output->write_frame(post.convert(f.out.bytes.data()), f.pts);
    if (s.ok())
      progress.frame_done(output->frames_written(), f.pts == AV_NOPTS_VALUE ? 0.0 : (f.pts - start_pts) * av_q2d(tb));
    spare.push_back(std::move(f));
    return s;
  };
  auto submit = [&](const AVFrame* frame, InFlight& f) -> Status {
    if (frame->format == AV_PIX_FMT_CUDA && frames_stay_on_device) {
      f.surface.reset(av_frame_clone(frame));
      if (!f.surface) return Status{StatusCode::out_of_memory, "cannot hold an NVDEC frame"};
      FramePlanes planes;
      for (int p = 0; p < 2; ++p) {
        planes.data[p] = f.surface->data[p];
        planes.stride[p] = static_cast<std::size_t>(f.surface->linesize[p]);
      }
      return (*mapper)->submit_device(planes, f.out);
    }
    const AVFrame* host = frame;
    if (frame->format == AV_PIX_FMT_CUDA) {
      av_frame_unref(downloaded.get());
      if (int r = av_hwframe_transfer_data(downloaded.get(), frame, 0); r < 0)
        return av_status(StatusCode::runtime_error, "downloading an NVDEC frame", r);
      host = downloaded.get();
    }
    if (converter.direct() && (*mapper)->uses_cpu() && host->format == pix_fmt && host->width == width &&
        host->height == height) {
      // The CPU reads the decoder's planes in place (no copy of the 24 MB a 4K frame has).
      FramePlanes planes;
      for (int p = 0; p < plane_count(converter.format()); ++p) {
        planes.data[p] = host->data[p];
        planes.stride[p] = static_cast<std::size_t>(host->linesize[p]);
      }
      return (*mapper)->map_host_planes(planes, f.out);
    }
    if (Status s = converter.convert(*host, f.in); !s.ok()) return s;
    return (*mapper)->submit(f.in, f.out);
  };
  Status failure;
  long long submitted = 0;
  for (AVFrame* frame = *first; frame;) {
    // HDR10+ is counted for --summary whatever the peak; under --peak metadata a frame with it is
    // mapped with its scene's peak and a frame without it with the static one (MaxCLL, ...), or,
    // where the stream has none (a measured peak), with the last scene's.
    std::optional<double> scene = hdr10plus_scene_peak(*frame);
    if (scene) {
      *scene = std::clamp(*scene, 1.0, 10000.0);
      hdr10plus_min = hdr10plus_frames == 0 ? *scene : std::min(hdr10plus_min, *scene);
      hdr10plus_max = hdr10plus_frames == 0 ? *scene : std::max(hdr10plus_max, *scene);
      ++hdr10plus_frames;
    }
    if (const double p = scene ? *scene : (peak->cd > 0 ? peak->cd : current_peak); peak->per_scene && p != current_peak) {
      if (failure = mapped_params.set("source_peak", p); !failure.ok()) break;
      if (failure = (*mapper)->set_params(mapped_params); !failure.ok()) break;
      current_peak = p;
    }
    InFlight f;
    if (!spare.empty()) {
      f = std::move(spare.back());
      spare.pop_back();
    }
    f.pts = frame->best_effort_timestamp;
    failure = submit(frame, f);
    flight.push_back(std::move(f));
    if (!failure.ok()) break;
    ++submitted;
    while (failure.ok() && flight.size() >= depth) failure = complete_oldest();
    if (!failure.ok() || (o.frames >= 0 && submitted >= o.frames)) break;
    auto next = in.next_frame(other);
    if (!next.ok()) {
      failure = next.status();
      break;
    }
    frame = *next;
  }
  while (failure.ok() && !flight.empty()) failure = complete_oldest();
  // After a failure, what is still on the device finishes before its buffers go.
  while ((*mapper)->pending() > 0) static_cast<void>((*mapper)->complete_oldest());
  flight.clear();
  (*mapper)->release_buffers();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const long long frames = output->frames_written();
  // A failure of ours (not the input's) leaves no output; a short input keeps what it had.
  if (!failure.ok()) {
    output.reset();
    return report(failure);
  }
  if (Status s = output->finish(); !s.ok()) return report(s);

  if (o.summary) {
    const AVCodecParameters& par = *in.stream().codecpar;
    std::fprintf(stderr,
                 "tonekit: input %s: %s%s %dx%d %s, %s, %lld frames decoded, transfer %s%s, primaries %s, matrix %s, "
                 "range %s%s\n",
                 o.input.c_str(), avcodec_get_name(par.codec_id),
                 !nvdec_frames ? "" : frames_stay_on_device ? " (NVDEC, frames mapped on the device)" : " (NVDEC, frames downloaded)",
                 width, height, av_get_pix_fmt_name(pix_fmt),
                 rate_text(rate).c_str(), frames, source_transfer_name(transfer),
                 forced_transfer ? " (--input-transfer)" : " (color_trc)", primaries_name(colour->primaries),
                 yuv_matrix_name(colour->matrix), yuv_range_name(colour->range),
                 converter.direct() ? "" : (", converted by libswscale to " + std::string(input_format_name(converter.format()))).c_str());
    if (in.corrupt_packets() > 0)
      std::fprintf(stderr, "tonekit: %lld decoding errors in damaged data (warned above)\n", in.corrupt_packets());
    std::fprintf(stderr, "tonekit: mastering display: %s; content light: %s\n", meta.describe_mastering().c_str(),
                 meta.describe_light().c_str());
    if (hdr10plus_frames > 0)
      std::fprintf(stderr, "tonekit: HDR10+: %s on %lld frames, scene peaks %g-%g cd/m^2 (maxscl)%s\n",
                   peak->per_scene ? "used" : "present", hdr10plus_frames, hdr10plus_min, hdr10plus_max,
                   peak->per_scene ? "" : ", not used (the source peak below overrides it)");
    else
      std::fprintf(stderr, "tonekit: HDR10+: none\n");
    const char* per_scene = peak->per_scene && hdr10plus_frames > 0 ? ", per scene from HDR10+ where present" : "";
    if (peak->cd > 0)
      std::fprintf(stderr, "tonekit: operator %s, source peak %g cd/m^2 (%s)%s\n", params->op().id, peak->cd,
                   peak->origin.c_str(), per_scene);
    else
      std::fprintf(stderr, "tonekit: operator %s, source peak %s%s\n", params->op().id, peak->origin.c_str(),
                   per_scene);
    std::fprintf(stderr, "tonekit: output %s: %s, BT.709 %s, range %s; backend %s; %lld frames in %.3f s (%.1f fps)\n",
                 o.output.c_str(), output->encoder_name(), o.output_transfer.c_str(), o.range.c_str(),
                 (*mapper)->backend_label(), frames, seconds, seconds > 0 ? frames / seconds : 0.0);
  }
  if (!in.read_error().empty())
    return report(Status{StatusCode::bad_input, o.input + ": the input ends early (" + in.read_error() + "); the " +
                                                    std::to_string(frames) + " frames decoded are in " + o.output});
  return kExitOk;
}

}  // namespace

void configure_video_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VideoOptions>();
  CLI::App* cmd = &app;
  cmd->add_option("input", o->input, "a video file: HEVC, AV1, VP9, H.264 ... in MKV, MP4, MOV, TS ...; PQ, HLG or SDR")
      ->required();
  cmd->add_option("output", o->output,
                  "the output file; its extension picks the container (.mp4, .mkv, .mov, .nut ...); '-' is stdout "
                  "(with --format)")
      ->required();
  cmd->add_option("--op", o->op, "operator id (see below)")->capture_default_str();
  cmd->add_option("--set", o->settings, "operator parameter NAME=VALUE (repeatable)")->allow_extra_args(false);
  cmd->add_option("--backend", o->backend, "cpu, cuda or auto (cuda when a GPU works)")->capture_default_str();
  cmd->add_option("--input-transfer", o->input_transfer,
                  "pq, hlg, linear, bt709 (= bt1886), srgb, gamma22, gamma28 (default: the stream's color_trc)");
  cmd->add_option("--primaries", o->primaries, "bt2020 or bt709 (default: the stream's)");
  cmd->add_option("--gamut", o->gamut, "BT.2020 -> BT.709 gamut mapping: clip (default), desaturate, perceptual");
  cmd->add_option("--reference-white", o->reference_white, "cd/m^2 that PQ/HLG map to scene 1.0 (BT.2408)")
      ->capture_default_str();
  cmd->add_option("--hlg-peak", o->hlg_peak, "nominal peak of the HLG OOTF, cd/m^2")->capture_default_str();
  cmd->add_option("--peak", o->peak,
                  "source peak of the curves that take one: metadata (HDR10+ per scene, else MaxCLL, else the mastering "
                  "display's maximum), measured (each frame's robust peak, temporally adapted), or cd/m^2")
      ->capture_default_str();
  cmd->add_option("--codec", o->codec, "libx264, libx265, libsvtav1, h264_nvenc, hevc_nvenc, rawvideo, ...")
      ->capture_default_str();
  cmd->add_option("--crf", o->crf, "constant rate factor (NVENC: cq); default: the encoder's");
  cmd->add_option("--preset", o->preset, "the encoder's preset (x264/x265: ultrafast ... veryslow; svt-av1: 0-13)");
  cmd->add_option("--encoder-opt", o->encoder_options, "encoder option KEY=VALUE (repeatable), e.g. x264-params=keyint=60")
      ->allow_extra_args(false);
  cmd->add_option("--range", o->range, "output range: limited (tv) or full (pc)")->capture_default_str();
  cmd->add_option("--output-transfer", o->output_transfer,
                  "bt709 (the camera OETF), bt1886 (display-referred, gamma 2.4) or srgb")
      ->capture_default_str();
  cmd->add_option("--format", o->container, "the output's muxer (mkv, mp4, nut ...) when its name does not say");
  cmd->add_option("--frames", o->frames, "stop after this many frames (default: all)")->check(CLI::NonNegativeNumber);
  add_glare_options(cmd, o->glare);
  cmd->add_flag("--temporal", o->temporal, "temporal adaptation of the key and peak across frames");
  cmd->add_flag("--exact", o->exact, "CPU: the reference's transfer curves instead of the fast path's tables");
  cmd->add_flag("--summary", o->summary,
                "what was found and used on stderr at the end: codec, size, fps, frames, transfer, primaries, HDR10 "
                "and HDR10+ metadata, the peak, backend, fps achieved");
  cmd->add_flag("--quiet", o->quiet, "no progress line (it is drawn only on a terminal anyway)");
  cmd->add_flag("--no-nvdec", o->no_nvdec,
                "with the cuda backend, decode on the CPU instead of NVDEC (FFmpeg's CUDA hwaccel)");
  cmd->footer("\nThe output is 8-bit 4:2:0 tagged BT.709 (primaries, transfer, matrix); audio, subtitles and chapters "
              "are copied. Exit codes: 0 done, 1 bad input or usage (a truncated input: its frames are written and "
              "the output finalised), 2 a failure while running.\n\n" + operators_help());
  cmd->callback([o, &exit_code] { exit_code = run_video_command(*o); });
}

}  // namespace tonekit::cli
