// `tonekit map --auto`: the operator's parameters chosen per image by tonekit::auto_params.
#pragma once
#include <string>

#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"

namespace tonekit::cli {

// Replaces `params` (the starting point: defaults plus --set values) by the automatic choice for
// `image`, and prints the chosen values and scores as one line on stderr.
Status choose_auto_params(const Image& image, Params& params, const std::string& input_name);

}  // namespace tonekit::cli
