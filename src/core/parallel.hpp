// Threads over rows for the host code (the CPU backend, the summed-area tables, blur, quality):
// one contiguous band of rows per hardware thread. In core/ because sat/ sits below cpu/ and
// uses it too (the layers of docs/architecture.md); cpu/parallel.hpp gives the CPU backend the
// same functions under its own namespace. TONEKIT_THREADS sets the worker count.
#pragma once
#include <functional>

namespace tonekit::core {

int worker_count();
// Calls body(band, y_begin, y_end) for `bands` (<= worker_count()) contiguous bands covering
// [0, height), in parallel; returns once all have finished.
void parallel_rows(int height, const std::function<void(int band, int y_begin, int y_end)>& body);
int band_count(int height);
// Calls body(y_begin, y_end) for blocks of rows covering [0, height), handed out to worker_count()
// threads as each finishes its last (about 8 blocks a thread): for passes whose rows are
// independent and uneven in cost, where one band a thread left a core idle for up to half of a
// pass. No band index: the blocks are not tied to threads.
void parallel_row_blocks(int height, const std::function<void(int y_begin, int y_end)>& body);

}  // namespace tonekit::core
