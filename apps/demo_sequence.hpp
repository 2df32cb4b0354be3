// The demo's video part (issue 15 item 2): the night-drive sequence tone-mapped twice through the
// stream's mapper, frame by frame and with temporal adaptation, written as MP4s (H.264 through
// ffmpeg, when installed; y4m otherwise) with an SVG plot of each frame's key against the
// adapted key, and the HTML section of the contact sheet that shows them.
#pragma once
#include <filesystem>
#include <string>

#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"

namespace tonekit::cli {

struct DemoSequence {
  int frames = 72;
  int width = 640, height = 360;
  int fps = 24;
};

// Writes OUT/sequence/{per_frame,temporal}.mp4 (or .y4m), keys.csv and keys.svg; returns the
// HTML section (paths relative to OUT).
Result<std::string> write_demo_sequence(const std::filesystem::path& out_dir, const DemoSequence& setup,
                                        const Params& params);

}  // namespace tonekit::cli
