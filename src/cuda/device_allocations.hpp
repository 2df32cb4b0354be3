// Device memory owned by scope, every allocation checked: DeviceAllocations holds
// an engine's scratch, allocated once at create() and freed together with the engine;
// DeviceBuffer holds one buffer of a host convenience call (upload, run, download).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cuda/check.hpp"

namespace tonekit::cuda {

class DeviceAllocations {
 public:
  DeviceAllocations() = default;
  DeviceAllocations(const DeviceAllocations&) = delete;
  DeviceAllocations& operator=(const DeviceAllocations&) = delete;
  ~DeviceAllocations() {
    for (void* p : owned_) cudaFree(p);
  }

  // `count` elements of T (at least one is allocated, so an empty plane still has a pointer).
  template <class T>
  Status alloc(T** p, std::size_t count) {
    void* q = nullptr;
    TK_CUDA_CHECK(cudaMalloc(&q, std::max<std::size_t>(count, 1) * sizeof(T)));
    owned_.push_back(q);
    bytes_ += count * sizeof(T);
    *p = static_cast<T*>(q);
    return {};
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::vector<void*> owned_;
  std::size_t bytes_ = 0;
};

template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(p); }
};

}  // namespace tonekit::cuda
