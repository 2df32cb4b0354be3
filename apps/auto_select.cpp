// `tonekit map --auto` (see auto_select.hpp): the search itself is tonekit::auto_params on the
// map's backend; this prints what it chose, so a person can judge.
#include "auto_select.hpp"

#include <cstdio>

namespace tonekit::cli {

Result<AutoResult> AutoSelector::search(const Image& image, const Params& start, const AutoBudget& budget) {
  return auto_params(image, start, budget, backend_);
}

Status AutoSelector::choose(const Image& image, Params& params, const std::string& input_name) {
  Result<AutoResult> r = search(image, params);
  if (!r.ok()) return Status{r.status().code(), input_name + ": --auto: " + r.status().message()};
  std::string chosen;
  for (const std::string& name : r->searched) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s=%.4g (from %.4g)", chosen.empty() ? "" : ", ", name.c_str(),
                  r->params.get(name), params.get(name));
    chosen += buf;
  }
  if (chosen.empty()) chosen = "nothing to search (no continuous parameters)";
  // Where the candidates were mapped and scored (GpuAutoParams: every metric on the device).
  const char* where = r->backend == Backend::cuda ? " on cuda (mapped and scored on the device)" : "";
  std::fprintf(stderr,
               "tonekit: auto: %s: %s %s; J %.4f (start %.4f): TMQI %.4f, FSITM %.4f, CIEDE2000 %.2f; "
               "%d evaluations in %.2f s on a %dx%d proxy%s\n",
               input_name.c_str(), params.op().id, chosen.c_str(), r->chosen.objective, r->start.objective,
               r->chosen.tmqi, r->chosen.fsitm, r->chosen.delta_e2000, r->evaluations, r->seconds, r->proxy_width,
               r->proxy_height, where);
  params = r->params;
  return {};
}

}  // namespace tonekit::cli
