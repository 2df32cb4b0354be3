// The pipeline behind `tonekit map` (one file or many): decode on worker threads, map in input
// order on the chosen backend (one call site, map_one_image), encode and write on a writer
// thread in input order. Memory is bounded by `max_in_flight` images (decoded, mapped or being
// written), whatever the number of jobs. A failing file is reported in its place (one line) and
// the others go on; outputs go through a temporary file + rename, so none is ever partial.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "tonekit/blur.hpp"
#include "tonekit/night.hpp"

namespace tonekit::cli {

struct BatchJob {
  std::string input, output;
};

struct BatchSettings {
  const Params* params = nullptr;
  // cpu, cuda, or automatic: decided when the first image is decoded (backend_for_image in
  // batch_pipeline.cpp), so that CUDA's start-up overlaps the decoding.
  Backend backend = Backend::cpu;
  int bits = 0;
  int jpeg_quality = 92;
  int png_level = io::kDefaultPngLevel;
  GlareParams glare;               // strength 0: off
  NightParams night;               // on false: off (map --night)
  // Inputs in BT.2020 primaries (map --primaries bt2020): converted to BT.709 with this gamut
  // mapping after decoding (convert_bt2020_to_bt709); false: inputs are BT.709.
  bool input_bt2020 = false;
  GamutMapping gamut = GamutMapping::clip;
  bool create_folders = false;     // -o patterns may name folders that do not exist yet
  // 0: chosen from the core count (batch_pipeline.cpp: 2 decoders and 4 images in flight on
  // 2-8 cores, up to 4 and 8 on 16 or more).
  int decode_workers = 0;
  // Images alive at once (decoding, decoded, mapped, being written); a 4K float RGB image and
  // its 8-bit output are 133 MB.
  int max_in_flight = 0;
  // Encoding threads (0: from the core count: 1 on 2-11 cores, 2 on 12-17, up to 4): each
  // encodes a whole image (PNG deflates its strips on every core); outputs still appear in
  // input order (docs/performance.md, Stills).
  int encode_workers = 0;
  bool progress = false;           // a progress line on stderr (only drawn on a terminal)
  // --devices: CUDA devices the images are spread over (backend cuda), one mapping thread per
  // device taking every n-th image; written in input order as always. Empty: the current device.
  std::vector<int> devices;
  // --auto: each image's own parameters, searched from *params (apps/auto_select.cpp).
  std::function<Status(const Image&, Params&, const std::string& input)> choose_params;
};

struct BatchResult {
  int written = 0;
  int failed = 0;
  int exit_code = kExitOk;  // worst exit code of the failures
  // Wall time of the run, and the seconds each stage spent, summed over its threads (decoders
  // run `decoders` at once; one mapping thread per device; `encoders` encoding threads).
  double seconds = 0.0;
  double decode_seconds = 0.0, map_seconds = 0.0, write_seconds = 0.0;
  int decoders = 0, encoders = 0;
};

BatchResult run_batch(const std::vector<BatchJob>& jobs, const BatchSettings& settings);

// The per-image mapping of a float image: glare, then night vision (when asked), then tone_map
// on the settings' backend. (A half EXR kept half, which needs neither glare, night nor --auto, goes straight to
// tone_map on its half view: batch_pipeline.cpp's map_loop.)
Status map_one_image(Image& image, const BatchSettings& settings, const OutputSpec& spec, OutputImage& out,
                     FrameStats& stats, const std::string& input = {});

}  // namespace tonekit::cli
