// `tonekit map --auto`: the operator's parameters chosen per image by tonekit::auto_params on the
// map's backend (the library's rule: on the GPU the same search with the candidates mapped and
// scored there).
#pragma once
#include <string>

#include "tonekit/auto_params.hpp"
#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::cli {

class AutoSelector {
 public:
  // `backend` as map's --backend, passed to auto_params: cpu searches on the CPU, cuda on the GPU
  // (its errors are errors), automatic on the GPU when there is one, falling back to the CPU when
  // the GPU cannot search (tonekit/tonemap.hpp's Backend says when).
  explicit AutoSelector(Backend backend) : backend_(backend) {}

  // Replaces `params` (the starting point: defaults plus --set values) by the automatic choice
  // for `image`, and prints the chosen values and scores as one line on stderr. Called from the
  // batch's mapping threads (one per --devices entry): each searches on its thread's device.
  Status choose(const Image& image, Params& params, const std::string& input_name);
  // The search alone (choose without the printing), within `budget`: `tonekit compare` reports
  // the result in its own table.
  Result<AutoResult> search(const Image& image, const Params& start, const AutoBudget& budget = {});

 private:
  Backend backend_;
};

}  // namespace tonekit::cli
