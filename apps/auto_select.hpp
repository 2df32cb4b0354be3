// `tonekit map --auto`: the operator's parameters chosen per image by tonekit::auto_params, on the
// CPU, or by GpuAutoParams (the same search, candidates mapped and scored on the GPU) when the
// image is mapped on the cuda backend.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "tonekit/auto_params.hpp"
#include "tonekit/auto_params_cuda.hpp"
#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::cli {

class AutoSelector {
 public:
  // `backend` as map's --backend: cpu searches on the CPU, cuda on the GPU (its errors are
  // errors), automatic on the GPU when cuda_available(), falling back to the CPU when the GPU
  // cannot search (no cuFFT, out of memory: not for input errors, which both would report).
  explicit AutoSelector(Backend backend) : backend_(backend) {}

  // Replaces `params` (the starting point: defaults plus --set values) by the automatic choice
  // for `image`, and prints the chosen values and scores as one line on stderr. Called from the
  // batch's mapping threads (one per --devices entry): each thread keeps its own GpuAutoParams,
  // created on its device at its first image.
  Status choose(const Image& image, Params& params, const std::string& input_name);
  // The search alone (choose without the printing), within `budget`: `tonekit compare` reports
  // the result in its own table.
  Result<AutoResult> search(const Image& image, const Params& start, const AutoBudget& budget = {});

 private:
  Result<AutoResult> search_on_gpu(const Image& image, const Params& start, const AutoBudget& budget);
  Backend backend_;
  std::mutex mutex_;  // guards the map, not the searchers (each used by its own thread)
  std::map<std::thread::id, std::unique_ptr<GpuAutoParams>> gpu_;
};

}  // namespace tonekit::cli
