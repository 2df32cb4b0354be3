// MultiGpuToneMapper (include/tonekit/multi_gpu.hpp): a ToneMapper per band, each a FramePart
// whose StatsExchange is an NCCL all-reduce on that GPU's communicator. One host thread per GPU
// (NCCL's one-thread-per-rank model: each thread enqueues its band's whole frame, all-reduce
// included, on its own stream; a single thread would have to split every frame at each exchange).
// NCCL is opened at run time (dlopen libnccl.so.2, as blur/fft_blur.cu opens cuFFT): no link
// dependency, and a clear `unsupported` where it is missing. Built when nccl.h is found
// (src/cuda/CMakeLists.txt); api/multi_gpu_absent.cpp otherwise.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "cuda/check.hpp"
#include "cuda/tuning.hpp"
#include "tonekit/multi_gpu.hpp"

#include <nccl.h>

namespace tonekit {

namespace {

// The few NCCL entry points used, from libnccl.so.2.
struct NcclApi {
  ncclResult_t (*comm_init_all)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*comm_destroy)(ncclComm_t) = nullptr;
  ncclResult_t (*comm_abort)(ncclComm_t) = nullptr;
  ncclResult_t (*all_reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*group_start)() = nullptr;
  ncclResult_t (*group_end)() = nullptr;
  const char* (*error_string)(ncclResult_t) = nullptr;
  ncclResult_t (*get_version)(int*) = nullptr;
  std::string why;  // empty when loaded
};

const NcclApi& nccl() {
  static const NcclApi api = [] {
    NcclApi a;
    void* lib = nullptr;
    for (const char* name : {"libnccl.so.2", "libnccl.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
      a.why = "NCCL (libnccl.so.2) not found on the library path";
      return a;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn && a.why.empty()) a.why = std::string("NCCL lacks ") + name;
    };
    sym(a.comm_init_all, "ncclCommInitAll");
    sym(a.comm_destroy, "ncclCommDestroy");
    sym(a.comm_abort, "ncclCommAbort");
    sym(a.all_reduce, "ncclAllReduce");
    sym(a.broadcast, "ncclBroadcast");
    sym(a.group_start, "ncclGroupStart");
    sym(a.group_end, "ncclGroupEnd");
    sym(a.error_string, "ncclGetErrorString");
    sym(a.get_version, "ncclGetVersion");
    return a;
  }();
  return api;
}

Status nccl_status(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return {};
  return Status(StatusCode::runtime_error, std::string("NCCL ") + what + ": " + nccl().error_string(r));
}
#define TK_NCCL_CHECK(expr, what)                                       \
  do {                                                                  \
    if (Status s_ = nccl_status((expr), what); !s_.ok()) return s_;     \
  } while (0)

// A band's exchange: the words all-reduced over every band's GPU (sums, then maxima), one
// grouped NCCL launch on the band's stream; events around it on the first band when timed.
class NcclExchange final : public StatsExchange {
 public:
  ncclComm_t comm = nullptr;
  cudaEvent_t before = nullptr, after = nullptr;  // first band, timings on
  Status combine(unsigned long long* sums, std::size_t sum_count, unsigned* maxima, std::size_t max_count,
                 CUstream_st* stream) override {
    const NcclApi& api = nccl();
    if (before && !recorded) TK_CUDA_CHECK(cudaEventRecord(before, stream));
    TK_NCCL_CHECK(api.group_start(), "group start");
    if (sum_count) TK_NCCL_CHECK(api.all_reduce(sums, sums, sum_count, ncclUint64, ncclSum, comm, stream), "all-reduce (sum)");
    if (max_count)
      TK_NCCL_CHECK(api.all_reduce(maxima, maxima, max_count, ncclUint32, ncclMax, comm, stream), "all-reduce (max)");
    TK_NCCL_CHECK(api.group_end(), "group end");
    if (after) TK_CUDA_CHECK(cudaEventRecord(after, stream));
    recorded = true;
    return {};
  }
  // Glare's row gathers: one broadcast per band (rank r sends the rows it owns, in place), grouped;
  // every rank computes every band's rows by the same rule (owned_array_rows).
  Status gather_rows(void* rows, std::size_t row_bytes, int row_count, int shift, int offset,
                     CUstream_st* stream) override {
    const NcclApi& api = nccl();
    if (before && !recorded) TK_CUDA_CHECK(cudaEventRecord(before, stream));
    TK_NCCL_CHECK(api.group_start(), "group start");
    for (std::size_t r = 0; r < owners.size(); ++r) {
      const auto [first, end] = owned_array_rows(owners[r].first, owners[r].second, frame_height, shift, offset, row_count);
      if (end <= first) continue;
      unsigned char* at = static_cast<unsigned char*>(rows) + static_cast<std::size_t>(first) * row_bytes;
      TK_NCCL_CHECK(api.broadcast(at, at, static_cast<std::size_t>(end - first) * row_bytes, ncclUint8, static_cast<int>(r),
                                  comm, stream),
                    "broadcast (row gather)");
    }
    TK_NCCL_CHECK(api.group_end(), "group end");
    if (after) TK_CUDA_CHECK(cudaEventRecord(after, stream));
    recorded = true;
    return {};
  }
  bool recorded = false;  // the frame's first exchange started the timed span
  std::vector<std::pair<int, int>> owners;  // every band's own frame rows, by rank
  int frame_height = 0;
};

}  // namespace

struct MultiGpuToneMapper::Impl {
  struct Band {
    FrameBand plan;
    std::unique_ptr<ToneMapper> mapper;
    NcclExchange exchange;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, end = nullptr;
    void* in = nullptr;   // process_host staging (device), allocated on first use
    void* out = nullptr;
  };
  MultiGpuConfig cfg;
  int context = 0;  // planned context rows
  std::vector<FrameBand> plans;
  std::vector<Band> bands;
  bool timings = false, ran = false, broken = false;

  // One worker thread per band: run(job) hands job(i) to worker i and waits for all of them.
  std::vector<std::thread> workers;
  std::mutex mu;
  std::condition_variable go, done;
  std::function<Status(int)> job;
  std::vector<Status> results;
  unsigned long long generation = 0;
  int pending = 0;
  bool quit = false;

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mu);
      quit = true;
    }
    go.notify_all();
    for (std::thread& t : workers) t.join();
    // After a failed frame the other GPUs may wait in an all-reduce forever: abort the
    // communicators (which ends their kernels) before waiting for the streams.
    if (broken)
      for (Band& b : bands)
        if (b.exchange.comm) {
          nccl().comm_abort(b.exchange.comm);
          b.exchange.comm = nullptr;
        }
    for (Band& b : bands) {
      cudaSetDevice(b.plan.device);
      if (b.stream) cudaStreamSynchronize(b.stream);
      b.mapper.reset();
      cudaFree(b.in);
      cudaFree(b.out);
      for (cudaEvent_t e : {b.start, b.end, b.exchange.before, b.exchange.after})
        if (e) cudaEventDestroy(e);
      if (b.stream) cudaStreamDestroy(b.stream);
      if (b.exchange.comm) nccl().comm_destroy(b.exchange.comm);
    }
  }

  void worker(int i) {
    cudaSetDevice(bands[static_cast<std::size_t>(i)].plan.device);
    unsigned long long seen = 0;
    for (;;) {
      std::function<Status(int)> f;
      {
        std::unique_lock<std::mutex> lock(mu);
        go.wait(lock, [&] { return quit || generation != seen; });
        if (quit) return;
        seen = generation;
        f = job;
      }
      Status s = f(i);
      {
        std::lock_guard<std::mutex> lock(mu);
        results[static_cast<std::size_t>(i)] = s;
        if (--pending == 0) done.notify_one();
      }
    }
  }

  Status run(std::function<Status(int)> f) {
    if (broken)
      return Status(StatusCode::runtime_error, "MultiGpuToneMapper: an earlier frame failed on one GPU (its all-reduce peers were "
                            "aborted): create another");
    {
      std::lock_guard<std::mutex> lock(mu);
      job = std::move(f);
      pending = static_cast<int>(bands.size());
      results.assign(bands.size(), Status{});
      ++generation;
    }
    go.notify_all();
    std::unique_lock<std::mutex> lock(mu);
    done.wait(lock, [&] { return pending == 0; });
    for (std::size_t i = 0; i < results.size(); ++i)
      if (!results[i].ok()) {
        broken = true;  // the other GPUs may wait in an all-reduce this one never joined
        return Status(results[i].code(), "GPU " + std::to_string(bands[i].plan.device) + ": " + results[i].message());
      }
    return {};
  }

  std::size_t in_row_bytes() const { return static_cast<std::size_t>(cfg.frame.width) * input_pixel_bytes(cfg.frame.input); }
  std::size_t out_row_bytes() const {
    return static_cast<std::size_t>(cfg.frame.width) * cfg.frame.output.channels * bytes_per_channel(cfg.frame.output.type);
  }

  // Band i's frame on its stream, with the first band's events around it when timed.
  Status band_frame(int i, const void* in, std::size_t in_stride, void* out, std::size_t out_stride, double dt) {
    Band& b = bands[static_cast<std::size_t>(i)];
    b.exchange.recorded = false;
    if (timings && i == 0) TK_CUDA_CHECK(cudaEventRecord(b.start, b.stream));
    if (Status s = b.mapper->process(in, in_stride, out, out_stride, b.stream, dt); !s.ok()) return s;
    if (timings && i == 0) TK_CUDA_CHECK(cudaEventRecord(b.end, b.stream));
    return {};
  }

  Status init() {
    const NcclApi& api = nccl();
    if (!api.why.empty()) return unsupported("MultiGpuToneMapper: " + api.why);
    const ToneMapperConfig& f = cfg.frame;
    if (f.part.active()) return invalid_argument("MultiGpuToneMapper: the frame config's `part` is set per band");
    std::set<int> distinct(cfg.devices.begin(), cfg.devices.end());
    if (distinct.size() != cfg.devices.size())
      return invalid_argument("MultiGpuToneMapper: each device may take one band (NCCL: one rank per GPU)");
    int count = 0;
    TK_CUDA_CHECK(cudaGetDeviceCount(&count));
    for (int d : cfg.devices)
      if (d < 0 || d >= count)
        return invalid_argument("MultiGpuToneMapper: no device " + std::to_string(d) + " (" + std::to_string(count) +
                                " present)");
    const Result<int> glare_rows = glare_context_rows(f.glare, f.width, f.height);
    if (!glare_rows.ok()) return Status(glare_rows.status().code(), "MultiGpuToneMapper: " + glare_rows.status().message());
    const int needed = std::max(operator_context_rows(f.params), glare_rows.value());
    context = cfg.context_rows < 0 ? needed : cfg.context_rows;
    if (context < needed)
      return invalid_argument("MultiGpuToneMapper: '" + std::string(f.params.op().id) + "' (with its glare) reads " +
                              std::to_string(needed) + " context rows, more than the " + std::to_string(context) + " asked for");
    // Bands start on multiples of reinhard-sat's tile height, so its tile-local tables see the
    // single GPU's pixels.
    auto planned = plan_bands(f.height, cfg.devices, context, cuda::Tuning{}.tile_height);
    if (!planned.ok()) return planned.status();
    plans = planned.value();
    // Keep NVLink multicast (NVLS) off unless the caller chose otherwise: it can take a shared
    // host's GPUs out of service (device README), and a few words per frame gain nothing from it.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    std::vector<ncclComm_t> comms(plans.size());
    TK_NCCL_CHECK(api.comm_init_all(comms.data(), static_cast<int>(comms.size()), cfg.devices.data()), "init");
    bands.resize(plans.size());
    for (std::size_t i = 0; i < plans.size(); ++i) {
      bands[i].exchange.comm = comms[i];
      bands[i].exchange.frame_height = f.height;
      for (const FrameBand& p : plans) bands[i].exchange.owners.emplace_back(p.first_row, p.first_row + p.rows);
    }
    timings = f.timings;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      Band& b = bands[i];
      b.plan = plans[i];
      TK_CUDA_CHECK(cudaSetDevice(b.plan.device));
      TK_CUDA_CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
      TK_CUDA_CHECK(cudaEventCreate(&b.start));
      TK_CUDA_CHECK(cudaEventCreate(&b.end));
      if (i == 0) {
        TK_CUDA_CHECK(cudaEventCreate(&b.exchange.before));
        TK_CUDA_CHECK(cudaEventCreate(&b.exchange.after));
      }
      ToneMapperConfig c = f;
      c.device = b.plan.device;
      c.height = b.plan.input_rows();
      c.part.context_above = b.plan.context_above;
      c.part.context_below = b.plan.context_below;
      c.part.first_row = b.plan.first_row;
      c.part.exchange = &b.exchange;
      c.part.frame_height = f.height;
      auto m = ToneMapper::create(c);
      if (!m.ok()) return Status(m.status().code(), "GPU " + std::to_string(b.plan.device) + ": " + m.status().message());
      b.mapper = std::move(m.value());
    }
    results.resize(bands.size());
    for (std::size_t i = 0; i < bands.size(); ++i) workers.emplace_back([this, i] { worker(static_cast<int>(i)); });
    return {};
  }
};

MultiGpuToneMapper::MultiGpuToneMapper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MultiGpuToneMapper::~MultiGpuToneMapper() = default;

Result<std::unique_ptr<MultiGpuToneMapper>> MultiGpuToneMapper::create(const MultiGpuConfig& config) {
  if (config.devices.empty()) return invalid_argument("MultiGpuToneMapper: no device");
  auto impl = std::make_unique<Impl>();
  impl->cfg = config;
  if (Status s = impl->init(); !s.ok()) return s;
  return std::unique_ptr<MultiGpuToneMapper>(new MultiGpuToneMapper(std::move(impl)));
}

const std::vector<FrameBand>& MultiGpuToneMapper::bands() const { return impl_->plans; }

Status MultiGpuToneMapper::process(const std::vector<BandBuffers>& buffers, double dt) {
  Impl& m = *impl_;
  if (buffers.size() != m.bands.size())
    return invalid_argument("MultiGpuToneMapper::process: " + std::to_string(buffers.size()) + " band buffers for " +
                            std::to_string(m.bands.size()) + " bands");
  // Checked before any GPU starts: a band failing alone would leave the others in the all-reduce.
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const BandBuffers& b = buffers[i];
    if (!b.in || !b.out) return invalid_argument("MultiGpuToneMapper::process: band " + std::to_string(i) + "'s buffer is null");
    if ((b.in_stride && b.in_stride < m.in_row_bytes()) || (b.out_stride && b.out_stride < m.out_row_bytes()))
      return invalid_argument("MultiGpuToneMapper::process: band " + std::to_string(i) + "'s stride is smaller than a row");
    cudaPointerAttributes in{}, out{};
    TK_CUDA_CHECK(cudaPointerGetAttributes(&in, b.in));
    TK_CUDA_CHECK(cudaPointerGetAttributes(&out, b.out));
    const int d = m.bands[i].plan.device;
    if (in.type != cudaMemoryTypeDevice || in.device != d || out.type != cudaMemoryTypeDevice || out.device != d)
      return invalid_argument("MultiGpuToneMapper::process: band " + std::to_string(i) + "'s buffers are not in device " +
                              std::to_string(d) + "'s memory");
  }
  Status s = m.run([&](int i) {
    const BandBuffers& b = buffers[static_cast<std::size_t>(i)];
    return m.band_frame(i, b.in, b.in_stride, b.out, b.out_stride, dt);
  });
  if (s.ok()) m.ran = true;
  return s;
}

Status MultiGpuToneMapper::process_host(const void* in, std::size_t in_stride, void* out, std::size_t out_stride, double dt) {
  Impl& m = *impl_;
  if (!in || !out) return invalid_argument("MultiGpuToneMapper::process_host: null frame");
  const std::size_t in_row = m.in_row_bytes(), out_row = m.out_row_bytes();
  if (!in_stride) in_stride = in_row;
  if (!out_stride) out_stride = out_row;
  if (in_stride < in_row || out_stride < out_row)
    return invalid_argument("MultiGpuToneMapper::process_host: a stride is smaller than a row");
  for (Impl::Band& b : m.bands)
    if (!b.in) {
      TK_CUDA_CHECK(cudaSetDevice(b.plan.device));
      TK_CUDA_CHECK(cudaMalloc(&b.in, in_row * b.plan.input_rows()));
      TK_CUDA_CHECK(cudaMalloc(&b.out, out_row * b.plan.rows));
    }
  Status s = m.run([&](int i) -> Status {
    Impl::Band& b = m.bands[static_cast<std::size_t>(i)];
    const auto* src = static_cast<const unsigned char*>(in) + static_cast<std::size_t>(b.plan.input_first_row()) * in_stride;
    auto* dst = static_cast<unsigned char*>(out) + static_cast<std::size_t>(b.plan.first_row) * out_stride;
    TK_CUDA_CHECK(cudaMemcpy2DAsync(b.in, in_row, src, in_stride, in_row, b.plan.input_rows(), cudaMemcpyHostToDevice, b.stream));
    if (Status st = m.band_frame(i, b.in, 0, b.out, 0, dt); !st.ok()) return st;
    TK_CUDA_CHECK(cudaMemcpy2DAsync(dst, out_stride, b.out, out_row, out_row, b.plan.rows, cudaMemcpyDeviceToHost, b.stream));
    TK_CUDA_CHECK(cudaStreamSynchronize(b.stream));
    return {};
  });
  if (s.ok()) m.ran = true;
  return s;
}

Status MultiGpuToneMapper::synchronize() {
  for (Impl::Band& b : impl_->bands) {
    TK_CUDA_CHECK(cudaSetDevice(b.plan.device));
    TK_CUDA_CHECK(cudaStreamSynchronize(b.stream));
  }
  return {};
}

Status MultiGpuToneMapper::set_params(const Params& params) {
  Impl& m = *impl_;
  const int needed = operator_context_rows(params);
  if (needed > m.context)
    return invalid_argument("MultiGpuToneMapper::set_params: '" + std::string(params.op().id) + "' reads " +
                            std::to_string(needed) + " context rows, the bands have " + std::to_string(m.context) +
                            " (MultiGpuConfig::context_rows)");
  if (Status s = synchronize(); !s.ok()) return s;
  for (Impl::Band& b : m.bands) {
    TK_CUDA_CHECK(cudaSetDevice(b.plan.device));
    if (Status s = b.mapper->set_params(params); !s.ok()) return s;
  }
  m.cfg.frame.params = params;
  return {};
}

Status MultiGpuToneMapper::read_stats(FrameStats& stats, FrameStats* adapted) {
  Impl::Band& b = impl_->bands.front();
  TK_CUDA_CHECK(cudaSetDevice(b.plan.device));
  return b.mapper->read_stats(stats, adapted);
}

Status MultiGpuToneMapper::read_temporal_state(int band, TemporalState& state) {
  if (band < 0 || band >= static_cast<int>(impl_->bands.size()))
    return invalid_argument("MultiGpuToneMapper::read_temporal_state: no band " + std::to_string(band));
  Impl::Band& b = impl_->bands[static_cast<std::size_t>(band)];
  TK_CUDA_CHECK(cudaSetDevice(b.plan.device));
  return b.mapper->read_temporal_state(state);
}

Status MultiGpuToneMapper::read_timings(MultiGpuTimings& t) {
  Impl& m = *impl_;
  if (!m.timings || !m.ran) return invalid_argument("MultiGpuToneMapper::read_timings: timings off or no frame processed");
  Impl::Band& b = m.bands.front();
  TK_CUDA_CHECK(cudaSetDevice(b.plan.device));
  TK_CUDA_CHECK(cudaEventSynchronize(b.end));
  float total = 0.0f, exchange = 0.0f;
  TK_CUDA_CHECK(cudaEventElapsedTime(&total, b.start, b.end));
  TK_CUDA_CHECK(cudaEventElapsedTime(&exchange, b.exchange.before, b.exchange.after));
  t.total_ms = total;
  t.exchange_ms = exchange;
  return {};
}

}  // namespace tonekit
