// The host API's CUDA entry points (src/api/cuda_entry.hpp): device detection for
// `--backend auto|cuda`, and whole-image mapping (one ToneMapper reused while the size holds).
#include <cuda_runtime.h>
#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "api/cuda_entry.hpp"
#include "cuda/check.hpp"
#include "tonekit/tone_mapper.hpp"

namespace tonekit::cuda_entry {

namespace {

// The NVIDIA driver's device nodes (Linux; /dev/dxg under WSL). Without them there is no
// device, and `--backend auto` learns it from two stat calls instead of loading the driver.
bool has_device_node() {
  struct stat info {};
  return ::stat("/dev/nvidiactl", &info) == 0 || ::stat("/dev/dxg", &info) == 0;
}

// One ToneMapper (every operator, global or local) and its device buffers, kept for the next image of the same size and formats
// (a batch): the mapper's scratch, the buffers and the stream are allocated once. Host memory is
// copied from and to as it is (pageable): for one image, page-locking 2 x (100 + 33) MB of
// staging (what DeviceFrameMapper does for a stream's frames) costs more than the copy it speeds up.
struct FrameMapper {
  std::unique_ptr<ToneMapper> mapper;
  cudaStream_t stream = nullptr;
  void* d_in = nullptr;
  void* d_out = nullptr;
  int width = 0, height = 0;
  InputFormat input{};
  OutputFormat output{};
  bool timings = false;

  void release() {
    if (stream) cudaStreamSynchronize(stream);
    mapper.reset();
    cudaFree(d_in);
    cudaFree(d_out);
    if (stream) cudaStreamDestroy(stream);
    stream = nullptr;
    d_in = d_out = nullptr;
  }
  bool fits(const ToneMapperConfig& cfg) const {
    return mapper && width == cfg.width && height == cfg.height && input == cfg.input && output.type == cfg.output.type &&
           output.channels == cfg.output.channels && timings == cfg.timings;
  }
};

// CUDA's start-up, once per process: detection (loading the driver: cudaGetDeviceCount, ~0.23 s
// on the H100 host) and, when asked, the context (~0.15 s more). available() runs the detection
// on the calling thread unless start_in_background() already runs it; both wait for each other.
struct StartUp {
  std::mutex mutex;
  std::condition_variable changed;
  bool detecting = false, detected = false, ok = false;
  bool context_started = false, context_done = false;
  std::string reason;
};

StartUp& start_up() {
  static StartUp* s = new StartUp;  // leaked: a background start may outlive main's statics
  return *s;
}

void detect(StartUp& s) {
  bool ok = false;
  std::string reason;
  if (!has_device_node()) {
    reason = "no CUDA device (no /dev/nvidiactl)";
  } else {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      cudaGetLastError();
      reason = std::string("no CUDA device (") + cudaGetErrorString(e) + ")";
    } else if (count == 0) {
      reason = "no CUDA device present";
    } else {
      ok = true;
    }
  }
  std::lock_guard lock(s.mutex);
  s.ok = ok;
  s.reason = reason;
  s.detected = true;
  s.changed.notify_all();
}

}  // namespace

bool available(std::string* why) {
  StartUp& s = start_up();
  std::unique_lock lock(s.mutex);
  if (!s.detecting) {
    s.detecting = true;
    lock.unlock();
    detect(s);
    lock.lock();
  }
  s.changed.wait(lock, [&] { return s.detected; });
  if (!s.ok && why) *why = s.reason;
  return s.ok;
}

void start_in_background() {
  StartUp& s = start_up();
  {
    std::lock_guard lock(s.mutex);
    if (s.context_started) return;
    s.context_started = true;
    // A machine without the driver's device node has nothing to start: no thread at all.
    if (!s.detecting && !has_device_node()) {
      s.detecting = s.detected = true;
      s.reason = "no CUDA device (no /dev/nvidiactl)";
      s.context_done = true;
      return;
    }
  }
  std::thread([&s] {
    bool run_detection = false;
    {
      std::lock_guard lock(s.mutex);
      if (!s.detecting) s.detecting = run_detection = true;
    }
    if (run_detection) detect(s);
    std::unique_lock lock(s.mutex);
    s.changed.wait(lock, [&] { return s.detected; });
    const bool ok = s.ok;
    lock.unlock();
    if (ok && cudaFree(nullptr) != cudaSuccess) cudaGetLastError();  // the context; a failure shows at first use
    lock.lock();
    s.context_done = true;
    s.changed.notify_all();
  }).detach();
}

bool start_finished() {
  StartUp& s = start_up();
  std::lock_guard lock(s.mutex);
  return s.context_started ? s.context_done : s.detected;
}

void wait_for_start() {
  StartUp& s = start_up();
  std::unique_lock lock(s.mutex);
  if (s.context_started) s.changed.wait(lock, [&] { return s.context_done; });
}

bool device_memory_info(std::size_t* used, std::size_t* total) {
  if (!available()) return false;
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();  // clear it: the next tone_map must not see this failure
    return false;
  }
  if (used) *used = total_bytes - free_bytes;
  if (total) *total = total_bytes;
  return true;
}

int device_count() {
  if (!available()) return 0;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

Status use_device(int device) {
  std::string why;
  if (!available(&why)) return {StatusCode::no_device, "--backend cuda: " + why};
  const int count = device_count();
  if (device < 0 || device >= count)
    return invalid_argument("CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                            " present: 0.." + std::to_string(count - 1) + ")");
  TK_CUDA_CHECK(cudaSetDevice(device));
  return {};
}

int current_device() {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return device;
}

Status create_context() {
  std::string why;
  if (!available(&why)) return {StatusCode::no_device, "--backend cuda: " + why};
  TK_CUDA_CHECK(cudaFree(nullptr));  // the documented way to initialise the runtime and context
  return {};
}

Status tone_map_host(const ImageView& input, const Params& params, OutputFormat format, OutputImage& out,
                     FrameStats* stats, MapTimings* timings, const TemporalStep* temporal) {
  const auto t0 = std::chrono::steady_clock::now();
  InputFormat layout;
  if (input.type == PixelType::f32 && input.channels == 3) layout = InputFormat::rgb_f32;
  else if (input.type == PixelType::f32 && input.channels == 4) layout = InputFormat::rgba_f32;
  else if (input.type == PixelType::f16 && input.channels == 4) layout = InputFormat::rgba_f16;
  else
    return unsupported("--backend cuda: input must be float RGB or RGBA, or half RGBA (has " +
                       std::to_string(input.channels) +
                       (input.type == PixelType::f32 ? " float" : input.type == PixelType::f16 ? " half" : " integer") +
                       " channels)");
  ToneMapperConfig cfg;
  cfg.width = input.width;
  cfg.height = input.height;
  cfg.input = layout;
  cfg.output = format;
  cfg.params = params;
  cfg.timings = timings != nullptr;
  // One cached mapper per device (the calling thread's current device: use_cuda_device), so
  // that threads mapping on different GPUs (`map --devices`) never share one. Leaked on purpose:
  // freeing device memory from a static destructor races the CUDA runtime's own teardown at
  // exit. Callers on one device map one at a time (its mutex says so).
  constexpr int kDevices = 64;
  static std::mutex mutexes[kDevices];
  static FrameMapper* cached[kDevices] = {};
  int device = 0;
  TK_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= kDevices) return unsupported("--backend cuda: device " + std::to_string(device) + " is beyond the 64 this build caches");
  std::lock_guard lock(mutexes[device]);
  if (!cached[device]) cached[device] = new FrameMapper;
  FrameMapper& f = *cached[device];
  if (f.fits(cfg)) {
    if (Status s = f.mapper->set_params(params); !s.ok()) return s;
  } else {
    // The mapper is set last: a failure before it leaves `fits` false and the rest is freed
    // by the next call's release().
    f.release();
    TK_CUDA_CHECK(cudaStreamCreateWithFlags(&f.stream, cudaStreamNonBlocking));
    TK_CUDA_CHECK(cudaMalloc(&f.d_in, input.pixel_bytes() * static_cast<std::size_t>(input.width) * input.height));
    TK_CUDA_CHECK(cudaMalloc(&f.d_out, bytes_per_channel(format.type) * format.channels *
                                           static_cast<std::size_t>(input.width) * input.height));
    auto mapper = ToneMapper::create(cfg);
    if (!mapper.ok()) return mapper.status();
    f.width = cfg.width;
    f.height = cfg.height;
    f.input = cfg.input;
    f.output = cfg.output;
    f.timings = cfg.timings;
    f.mapper = std::move(mapper.value());
  }
  // Temporal adaptation per call: on with the caller's state seeded (or reset: the frame seeds
  // it), off otherwise (the cached mapper serves callers with and without).
  if (temporal) {
    if (Status s = f.mapper->set_temporal(true, *temporal->params); !s.ok()) return s;
    if (Status s = temporal->state->seeded ? f.mapper->seed_temporal(*temporal->state) : f.mapper->reset_temporal(); !s.ok())
      return s;
  } else if (Status s = f.mapper->set_temporal(false, TemporalParams{}); !s.ok()) {
    return s;
  }
  out.allocate_for_overwrite(input.width, input.height, format.channels, format.type);  // every byte is written
  const std::size_t row_bytes = input.pixel_bytes() * static_cast<std::size_t>(input.width);
  TK_CUDA_CHECK(cudaMemcpy2DAsync(f.d_in, row_bytes, input.data, input.stride(), row_bytes, static_cast<std::size_t>(input.height),
                                  cudaMemcpyHostToDevice, f.stream));
  if (Status s = f.mapper->process(f.d_in, 0, f.d_out, 0, f.stream, temporal ? temporal->dt : 0.0); !s.ok()) return s;
  TK_CUDA_CHECK(cudaMemcpyAsync(out.bytes.data(), f.d_out, out.bytes.size(), cudaMemcpyDeviceToHost, f.stream));
  TK_CUDA_CHECK(cudaStreamSynchronize(f.stream));
  if (temporal)
    if (Status s = f.mapper->read_temporal_state(*temporal->state); !s.ok()) return s;
  if (stats)
    if (Status s = f.mapper->read_stats(*stats); !s.ok()) return s;
  if (timings) {
    StageTimings t;
    if (Status s = f.mapper->read_timings(t); !s.ok()) return s;
    timings->stats_ms = t.stats_ms + t.histogram_ms;
    timings->map_ms = t.local_ms + t.map_ms;
    timings->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return {};
}

}  // namespace tonekit::cuda_entry
