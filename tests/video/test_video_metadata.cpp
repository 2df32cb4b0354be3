// The HDR metadata readers (apps/video/hdr_metadata) on frames built here with FFmpeg's own
// side-data constructors, since Debian's x265 cannot write HDR10+ (built without HDR10_PLUS):
// MaxCLL before the mastering display's maximum, HDR10+ maxscl in cd/m^2; and the stream
// mapper's set_params, which the per-scene peak goes through, changing the next frame.
#include <gtest/gtest.h>

extern "C" {
#include <libavutil/hdr_dynamic_metadata.h>
#include <libavutil/mastering_display_metadata.h>
}

#include "stream/frame_mapper.hpp"
#include "video/av_util.hpp"
#include "video/hdr_metadata.hpp"

using namespace tonekit;
using namespace tonekit::video;

namespace {

FramePtr blank_frame() { return FramePtr(av_frame_alloc()); }

TEST(VideoMetadata, MaxCllIsThePeakBeforeTheMasteringMaximum) {
  FramePtr f = blank_frame();
  AVMasteringDisplayMetadata* md = av_mastering_display_metadata_create_side_data(f.get());
  ASSERT_NE(md, nullptr);
  md->has_luminance = 1;
  md->max_luminance = av_make_q(4000, 1);
  md->min_luminance = av_make_q(5, 1000);
  Hdr10Metadata m;
  read_frame_metadata(*f, m);
  ASSERT_TRUE(m.mastering);
  EXPECT_DOUBLE_EQ(m.static_peak(), 4000.0);
  AVContentLightMetadata* cll = av_content_light_metadata_create_side_data(f.get());
  ASSERT_NE(cll, nullptr);
  cll->MaxCLL = 1200;
  cll->MaxFALL = 300;
  read_frame_metadata(*f, m);
  ASSERT_TRUE(m.light);
  EXPECT_DOUBLE_EQ(m.static_peak(), 1200.0);
  EXPECT_EQ(m.describe_light(), "MaxCLL 1200 cd/m^2, MaxFALL 300 cd/m^2 (frame)");
  // MaxCLL 0 means "unknown" (CTA-861.3): the mastering maximum stands.
  Hdr10Metadata unknown;
  cll->MaxCLL = 0;
  read_frame_metadata(*f, unknown);
  EXPECT_DOUBLE_EQ(unknown.static_peak(), 4000.0);
}

TEST(VideoMetadata, Hdr10PlusScenePeakIsTheLargestMaxsclInCdm2) {
  FramePtr f = blank_frame();
  EXPECT_FALSE(hdr10plus_scene_peak(*f));
  AVDynamicHDRPlus* hdr = av_dynamic_hdr_plus_create_side_data(f.get());
  ASSERT_NE(hdr, nullptr);
  hdr->num_windows = 1;
  // ST 2094-40 maxscl in units of 0.1 cd/m^2 (FFmpeg: over 100000): R 400, G 750.5, B 20 cd/m^2.
  hdr->params[0].maxscl[0] = av_make_q(4000, 100000);
  hdr->params[0].maxscl[1] = av_make_q(7505, 100000);
  hdr->params[0].maxscl[2] = av_make_q(200, 100000);
  const auto peak = hdr10plus_scene_peak(*f);
  ASSERT_TRUE(peak);
  EXPECT_NEAR(*peak, 750.5, 1e-9);
}

// The per-scene peak reaches the frames through FrameMapper::set_params: a lower source peak
// compresses less, so the same frame comes out brighter.
TEST(VideoMetadata, MapperSetParamsChangesTheNextFrame) {
  constexpr int w = 16, h = 8;
  stream::MapperSetup s;
  s.width = w;
  s.height = h;
  s.format = InputFormat::rgb_f32;
  s.colour.transfer = Transfer::linear;
  s.out = stream::OutputKind::rgb24;
  auto params = prepare_params("bt2390", {{"source_peak", "4000"}, {"dither", "0"}});
  ASSERT_TRUE(params.ok());
  s.params = *params;
  s.backend = Backend::cpu;
  auto mapper = stream::FrameMapper::create(s);
  ASSERT_TRUE(mapper.ok()) << mapper.status().message();
  stream::Frame in, out_high, out_low;
  in.bytes.resize(std::size_t(w) * h * 3 * sizeof(float));
  auto* px = reinterpret_cast<float*>(in.bytes.data());
  for (int i = 0; i < w * h * 3; ++i) px[i] = 0.5f + 4.0f * static_cast<float>(i % (w * 3)) / (w * 3);
  ASSERT_TRUE((*mapper)->map(in, out_high).ok());
  ASSERT_TRUE(params->set("source_peak", 800.0).ok());
  ASSERT_TRUE((*mapper)->set_params(*params).ok());
  ASSERT_TRUE((*mapper)->map(in, out_low).ok());
  long long sum_high = 0, sum_low = 0;
  for (std::size_t i = 0; i < out_high.bytes.size(); ++i) {
    sum_high += out_high.bytes[i];
    sum_low += out_low.bytes[i];
  }
  EXPECT_GT(sum_low, sum_high);
}

}  // namespace
