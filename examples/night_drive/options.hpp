// The renderer's command-line helpers: the example is a client of the public API only
// (docs/architecture.md, Layers), so it parses its few options itself rather than through the
// tonekit CLI's apps/cli_common.hpp.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tonekit/blur.hpp"
#include "tonekit/night.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"

namespace night_drive {

// One line on stderr, "tonekit: error: ..." as every tonekit program writes it; returns the exit
// code: 1 for the user's input errors (Status::is_input_error), 2 for failures while running.
int report(const tonekit::Status& status);
// "WxH" -> (W, H).
tonekit::Result<std::pair<int, int>> parse_size(std::string_view text);
// The operator `op` with NAME=VALUE settings, validated (tonekit::prepare_params).
tonekit::Result<tonekit::Params> params_from_settings(const std::string& op, const std::vector<std::string>& settings);
// Night vision from --night-set NAME=VALUE settings (tonekit::prepare_night); `off`: NightParams{}.
tonekit::Result<tonekit::NightParams> night_from_settings(bool off, const std::vector<std::string>& settings);
// --glare, --glare-threshold, --glare-radius.
void add_glare_options(CLI::App* cmd, tonekit::GlareParams& glare);

}  // namespace night_drive
