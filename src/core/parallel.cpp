#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace tonekit::core {

int worker_count() {
  static const int n = [] {
    if (const char* env = std::getenv("TONEKIT_THREADS")) {
      int v = std::atoi(env);
      if (v > 0) return v;
    }
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return n;
}

int band_count(int height) { return std::max(1, std::min(worker_count(), height)); }

void parallel_rows(int height, const std::function<void(int, int, int)>& body) {
  const int bands = band_count(height);
  if (height <= 0) return;
  auto band_range = [&](int b, int& y0, int& y1) {
    y0 = static_cast<int>(static_cast<long long>(height) * b / bands);
    y1 = static_cast<int>(static_cast<long long>(height) * (b + 1) / bands);
  };
  if (bands == 1) {
    body(0, 0, height);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(bands - 1);
  for (int b = 1; b < bands; ++b) {
    int y0, y1;
    band_range(b, y0, y1);
    threads.emplace_back([&body, b, y0, y1] { body(b, y0, y1); });
  }
  int y0, y1;
  band_range(0, y0, y1);
  body(0, y0, y1);
  for (auto& t : threads) t.join();
}

void parallel_row_blocks(int height, const std::function<void(int, int)>& body) {
  if (height <= 0) return;
  const int workers = band_count(height);
  if (workers == 1) {
    body(0, height);
    return;
  }
  const int block = std::max(1, height / (8 * workers));
  std::atomic<int> next{0};
  auto work = [&] {
    for (int y0; (y0 = next.fetch_add(block)) < height;) body(y0, std::min(height, y0 + block));
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (int w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
}

}  // namespace tonekit::core
