// Four stages over a bounded set of images: decoder threads read files (OpenEXR adds its own
// thread pool inside each decode), this thread maps them in input order (the CPU backend spreads
// each image over all cores; CUDA sees a single thread, so one context), encoder threads encode
// several images at once to temporary files beside their outputs (the PNG encoder also deflates
// strips on all cores), and one committer renames them into place in input order. A slot is
// taken, in input order, before a file is read and given back once its output is committed, so
// at most max_in_flight images exist whatever the batch length, and the file the mapper waits
// for always holds a slot (no deadlock).
#include "batch_pipeline.hpp"

#include "tonekit/cpu_tone_mapper.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>


namespace tonekit::cli {
namespace {

namespace fs = std::filesystem;

enum class Stage { waiting, decoded, mapped, encoded };

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Seconds spent in one stage, summed over its threads (for BatchResult's summary).
using StageClock = std::atomic<double>;
// Runs one stage's work for one file; an exception (an allocation failing) becomes that file's
// Status instead of escaping the thread (std::terminate).
template <class F>
Status guarded(F&& work) {
  try {
    return work();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, "out of memory");
  } catch (const std::exception& e) {
    return Status(StatusCode::runtime_error, e.what());
  }
}

struct Item {
  Stage stage = Stage::waiting;
  Status status;
  Image image;
  io::HalfImage half;  // a half RGB(A) EXR kept half (keeps_half), else empty and `image` holds it
  OutputSpec spec;
  OutputImage out;
  std::string encoded_path;  // the encoded file, under a temporary name until its turn comes
  std::string warning;
};

// Where an encoder leaves an output until the committer renames it into place (same folder, so
// the rename is atomic; the name cannot be another job's output).
std::string part_path(const std::string& output) { return output + ".tonekit-part-" + std::to_string(::getpid()); }

class Pipeline {
 public:
  Pipeline(const std::vector<BatchJob>& jobs, const BatchSettings& settings)
      : jobs_(jobs), settings_(settings), items_(jobs.size()) {
    // 4 images keep two decoders, the mapper and the writer busy on 2 cores (20 x 4K in 4.9 s,
    // CPU-bound). With more cores each stage is shorter and one late file stalls the rest, so
    // decoders and slots grow with the cores (on 16 cores more than these did not help: docs/performance.md, Stills).
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (settings_.decode_workers <= 0) settings_.decode_workers = std::clamp(cores / 4, 2, 4);
    if (settings_.encode_workers <= 0) settings_.encode_workers = std::clamp(cores / 6, 1, 4);
    if (settings_.max_in_flight <= 0)
      settings_.max_in_flight = std::max(std::clamp(2 + cores / 4, 4, 8), settings_.decode_workers + settings_.encode_workers + 2);
    // Several GPUs: two images per GPU in flight besides the one being written and decoded.
    const int lanes = static_cast<int>(settings_.devices.size());
    if (lanes > 1) settings_.max_in_flight = std::max(settings_.max_in_flight, 2 * lanes + 2);
  }

  BatchResult run() {
    const auto t0 = Clock::now();
    // CUDA's driver and context start while the first files decode, not at the first tone_map
    // call (cmd_map's begin_backend has usually launched it already). A failed start shows, with
    // its message, at that first call.
    if (settings_.backend != Backend::cpu) start_cuda_in_background();
    std::vector<std::jthread> decoders;
    const int workers = std::clamp(settings_.decode_workers, 1, std::max(1, settings_.max_in_flight - 1));
    for (int i = 0; i < workers; ++i) decoders.emplace_back([this] { decode_loop(); });
    std::vector<std::jthread> encoders;
    for (int i = 0; i < settings_.encode_workers; ++i) encoders.emplace_back([this] { encode_loop(); });
    std::jthread writer([this] { write_loop(); });
    const std::size_t lanes = std::max<std::size_t>(1, settings_.devices.size());
    {
      std::vector<std::jthread> mappers;
      for (std::size_t lane = 1; lane < lanes; ++lane) mappers.emplace_back([this, lane, lanes] { map_loop(lane, lanes); });
      map_loop(0, lanes);
    }
    writer.join();
    result_.seconds = seconds_since(t0);
    result_.decode_seconds = decode_clock_.load();
    result_.map_seconds = map_clock_.load();
    result_.write_seconds = write_clock_.load();
    result_.decoders = workers;
    result_.encoders = settings_.encode_workers;
    return result_;
  }

 private:
  // Buffers of images already passed on, reused by the next ones of the same size: a 4K half
  // input (66 MB) and its output (25 MB) were allocated, zero-filled and faulted in afresh for
  // each image (the output's 5 ms of the map stage's 19 ms on the H100 host). At most as many
  // as were ever in flight at once, so memory stays bounded as before.
  template <class T>
  T take(std::vector<T>& pool) {
    std::lock_guard lock(pool_mutex_);
    if (pool.empty()) return T();
    T t = std::move(pool.back());
    pool.pop_back();
    return t;
  }
  static bool holds_memory(const OutputImage& o) { return o.bytes.capacity() > 0; }
  static bool holds_memory(const io::HalfImage& h) { return h.pixels.bytes.capacity() > 0; }
  template <class T>
  void give_back(std::vector<T>& pool, T&& t) {
    T local = std::move(t);
    t = T();
    if (!holds_memory(local)) return;  // a failed image's: nothing to reuse
    std::lock_guard lock(pool_mutex_);
    if (pool.size() < static_cast<std::size_t>(settings_.max_in_flight)) pool.push_back(std::move(local));
  }

  Item& wait_for(std::size_t i, Stage stage) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return items_[i] && items_[i]->stage == stage; });
    return *items_[i];
  }

  void advance(Item& item, Stage stage) {
    {
      std::lock_guard lock(mutex_);
      item.stage = stage;
    }
    changed_.notify_all();
  }

  // Half RGB(A) EXRs stay half when nothing needs a float image of the scene (glare, night
  // vision and --auto work on float images): into the GPU path, uploaded as half RGBA (8 bytes a
  // pixel instead of 12, no widening on the CPU); into the CPU map at the levels with F16C (v3,
  // v4), which widens 8 halves an instruction as it loads them: half the fresh pages and no
  // widening pass in the reader. At the baseline level the map would widen each pixel twice in
  // scalar code (statistics and map), which measured slower than the reader widening once (4K, 2
  // cores: 0.47 against 0.38 user seconds). The same bytes out either way.
  bool keeps_half(const std::string& path) const {
    if (settings_.glare.strength > 0 || settings_.night.on || settings_.choose_params || settings_.input_bt2020) return false;
    const bool on_cpu = settings_.backend == Backend::cpu || (settings_.backend == Backend::automatic && !cuda_available());
    if (on_cpu && std::strcmp(cpu_isa_level(), "baseline") == 0) return false;
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".exr";
  }

  void decode_loop() {
    for (;;) {
      std::size_t i;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return in_flight_ < settings_.max_in_flight || next_decode_ >= jobs_.size(); });
        if (next_decode_ >= jobs_.size()) return;
        i = next_decode_++;
        ++in_flight_;
      }
      auto item = std::make_unique<Item>();
      const auto t = Clock::now();
      item->status = guarded([&] {
        if (keeps_half(jobs_[i].input)) {
          item->half = take(free_halves_);  // a buffer of an earlier image, refilled in place
          const Status half = io::read_half_rgba(jobs_[i].input, item->half);
          if (half.ok()) return Status::ok_status();
          if (half.code() != StatusCode::unsupported) return half;
        }
        auto image = io::read_image(jobs_[i].input);
        if (!image.ok()) return image.status();
        item->image = std::move(*image);
        if (settings_.input_bt2020) return convert_bt2020_to_bt709(item->image, settings_.gamut);
        return Status::ok_status();
      });
      decode_clock_ += seconds_since(t);
      item->stage = Stage::decoded;
      {
        std::lock_guard lock(mutex_);
        items_[i] = std::move(item);
      }
      changed_.notify_all();
    }
  }

  // Maps images lane, lane + lanes, ... in order: one lane per --devices entry, on its device.
  // `auto`: the GPU when CUDA's start-up (launched in the background, running while the first
  // files decode) finds a device, else the CPU. Not a race against the start-up: the same
  // command must give the same bytes on the same machine (the backends agree within 1 LSB,
  // not bit for bit).
  Backend backend_for_image() const {
    if (settings_.backend != Backend::automatic) return settings_.backend;
    return cuda_available() ? Backend::cuda : Backend::cpu;
  }

  void map_loop(std::size_t lane, std::size_t lanes) {
    Status device;
    if (!settings_.devices.empty()) device = use_cuda_device(settings_.devices[lane]);
    BatchSettings settings = settings_;
    for (std::size_t i = lane; i < jobs_.size(); i += lanes) {
      Item& item = wait_for(i, Stage::decoded);
      const auto t = Clock::now();
      settings.backend = backend_for_image();
      if (item.status.ok() && !device.ok()) item.status = device;
      if (item.status.ok()) {
        const bool half = !item.half.pixels.bytes.empty();
        auto spec = output_spec_for(jobs_[i].output, settings_.bits, half ? item.half.file_channels : item.image.channels);
        if (!spec.ok()) {
          item.status = spec.status();
        } else {
          item.spec = *spec;
          item.spec.jpeg_quality = settings_.jpeg_quality;
          item.spec.png_level = settings_.png_level;
          item.out = take(free_outputs_);  // tone_map refills a buffer of an earlier image in place
          FrameStats stats;
          item.status = guarded([&] {
            if (half) return tone_map(item.half.pixels.view(), *settings.params, item.spec.format, settings.backend, item.out, &stats);
            return map_one_image(item.image, settings, item.spec, item.out, stats, jobs_[i].input);
          });
          // Sanitised pixels are reported, not fatal (README "Bad pixels").
          if (item.status.ok() && (stats.nan_count || stats.inf_count || stats.negative_count)) {
            char line[160];
            std::snprintf(line, sizeof line, "sanitised %llu NaN, %llu Inf and %llu negative pixels",
                          static_cast<unsigned long long>(stats.nan_count),
                          static_cast<unsigned long long>(stats.inf_count),
                          static_cast<unsigned long long>(stats.negative_count));
            item.warning = jobs_[i].input + ": " + line;
          }
        }
      }
      item.image = Image();  // the input is no longer needed: free it before the write
      give_back(free_halves_, std::move(item.half));
      map_clock_ += seconds_since(t);
      advance(item, Stage::mapped);
    }
  }

  // Encoders take the mapped images in input order, several at once (each PNG also deflates
  // strips on every core), and write each to a temporary name beside its output.
  void encode_loop() {
    for (;;) {
      std::size_t i;
      {
        std::lock_guard lock(mutex_);
        if (next_encode_ >= jobs_.size()) return;
        i = next_encode_++;
      }
      const BatchJob& job = jobs_[i];
      Item& item = wait_for(i, Stage::mapped);
      const auto t = Clock::now();
      if (item.status.ok() && settings_.create_folders) {
        std::error_code ec;
        const fs::path parent = fs::path(job.output).parent_path();
        if (!parent.empty() && !fs::exists(parent, ec)) fs::create_directories(parent, ec);
      }
      if (item.status.ok()) {
        const std::string part = part_path(job.output);
        item.status = guarded([&] { return write_output(part, item.spec, item.out); });
        if (item.status.ok()) {
          item.encoded_path = part;
        } else {  // say which output failed, not its temporary name
          std::string message = item.status.message();
          for (std::size_t at; (at = message.find(part)) != std::string::npos;) message.replace(at, part.size(), job.output);
          item.status = Status{item.status.code(), message};
        }
      }
      give_back(free_outputs_, std::move(item.out));
      write_clock_ += seconds_since(t);
      advance(item, Stage::encoded);
    }
  }

  // The committer: in input order, renames each encoded output into place (so outputs appear in
  // order, each whole) and reports each failure in its place.
  void write_loop() {
    Progress progress(settings_.progress ? static_cast<int>(jobs_.size()) : 0);
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      const BatchJob& job = jobs_[i];
      progress.update(static_cast<int>(i), file_stem(job.input));
      Item& item = wait_for(i, Stage::encoded);
      Status status = item.status;
      if (status.ok() && std::rename(item.encoded_path.c_str(), job.output.c_str()) != 0) {
        status = io_error(job.output + ": cannot rename " + item.encoded_path + " to it: " + std::strerror(errno));
        std::remove(item.encoded_path.c_str());
      }
      if (!item.warning.empty()) {
        progress.finish();
        warn(item.warning);
      }
      if (status.ok()) {
        ++result_.written;
      } else {
        progress.finish();
        if (status.message().find(job.input) == std::string::npos &&
            status.message().find(job.output) == std::string::npos)
          status = Status{status.code(), job.input + ": " + status.message()};
        ++result_.failed;
        result_.exit_code = std::max(result_.exit_code, report(status));
      }
      {
        std::lock_guard lock(mutex_);
        items_[i].reset();
        --in_flight_;
      }
      changed_.notify_all();
    }
    progress.update(static_cast<int>(jobs_.size()), "done");
    progress.finish();
  }

  const std::vector<BatchJob>& jobs_;
  BatchSettings settings_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::mutex pool_mutex_;  // guards the two pools below
  std::vector<io::HalfImage> free_halves_;
  std::vector<OutputImage> free_outputs_;
  std::vector<std::unique_ptr<Item>> items_;  // guarded by mutex_ (the pointers; each Item by its stage)
  std::size_t next_decode_ = 0;
  std::size_t next_encode_ = 0;
  int in_flight_ = 0;
  BatchResult result_;  // the writer's
  StageClock decode_clock_{0.0}, map_clock_{0.0}, write_clock_{0.0};
};

}  // namespace

Status map_one_image(Image& image, const BatchSettings& settings, const OutputSpec& spec, OutputImage& out,
                     FrameStats& stats, const std::string& input) {
  // Glare/bloom is added to the scene before tone mapping, on the mapping's backend
  // (src/cpu/blur/glare.cpp, or src/cuda/blur/glare_gpu.cu; the image makes a round trip to the
  // device for it: the mapping uploads it again).
  if (settings.glare.strength > 0) {
    Status status = apply_glare(image, settings.glare, settings.backend);
    if (!status.ok()) return status;
  }
  // Night vision after the glare (the eye's scatter reaches the retina first), on the same
  // backend (src/cpu/blur/night.cpp, or src/cuda/blur/night_gpu.cu, a round trip as glare's).
  if (settings.night.on) {
    Status status = apply_night(image, settings.night, settings.backend);
    if (!status.ok()) return status;
  }
  if (settings.choose_params) {
    Params chosen = *settings.params;
    if (Status status = settings.choose_params(image, chosen, input); !status.ok()) return status;
    return tone_map(image, chosen, spec.format, settings.backend, out, &stats);
  }
  return tone_map(image, *settings.params, spec.format, settings.backend, out, &stats);
}

BatchResult run_batch(const std::vector<BatchJob>& jobs, const BatchSettings& settings) {
  if (jobs.empty()) return {};
  Pipeline pipeline(jobs, settings);
  return pipeline.run();
}

}  // namespace tonekit::cli
