// Threads over rows for the CPU backend: one contiguous band of rows per hardware thread.
#pragma once
#include <functional>

namespace tonekit::cpu {

int worker_count();
// Calls body(band, y_begin, y_end) for `bands` (<= worker_count()) contiguous bands covering
// [0, height), in parallel; returns once all have finished.
void parallel_rows(int height, const std::function<void(int band, int y_begin, int y_end)>& body);
int band_count(int height);

}  // namespace tonekit::cpu
