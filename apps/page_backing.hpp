// Backing memory's pages before they are written: a fresh page is cleared by the kernel at its
// first touch, on the thread that touches it. Backing them ahead (on another thread, or on two at
// once) takes that cost off the thread that will fill the memory (apps/huge_pages.cpp for the
// CLI's large blocks, stream/pipeline.cpp for the stream's input frames).
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace tonekit::cli {

// The whole pages inside [p, p + size) backed now (MADV_POPULATE_WRITE, Linux 5.14+); false
// where the kernel cannot (nothing done: the pages fault in when first written). The partial
// pages at either end are the caller's.
inline bool back_whole_pages(void* p, std::size_t size) noexcept {
#if defined(MADV_POPULATE_WRITE)
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + size) & ~(page - 1);
  if (end <= begin) return true;
  return ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
#else
  (void)p, (void)size;
  return false;
#endif
}

}  // namespace tonekit::cli
