// The device path of the Python module: CUDA images (PyTorch, CuPy, any __cuda_array_interface__
// or DLPack producer) mapped where they lie by the public ToneMapper (tonekit/tone_mapper.hpp), on
// the caller's stream, with no host round trip. One ToneMapper per (device, size, layouts,
// operator, stream) is created on first use and kept (process() then allocates nothing and never
// synchronises the host); a stream of its own per entry keeps two streams from sharing scratch.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstdint>
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "dlpack_abi.hpp"
#include "tonekit/tone_mapper.hpp"
#include "tonekit/video.hpp"
#if TONEKIT_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace tonekit::python {
namespace {

[[maybe_unused]] Status no_cuda_build() { return {StatusCode::no_device, "this build of tonekit has no CUDA backend"}; }

#if TONEKIT_HAS_CUDA
Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  cudaGetLastError();  // clear a sticky launch error from the runtime's per-thread slot
  const StatusCode code = e == cudaErrorMemoryAllocation ? StatusCode::out_of_memory
                          : (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) ? StatusCode::no_device
                                                                                           : StatusCode::runtime_error;
  return {code, std::string(what) + ": " + cudaGetErrorString(e)};
}
#endif

#if TONEKIT_HAS_CUDA
using DeviceMapper = ToneMapper;
#else
// A build without CUDA has no ToneMapper (tonekit/tone_mapper.hpp): the calls used here, each
// answering no_device.
struct DeviceMapper {
  static Result<std::unique_ptr<DeviceMapper>> create(const ToneMapperConfig&) { return no_cuda_build(); }
  Status process(const void*, std::size_t, void*, std::size_t, CUstream_st*, double = 0.0) { return no_cuda_build(); }
  Status set_params(const Params&) { return no_cuda_build(); }
  Status read_temporal_state(TemporalState&) { return no_cuda_build(); }
  Status seed_temporal(const TemporalState&) { return no_cuda_build(); }
  Status reset_temporal() { return no_cuda_build(); }
};
#endif

// The device holding `ptr` (for producers that do not say).
int device_of(std::uintptr_t ptr) {
#if TONEKIT_HAS_CUDA
  cudaPointerAttributes attr{};
  check(cuda_status(cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(ptr)), "tonekit.map"));
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    raise(invalid_argument("tonekit.map: the array is not in CUDA device memory"));
  return attr.device;
#else
  (void)ptr;
  raise(no_cuda_build());
#endif
}

// Runs `work` with `device` current on this thread, then restores the caller's (PyTorch and CuPy
// keep their own notion of the current device).
template <class F>
Status on_device(int device, F&& work) {
#if TONEKIT_HAS_CUDA
  int previous = 0;
  if (Status s = cuda_status(cudaGetDevice(&previous), "cudaGetDevice"); !s.ok()) return s;
  if (previous != device)
    if (Status s = cuda_status(cudaSetDevice(device), "cudaSetDevice"); !s.ok()) return s;
  Status s = work();
  if (previous != device) cudaSetDevice(previous);
  return s;
#else
  (void)device;
  (void)work;
  return no_cuda_build();
#endif
}

InputFormat input_format(const std::string& dtype, int channels, const char* who) {
  if (channels != 3 && channels != 4)
    raise(invalid_argument(std::string(who) + ": expected an H x W x 3 or H x W x 4 image, got " +
                           std::to_string(channels) + " channels"));
  if (dtype == "float32") return channels == 4 ? InputFormat::rgba_f32 : InputFormat::rgb_f32;
  if (dtype == "float16") {
    if (channels == 4) return InputFormat::rgba_f16;
    raise(invalid_argument(std::string(who) +
                           ": float16 on the GPU needs 4 channels (RGBA half, the render-target layout): pad "
                           "the image to 4 channels or pass float32"));
  }
  raise(invalid_argument(std::string(who) + ": expected float32 or float16 pixels, got " + dtype));
}

// A CUDA image as the Python layer read it from the producer.
struct DeviceImage {
  std::uintptr_t ptr = 0;
  int height = 0, width = 0, channels = 0;
  std::size_t row_stride = 0;  // bytes
  std::string dtype;
  int device = -1;
};

ToneMapperConfig config_for(const DeviceImage& in, const Params& params, PixelType out_type, int out_channels,
                            const char* who) {
  if (in.height < 1 || in.width < 1 || in.height > kMaxImageSide || in.width > kMaxImageSide)
    raise(invalid_argument(std::string(who) + ": image sides must be 1.." + std::to_string(kMaxImageSide)));
  if (out_channels != 3 && out_channels != 4) raise(invalid_argument(std::string(who) + ": channels must be 3 or 4"));
  ToneMapperConfig cfg;
  cfg.params = params;
  cfg.width = in.width;
  cfg.height = in.height;
  cfg.input = input_format(in.dtype, in.channels, who);
  cfg.output = OutputFormat{out_type, out_channels};
  cfg.device = in.device;
  return cfg;
}

// ---- the cache of mappers for tonekit.map ----

struct CachedMapper {
  std::mutex busy;
  std::unique_ptr<DeviceMapper> mapper;
  std::vector<std::pair<std::string, double>> values;  // the parameters it holds now
  std::uint64_t last_use = 0;
};
using MapperKey = std::tuple<int, int, int, int, int, int, std::string, std::uintptr_t>;
constexpr std::size_t kCachedMappers = 16;  // sizes x operators x streams a program cycles through
std::mutex g_cache_mutex;
std::map<MapperKey, std::shared_ptr<CachedMapper>> g_cache;
std::uint64_t g_clock = 0;

Result<std::shared_ptr<CachedMapper>> cached_mapper(const ToneMapperConfig& cfg, std::uintptr_t stream) {
  const MapperKey key{cfg.device, cfg.width, cfg.height, static_cast<int>(cfg.input), static_cast<int>(cfg.output.type),
                      cfg.output.channels, cfg.params.op().id, stream};
  std::lock_guard lock(g_cache_mutex);
  if (auto it = g_cache.find(key); it != g_cache.end()) {
    it->second->last_use = ++g_clock;
    return it->second;
  }
  auto created = DeviceMapper::create(cfg);
  if (!created.ok()) return created.status();
  if (g_cache.size() >= kCachedMappers) {  // the least recently used goes (once its work is done)
    auto oldest = g_cache.begin();
    for (auto it = g_cache.begin(); it != g_cache.end(); ++it)
      if (it->second->last_use < oldest->second->last_use) oldest = it;
    g_cache.erase(oldest);
  }
  auto entry = std::make_shared<CachedMapper>();
  entry->mapper = std::move(*created);
  entry->values = cfg.params.values();
  entry->last_use = ++g_clock;
  g_cache.emplace(key, entry);
  return entry;
}

// Maps `repeats` frames with the cached mapper (1 for tonekit.map; more for the benchmark's C++
// figure in the same run, then the stream is synchronised and the seconds per frame returned).
double map_device(const DeviceImage& input, std::uintptr_t out_ptr, std::size_t out_stride, const std::string& out_dtype,
                  int out_channels, std::uintptr_t stream, const std::string& op, const py::dict& settings,
                  int repeats = 1) {
  const Params params = params_from(op, settings);
  DeviceImage in = input;
  if (in.device < 0) in.device = device_of(in.ptr);
  const ToneMapperConfig cfg = config_for(in, params, parse_output_dtype(out_dtype), out_channels, "tonekit.map");
  py::gil_scoped_release unlocked;
  double seconds = 0.0;
  check(on_device(in.device, [&]() -> Status {
    auto entry = cached_mapper(cfg, stream);
    if (!entry.ok()) return entry.status();
    CachedMapper& c = **entry;
    std::lock_guard busy(c.busy);
    if (auto values = params.values(); values != c.values) {
      if (Status s = c.mapper->set_params(params); !s.ok()) return s;
      c.values = std::move(values);
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < repeats; ++i)
      if (Status s = c.mapper->process(reinterpret_cast<const void*>(in.ptr), in.row_stride,
                                       reinterpret_cast<void*>(out_ptr), out_stride, reinterpret_cast<CUstream_st*>(stream));
          !s.ok())
        return s;
    if (repeats > 1) {
#if TONEKIT_HAS_CUDA
      if (Status s = cuda_status(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
          !s.ok())
        return s;
#endif
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeats;
    }
    return Status{};
  }));
  return seconds;
}

// ---- DLPack in: a consumed capsule, described for the Python layer ----

class DLView {
 public:
  explicit DLView(py::capsule capsule) {
    if (std::string(capsule.name() ? capsule.name() : "") != "dltensor")
      raise(invalid_argument("tonekit.map: expected an unused DLPack capsule ('dltensor')"));
    managed_ = static_cast<DLManagedTensor*>(capsule.get_pointer());
    if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) throw py::error_already_set();
  }
  ~DLView() {
    if (managed_ && managed_->deleter) managed_->deleter(managed_);
  }
  DLView(const DLView&) = delete;
  DLView& operator=(const DLView&) = delete;

  const DLTensor& t() const { return managed_->dl_tensor; }
  std::uintptr_t ptr() const { return reinterpret_cast<std::uintptr_t>(t().data) + t().byte_offset; }
  std::vector<std::int64_t> shape() const { return {t().shape, t().shape + t().ndim}; }
  // Strides in bytes (DLPack gives elements, or none for a packed row-major tensor).
  std::vector<std::int64_t> strides() const {
    const std::int64_t item = (t().dtype.bits * t().dtype.lanes) / 8;
    std::vector<std::int64_t> s(static_cast<std::size_t>(t().ndim));
    std::int64_t packed = item;
    for (int i = t().ndim - 1; i >= 0; --i) {
      s[static_cast<std::size_t>(i)] = t().strides ? t().strides[i] * item : packed;
      packed *= t().shape[i];
    }
    return s;
  }
  std::string dtype() const {
    const DLDataType d = t().dtype;
    if (d.lanes != 1) return "vector";
    if (d.code == kDLFloat) return "float" + std::to_string(d.bits);
    if (d.code == kDLUInt) return "uint" + std::to_string(d.bits);
    if (d.code == kDLInt) return "int" + std::to_string(d.bits);
    return "code" + std::to_string(d.code);
  }
  int device_type() const { return t().device.device_type; }
  int device_id() const { return t().device.device_id; }

 private:
  DLManagedTensor* managed_ = nullptr;
};

// ---- results for producers that are neither PyTorch nor CuPy ----

// Device memory holding one mapped image, exported through __cuda_array_interface__ (version 3)
// and DLPack; freed when the last consumer lets go.
class DeviceBuffer {
 public:
  DeviceBuffer(int device, int height, int width, int channels, const std::string& dtype)
      : device_(device), height_(height), width_(width), channels_(channels), type_(parse_output_dtype(dtype)) {
#if TONEKIT_HAS_CUDA
    check(on_device(device_, [&] { return cuda_status(cudaMalloc(&ptr_, bytes()), "tonekit.map: cudaMalloc"); }));
#else
    raise(no_cuda_build());
#endif
  }
  ~DeviceBuffer() {
#if TONEKIT_HAS_CUDA
    if (ptr_) on_device(device_, [&] { return cuda_status(cudaFree(ptr_), "cudaFree"); });
#endif
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  std::size_t row_bytes() const { return static_cast<std::size_t>(width_) * channels_ * bytes_per_channel(type_); }
  std::size_t bytes() const { return row_bytes() * static_cast<std::size_t>(height_); }
  std::uintptr_t ptr() const { return reinterpret_cast<std::uintptr_t>(ptr_); }
  int device() const { return device_; }
  void set_stream(std::uintptr_t s) { stream_ = s; }

  py::dict cuda_array_interface() const {
    static const char* typestr[] = {"<f4", "<f2", "|u1", "<u2"};  // PixelType order: f32, f16, u8, u16
    py::dict d;
    d["shape"] = py::make_tuple(height_, width_, channels_);
    d["typestr"] = typestr[static_cast<int>(type_)];
    d["data"] = py::make_tuple(ptr(), false);
    d["strides"] = py::none();
    d["version"] = 3;
    d["stream"] = stream_ ? py::int_(stream_) : py::int_(1);  // 1: the legacy default stream
    return d;
  }

  // DLPack export: the consumer's stream waits for the one the image was mapped on.
  static py::capsule dlpack(py::object self, py::object consumer_stream) {
    DeviceBuffer& b = self.cast<DeviceBuffer&>();
#if TONEKIT_HAS_CUDA
    if (!consumer_stream.is_none()) {
      const auto consumer = consumer_stream.cast<std::uintptr_t>();
      if (consumer != b.stream_) {
        check(on_device(b.device_, [&]() -> Status {
          cudaEvent_t done;
          if (Status s = cuda_status(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate"); !s.ok())
            return s;
          Status s = cuda_status(cudaEventRecord(done, reinterpret_cast<cudaStream_t>(b.stream_)), "cudaEventRecord");
          if (s.ok()) s = cuda_status(cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(consumer), done, 0),
                                      "cudaStreamWaitEvent");
          cudaEventDestroy(done);
          return s;
        }));
      }
    }
#else
    (void)consumer_stream;
#endif
    struct Export {
      DLManagedTensor managed{};
      std::int64_t shape[3];
      PyObject* owner;
    };
    auto* e = new Export;
    e->shape[0] = b.height_;
    e->shape[1] = b.width_;
    e->shape[2] = b.channels_;
    e->owner = self.release().ptr();  // the export keeps the buffer alive
    static const DLDataType types[] = {{kDLFloat, 32, 1}, {kDLFloat, 16, 1}, {kDLUInt, 8, 1}, {kDLUInt, 16, 1}};
    e->managed.dl_tensor = DLTensor{b.ptr_, DLDevice{kDLCUDA, b.device_}, 3, types[static_cast<int>(b.type_)], e->shape,
                                    nullptr, 0};
    e->managed.manager_ctx = e;
    e->managed.deleter = [](DLManagedTensor* m) {
      auto* ex = static_cast<Export*>(m->manager_ctx);
      {
        py::gil_scoped_acquire gil;
        Py_XDECREF(ex->owner);
      }
      delete ex;
    };
    return py::capsule(&e->managed, "dltensor", [](PyObject* cap) {
      // Never consumed: the capsule still owns the export.
      if (PyCapsule_IsValid(cap, "dltensor")) {
        auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
        if (m && m->deleter) m->deleter(m);
      }
    });
  }

 private:
  void* ptr_ = nullptr;
  int device_, height_, width_, channels_;
  PixelType type_;
  std::uintptr_t stream_ = 0;
};

// ---- sequences on the device ----

// One ToneMapper with temporal adaptation, made for the first frame and remade (the state carried
// over) when the frame's size, layout, output or stream changes.
class DeviceSequence {
 public:
  DeviceSequence(const std::string& op, const py::dict& settings, const py::dict& temporal)
      : params_(params_from(op, settings)), temporal_(temporal_from(temporal)) {}

  void map(const DeviceImage& input, std::uintptr_t out_ptr, std::size_t out_stride, const std::string& out_dtype,
           int out_channels, std::uintptr_t stream, double dt) {
    DeviceImage in = input;
    if (in.device < 0) in.device = device_of(in.ptr);
    ToneMapperConfig cfg = config_for(in, params_, parse_output_dtype(out_dtype), out_channels, "ToneMapper.map");
    cfg.temporal = true;
    cfg.temporal_params = temporal_;
    py::gil_scoped_release unlocked;
    check(on_device(in.device, [&]() -> Status {
      const auto key = std::make_tuple(cfg.device, cfg.width, cfg.height, static_cast<int>(cfg.input),
                                       static_cast<int>(cfg.output.type), cfg.output.channels, stream);
      if (!mapper_ || key != key_) {
        TemporalState carried = state_;
        if (mapper_)
          if (Status s = mapper_->read_temporal_state(carried); !s.ok()) return s;
        auto created = DeviceMapper::create(cfg);
        if (!created.ok()) return created.status();
        mapper_ = std::move(*created);
        key_ = key;
        if (carried.seeded)
          if (Status s = mapper_->seed_temporal(carried); !s.ok()) return s;
      }
      return mapper_->process(reinterpret_cast<const void*>(in.ptr), in.row_stride, reinterpret_cast<void*>(out_ptr),
                              out_stride, reinterpret_cast<CUstream_st*>(stream), dt);
    }));
  }
  void set_params(const std::string& op, const py::dict& settings) {
    params_ = params_from(op, settings);
    if (mapper_) {
      py::gil_scoped_release unlocked;
      check(on_device(std::get<0>(key_), [&] { return mapper_->set_params(params_); }));
    }
  }
  // The state on the device (waits for the last frame), or the one kept for the next mapper.
  py::dict state() {
    TemporalState s = state_;
    if (mapper_) {
      py::gil_scoped_release unlocked;
      check(on_device(std::get<0>(key_), [&] { return mapper_->read_temporal_state(s); }));
    }
    return state_dict(s);
  }
  void set_state(const py::dict& d) {
    state_ = state_from(d);
    if (mapper_) check(on_device(std::get<0>(key_), [&] { return mapper_->seed_temporal(state_); }));
  }
  void reset() {
    state_ = TemporalState{};
    if (mapper_) check(on_device(std::get<0>(key_), [&] { return mapper_->reset_temporal(); }));
  }
  bool active() const { return mapper_ != nullptr; }

 private:
  Params params_;
  TemporalParams temporal_;
  TemporalState state_{};
  std::unique_ptr<DeviceMapper> mapper_;
  std::tuple<int, int, int, int, int, int, std::uintptr_t> key_{};
};

DeviceImage device_image(std::uintptr_t ptr, int height, int width, int channels, std::size_t row_stride,
                         const std::string& dtype, int device) {
  return DeviceImage{ptr, height, width, channels, row_stride, dtype, device};
}

}  // namespace

void register_device(py::module_& m) {
  m.def("map_device",
        [](std::uintptr_t ptr, int height, int width, int channels, std::size_t row_stride, const std::string& dtype,
           int device, std::uintptr_t out_ptr, std::size_t out_stride, const std::string& out_dtype, int out_channels,
           std::uintptr_t stream, const std::string& op, const py::dict& settings) {
          map_device(device_image(ptr, height, width, channels, row_stride, dtype, device), out_ptr, out_stride,
                     out_dtype, out_channels, stream, op, settings);
        });
  // The benchmark's C++ figure: `repeats` frames through the same cached mapper, seconds per frame.
  m.def("_time_device_api",
        [](std::uintptr_t ptr, int height, int width, int channels, std::size_t row_stride, const std::string& dtype,
           int device, std::uintptr_t out_ptr, std::size_t out_stride, const std::string& out_dtype, int out_channels,
           std::uintptr_t stream, const std::string& op, const py::dict& settings, int repeats) {
          return map_device(device_image(ptr, height, width, channels, row_stride, dtype, device), out_ptr, out_stride,
                            out_dtype, out_channels, stream, op, settings, std::max(2, repeats));
        });
  m.def("device_of", &device_of);
  m.def("release_device_mappers", [] {
    std::lock_guard lock(g_cache_mutex);
    g_cache.clear();
  });
  py::class_<DLView>(m, "DLView")
      .def(py::init<py::capsule>())
      .def_property_readonly("ptr", &DLView::ptr)
      .def_property_readonly("shape", &DLView::shape)
      .def_property_readonly("strides", &DLView::strides)
      .def_property_readonly("dtype", &DLView::dtype)
      .def_property_readonly("device_type", &DLView::device_type)
      .def_property_readonly("device_id", &DLView::device_id);
  py::class_<DeviceBuffer>(m, "DeviceBuffer")
      .def(py::init<int, int, int, int, const std::string&>())
      .def_property_readonly("ptr", &DeviceBuffer::ptr)
      .def_property_readonly("row_bytes", &DeviceBuffer::row_bytes)
      .def_property_readonly("__cuda_array_interface__", &DeviceBuffer::cuda_array_interface)
      .def("_set_stream", &DeviceBuffer::set_stream)
      .def("__dlpack__", &DeviceBuffer::dlpack, py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const DeviceBuffer& b) { return py::make_tuple(static_cast<int>(kDLCUDA), b.device()); });
  py::class_<DeviceSequence>(m, "DeviceSequence")
      .def(py::init<const std::string&, const py::dict&, const py::dict&>())
      .def("map",
           [](DeviceSequence& s, std::uintptr_t ptr, int height, int width, int channels, std::size_t row_stride,
              const std::string& dtype, int device, std::uintptr_t out_ptr, std::size_t out_stride,
              const std::string& out_dtype, int out_channels, std::uintptr_t stream, double dt) {
             s.map(device_image(ptr, height, width, channels, row_stride, dtype, device), out_ptr, out_stride, out_dtype,
                   out_channels, stream, dt);
           })
      .def("set_params", &DeviceSequence::set_params)
      .def("state", &DeviceSequence::state)
      .def("set_state", &DeviceSequence::set_state)
      .def("reset", &DeviceSequence::reset)
      .def_property_readonly("active", &DeviceSequence::active);
}

}  // namespace tonekit::python
