// The CLI's operator new and delete: malloc and free, and for blocks of 4 MiB and more (decoded
// images, mapped outputs, file buffers: a 4K float RGB image is 100 MB):
// - an madvise(MADV_HUGEPAGE) before the first touch, so the kernel backs them with 2 MiB pages
//   where transparent huge pages are in `madvise` mode (Debian's default). glibc's own
//   `glibc.malloc.hugetlb=1` tunable does the same for its mmap'd chunks, but only when set in
//   the environment before the process starts. Measured here (2 cores, 4K half EXR -> PNG, whole
//   process): system time 104 -> 43 ms; reading a 4K Radiance file five times: 1.06 -> 0.47 s.
// - a few freed blocks kept for the next request of about their size: glibc unmaps a large
//   block on free, so each image of a batch (frame, file buffer, output, PNG strips) came back
//   as fresh pages the kernel clears (17-32 % of the process in clear_page, issue 33). Bounded
//   (kSlots blocks, kHeldBytes in all; the oldest goes first), so a batch's memory stays that of
//   the images in flight. TONEKIT_ALLOC_REPORT=1 prints the counts at exit (tests read them).
// Only the CLI gets this, not the library.
#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <thread>

#include <unistd.h>

#include "page_backing.hpp"

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kAdviseFrom = std::size_t{4} << 20;
constexpr int kSlots = 12;
constexpr std::size_t kHeldBytes = std::size_t{768} << 20;

struct BlockCache {
  std::mutex mutex;
  void* blocks[kSlots] = {};
  std::size_t sizes[kSlots] = {};  // malloc_usable_size of each, oldest first
  int count = 0;
  std::size_t held = 0;
  unsigned long fresh = 0, reused = 0;  // large requests served by malloc / from the cache
};
constinit BlockCache cache;

// A cached block for `size` bytes: the smallest that fits, and not one of more than 1/8 beyond
// the request (a small request must not pin a frame-sized block).
void* take_cached(std::size_t size) {
  std::lock_guard lock(cache.mutex);
  int best = -1;
  for (int i = 0; i < cache.count; ++i)
    if (cache.sizes[i] >= size && cache.sizes[i] - size <= size / 8 && (best < 0 || cache.sizes[i] < cache.sizes[best])) best = i;
  if (best < 0) {
    ++cache.fresh;
    return nullptr;
  }
  void* p = cache.blocks[best];
  cache.held -= cache.sizes[best];
  for (int i = best; i + 1 < cache.count; ++i) {
    cache.blocks[i] = cache.blocks[i + 1];
    cache.sizes[i] = cache.sizes[i + 1];
  }
  --cache.count;
  ++cache.reused;
  return p;
}

// Fresh pages are cleared by the kernel at their first touch, one thread at a time: for a 4K
// float image that is the reader's zero fill (std::vector's), serial before any decoding, 17 % of
// a still's CPU time (2 cores). Touched here by two threads at once instead (MADV_POPULATE_WRITE,
// Linux 5.14+; where it fails the pages are simply touched later, as before).
constexpr std::size_t kPrefaultFrom = std::size_t{16} << 20;

void prefault_in_parallel(void* p, std::size_t size) noexcept {
  const auto begin = reinterpret_cast<std::uintptr_t>(p), end = begin + size;
  const auto middle = (begin + size / 2 + kHugePage - 1) & ~(kHugePage - 1);
  if (middle >= end) return;
  auto* const half = reinterpret_cast<void*>(middle);
  try {
    std::thread helper([=] { tonekit::cli::back_whole_pages(half, end - middle); });
    tonekit::cli::back_whole_pages(p, middle - begin);
    helper.join();
  } catch (...) {  // no thread: the pages fault in when first written, as without this
  }
}

void* allocate(std::size_t size) noexcept {
  if (size >= kAdviseFrom)
    if (void* p = take_cached(size)) return p;
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p != nullptr && size >= kAdviseFrom) {
    // The whole 2 MiB pages inside the block: glibc serves such sizes with their own mmap, so
    // the pages are fresh and untouched.
    const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + size) & ~(kHugePage - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    if (size >= kPrefaultFrom) prefault_in_parallel(p, size);
  }
  return p;
}

void release(void* p) noexcept {
  if (p == nullptr) return;
  const std::size_t size = ::malloc_usable_size(p);
  if (size < kAdviseFrom || size > kHeldBytes) return std::free(p);
  void* evicted[kSlots];
  int n = 0;
  {
    std::lock_guard lock(cache.mutex);
    while (cache.count > 0 && (cache.count == kSlots || cache.held + size > kHeldBytes)) {
      evicted[n++] = cache.blocks[0];
      cache.held -= cache.sizes[0];
      for (int i = 0; i + 1 < cache.count; ++i) {
        cache.blocks[i] = cache.blocks[i + 1];
        cache.sizes[i] = cache.sizes[i + 1];
      }
      --cache.count;
    }
    cache.blocks[cache.count] = p;
    cache.sizes[cache.count++] = size;
    cache.held += size;
  }
  for (int i = 0; i < n; ++i) std::free(evicted[i]);
}

struct ReportAtExit {
  ~ReportAtExit() {
    const char* v = std::getenv("TONEKIT_ALLOC_REPORT");
    if (v != nullptr && v[0] == '1')
      std::fprintf(stderr, "tonekit: large blocks: %lu fresh, %lu reused\n", cache.fresh, cache.reused);
  }
} report_at_exit;

}  // namespace

void* operator new(std::size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}

void* operator new[](std::size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}

void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }

void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
