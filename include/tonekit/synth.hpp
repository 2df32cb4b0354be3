// Procedural HDR test scenes: deterministic, scene-referred float RGB (linear BT.709
// primaries, values in cd/m^2-like units), computed from resolution-independent screen
// coordinates so a scene looks the same at every size from 1x1 to 8K. No external data:
// textures are seeded value noise. Used by `tonekit synth`, `tonekit demo`, tests and benches.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "tonekit/image.hpp"
#include "tonekit/status.hpp"
#include "tonekit/video.hpp"

namespace tonekit::synth {

struct SceneInfo {
  const char* id;           // short lowercase id used by `tonekit synth ID`
  const char* description;  // what the scene holds and which luminance ranges
};

// Every scene, in registry order.
const std::vector<SceneInfo>& all_scenes();
const SceneInfo* find_scene(std::string_view id);

// Size limits: any side from 1 to 7680 and at most 7680 x 4320 pixels in all (8K UHD in
// landscape or portrait).
constexpr int kMaxSide = 7680;
constexpr std::int64_t kMaxPixels = std::int64_t{7680} * 4320;
Status check_size(int width, int height);

// Renders scene `id` as a 3-channel float image. `threads` = 0 uses every hardware thread.
// Errors: unknown scene or size out of range (invalid_argument), allocation failure.
Result<Image> render_scene(std::string_view id, int width, int height, unsigned threads = 0);

// Synthetic sequences: N frames of a scene in motion, for the temporal adaptation tests, the
// stream benchmarks and the demo. Frame i of N shows the moment u = i / N of the sequence's
// fixed script, so any N (and any frame rate) plays the whole story.
struct SequenceInfo {
  const char* id;
  const char* description;
};
const std::vector<SequenceInfo>& all_sequences();
const SequenceInfo* find_sequence(std::string_view id);

// What frame i of N shows, for tests that need to know where the script is (e.g. "cut").
const char* sequence_phase(std::string_view id, int frame_index, int frame_count);

// Renders frame `frame_index` of `frame_count` (3-channel float, like render_scene).
// Errors: unknown sequence, frame index out of [0, frame_count), size out of range.
Result<Image> render_sequence_frame(std::string_view id, int frame_index, int frame_count, int width, int height,
                                    unsigned threads = 0);

// A rendered frame as an HDR10-style video frame for streams: scene values taken as cd/m^2,
// PQ (SMPTE ST 2084, absolute), in BT.2020 (converted from the scenes' BT.709) or BT.709
// primaries, Y'CbCr with the BT.2020 NCL or BT.709 matrix to match, limited range, 10 bits,
// 4:2:0 with chroma top-left co-sited (a [1 2 1] / 4 filter on each axis around the co-sited
// luma sample), packed as the yuv420p10 layout of tonekit/video.hpp (16-bit little-endian).
void encode_pq_yuv420p10(const Image& scene, Primaries primaries, std::vector<std::uint8_t>& out);
// The same frame as linear float planes in ffmpeg's gbrpf32 order (G, B, R), BT.709.
void encode_gbrpf32(const Image& scene, std::vector<std::uint8_t>& out);

}  // namespace tonekit::synth
