// tonekit._tonekit: the Python module's native part, on the public API only (include/tonekit).
// NumPy arrays are mapped where they lie when their layout allows (a row stride is all the host
// API needs), the result is the library's own output buffer handed to NumPy without a copy, and
// the GIL is released while the library works. The Python layer (python/tonekit/__init__.py)
// turns these calls into the package's API; the device path is device.cpp.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "tonekit/blur.hpp"
#if TONEKIT_PYTHON_IO
#include "tonekit/io.hpp"
#endif
#include "tonekit/operators.hpp"
#include "tonekit/quality.hpp"
#include "tonekit/synth.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"
#include "tonekit/version.hpp"

namespace tonekit::python {

namespace {

// One Python exception class per StatusCode, under tonekit.Error and the built-in exception a
// Python caller would catch for it.
std::array<PyObject*, 8> g_exceptions{};

void register_exceptions(py::module_& m) {
  auto make = [&](const char* name, py::handle bases, const char* doc) {
    const std::string full = std::string("tonekit.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(full.c_str(), doc, bases.ptr(), nullptr);
    if (!type) throw py::error_already_set();
    m.attr(name) = py::handle(type);  // the module keeps a reference; g_exceptions borrows it
    return type;
  };
  PyObject* base = make("Error", PyExc_Exception, "Every tonekit failure; the message is the library's one line.");
  auto with = [&](PyObject* builtin) { return py::make_tuple(py::handle(base), py::handle(builtin)); };
  g_exceptions[static_cast<int>(StatusCode::runtime_error)] =
      make("RuntimeFailure", with(PyExc_RuntimeError), "Something failed while running.");
  g_exceptions[static_cast<int>(StatusCode::invalid_argument)] = make(
      "InvalidArgument", with(PyExc_ValueError),
      "Bad parameter, unknown operator, out-of-range value, wrong shape or dtype.");
  g_exceptions[static_cast<int>(StatusCode::bad_input)] =
      make("BadInput", with(PyExc_ValueError), "Unreadable, truncated or corrupt file.");
  g_exceptions[static_cast<int>(StatusCode::io_error)] =
      make("IOFailure", with(PyExc_OSError), "The operating system refused (open, write, rename).");
  g_exceptions[static_cast<int>(StatusCode::unsupported)] =
      make("Unsupported", with(PyExc_ValueError), "Valid but not handled.");
  g_exceptions[static_cast<int>(StatusCode::no_device)] =
      make("NoDevice", with(PyExc_RuntimeError), "CUDA asked for, but no GPU or no CUDA in this build.");
  g_exceptions[static_cast<int>(StatusCode::out_of_memory)] =
      make("OutOfMemory", with(PyExc_MemoryError), "A host or device allocation failed.");
  g_exceptions[0] = base;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      PyErr_SetString(g_exceptions[static_cast<int>(e.status.code())], e.status.message().c_str());
    }
  });
}

// ---- arrays ----

py::dtype dtype_of(PixelType t) {
  switch (t) {
    case PixelType::u8: return py::dtype::of<std::uint8_t>();
    case PixelType::u16: return py::dtype::of<std::uint16_t>();
    case PixelType::f16: return py::dtype("float16");
    case PixelType::f32: return py::dtype::of<float>();
  }
  return py::dtype::of<float>();
}

bool is_float16(const py::dtype& d) { return d.kind() == 'f' && d.itemsize() == 2; }
bool is_float32(const py::dtype& d) { return d.kind() == 'f' && d.itemsize() == 4; }

std::string shape_text(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

// An owning array of `what` viewing its own buffer (no copy): the capsule deletes it.
template <class Owner>
py::array adopt(std::unique_ptr<Owner> owner, void* data, PixelType type, int height, int width, int channels) {
  const auto item = static_cast<py::ssize_t>(bytes_per_channel(type));
  std::vector<py::ssize_t> shape{height, width, channels};
  std::vector<py::ssize_t> strides{item * width * channels, item * channels, item};
  Owner* raw = owner.release();
  py::capsule base(raw, [](void* p) { delete static_cast<Owner*>(p); });
  return py::array(dtype_of(type), shape, strides, data, base);
}

// A view of a NumPy image (H x W x 3|4, float32 or float16) for the host API. The pixels are read
// where they lie when channels and pixels are packed and rows are a positive, aligned stride
// apart (a crop of a larger image included); any other layout, and half RGB (the host API reads
// half as RGBA only), is copied once. `keep` holds whatever the view points into.
struct HostImage {
  ImageView view;
  py::array keep;
  bool copied = false;
};

HostImage host_image(const py::handle& object, const char* who) {
  py::array a = py::array::ensure(object);
  if (!a) raise(invalid_argument(std::string(who) + ": expected a NumPy array (H x W x 3 or 4, float32 or float16)"));
  if (a.ndim() != 3 || (a.shape(2) != 3 && a.shape(2) != 4) || a.shape(0) < 1 || a.shape(1) < 1)
    raise(invalid_argument(std::string(who) + ": expected an H x W x 3 or H x W x 4 image, got shape " + shape_text(a)));
  const py::dtype dt = a.dtype();
  if (!is_float32(dt) && !is_float16(dt))
    raise(invalid_argument(std::string(who) + ": expected float32 or float16 pixels, got " +
                           dt.attr("name").cast<std::string>()));
  if (a.shape(0) > kMaxImageSide || a.shape(1) > kMaxImageSide || a.shape(0) * a.shape(1) > kMaxImagePixels)
    raise(invalid_argument(std::string(who) + ": image " + shape_text(a) + " is larger than " +
                           std::to_string(kMaxImageSide) + " a side or 2^28 pixels"));
  HostImage h;
  const int channels = static_cast<int>(a.shape(2));
  const py::ssize_t item = dt.itemsize();
  const bool packed_pixels = a.strides(2) == item && a.strides(1) == item * channels;
  const bool rows_ok = a.strides(0) >= item * channels * a.shape(1) && a.strides(0) % item == 0;
  const bool aligned = reinterpret_cast<std::uintptr_t>(a.data()) % static_cast<std::uintptr_t>(item) == 0;
  if (is_float16(dt) && channels == 3) {
    a = py::array(a.attr("astype")("float32", py::arg("order") = "C"));  // 'K' would keep a Fortran order
    h.copied = true;
  } else if (!(packed_pixels && rows_ok && aligned)) {
    a = py::module_::import("numpy").attr("ascontiguousarray")(a);
    h.copied = true;
  }
  h.view.data = const_cast<void*>(a.data());
  h.view.height = static_cast<int>(a.shape(0));
  h.view.width = static_cast<int>(a.shape(1));
  h.view.channels = channels;
  h.view.type = is_float16(a.dtype()) ? PixelType::f16 : PixelType::f32;
  h.view.row_stride_bytes = static_cast<std::size_t>(a.strides(0));
  h.view.space = MemorySpace::host;
  h.keep = a;
  return h;
}

// An owning float Image (the writers, glare and the quality metrics take one) from a host image.
Image owned_image(const ImageView& v) {
  Image img(v.width, v.height, v.channels);
  const std::size_t row_values = static_cast<std::size_t>(v.width) * v.channels;
  for (int y = 0; y < v.height; ++y) {
    if (v.type == PixelType::f32) {
      std::memcpy(img.row(y), v.row<float>(y), row_values * sizeof(float));
    } else {
      // IEEE half -> float, exactly (the values are widened, never rounded).
      const std::uint16_t* src = v.row<std::uint16_t>(y);
      float* dst = img.row(y);
      for (std::size_t i = 0; i < row_values; ++i) {
        const std::uint32_t h = src[i], sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
        std::uint32_t bits;
        if (exp == 0) {
          float f = static_cast<float>(man) * (1.0f / 16777216.0f);  // subnormal: man * 2^-24
          std::memcpy(&bits, &f, 4);
          bits |= sign;
        } else if (exp == 31) {
          bits = sign | 0x7f800000u | (man << 13);
        } else {
          bits = sign | ((exp + 112) << 23) | (man << 13);
        }
        std::memcpy(&dst[i], &bits, 4);
      }
    }
  }
  return img;
}

// A display image (uint8 / uint16, H x W x 3|4) copied into an OutputImage.
OutputImage display_image(const py::handle& object, const char* who) {
  py::array a = py::array::ensure(object);
  if (!a || a.ndim() != 3 || (a.shape(2) != 3 && a.shape(2) != 4))
    raise(invalid_argument(std::string(who) + ": expected an H x W x 3 or H x W x 4 uint8 or uint16 image"));
  const py::dtype dt = a.dtype();
  if (dt.kind() != 'u' || (dt.itemsize() != 1 && dt.itemsize() != 2))
    raise(invalid_argument(std::string(who) + ": expected uint8 or uint16 pixels, got " + dt.attr("name").cast<std::string>()));
  a = py::module_::import("numpy").attr("ascontiguousarray")(a);
  OutputImage out;
  out.allocate_for_overwrite(static_cast<int>(a.shape(1)), static_cast<int>(a.shape(0)), static_cast<int>(a.shape(2)),
                             dt.itemsize() == 1 ? PixelType::u8 : PixelType::u16);
  std::memcpy(out.bytes.data(), a.data(), out.bytes.size());
  return out;
}

GlareParams glare_from(double strength, py::object threshold, py::object radius) {
  GlareParams g;
  g.strength = strength;
  if (!threshold.is_none()) g.threshold = threshold.cast<double>();
  if (!radius.is_none()) g.radius = radius.cast<double>();
  return g;
}

// ---- the calls ----

py::array map_host(const py::handle& input, const std::string& op, const std::string& backend_name,
                   const std::string& dtype, int channels, const py::dict& settings, double glare_strength,
                   py::object glare_threshold, py::object glare_radius) {
  const Params params = params_from(op, settings);
  const Backend backend = take(parse_backend(backend_name));
  const OutputFormat format{parse_output_dtype(dtype), 0};
  HostImage in = host_image(input, "tonekit.map");
  OutputFormat f = format;
  f.channels = channels > 0 ? channels : in.view.channels;
  if (f.channels != 3 && f.channels != 4) raise(invalid_argument("tonekit.map: channels must be 3 or 4"));
  const GlareParams glare = glare_from(glare_strength, glare_threshold, glare_radius);
  auto out = std::make_unique<OutputImage>();
  {
    py::gil_scoped_release unlocked;
    if (glare.strength > 0) {
      // As `tonekit map --glare`: the bright-pass added to a float copy of the scene, then the map.
      Image scene = owned_image(in.view);
      check(apply_glare(scene, glare, backend));
      check(tone_map(scene, params, f, backend, *out));
    } else {
      check(tone_map(in.view, params, f, backend, *out));
    }
  }
  void* data = out->bytes.data();
  const int h = out->height, w = out->width, c = out->channels;
  const PixelType t = out->type;
  return adopt(std::move(out), data, t, h, w, c);
}

#if TONEKIT_PYTHON_IO
py::array read_image(const std::string& path) {
  auto image = std::make_unique<Image>();
  {
    py::gil_scoped_release unlocked;
    *image = take(io::read_image(path));
  }
  void* data = image->pixels.data();
  const int h = image->height, w = image->width, c = image->channels;
  return adopt(std::move(image), data, PixelType::f32, h, w, c);
}

void write_image(const std::string& path, const py::handle& array, int bits, int jpeg_quality, int png_level) {
  const io::OutputKind kind = io::output_kind_for(path);
  if (kind == io::OutputKind::unknown)
    raise(invalid_argument("cannot tell the output format from '" + path + "': use .png, .jpg, .exr, .hdr or .pfm"));
  if (jpeg_quality < 1 || jpeg_quality > 100) raise(invalid_argument("jpeg_quality must be in [1, 100]"));
  if (png_level < 0 || png_level > 9) raise(invalid_argument("png_level must be in [0, 9]"));
  py::array a = py::array::ensure(array);
  const bool display = kind == io::OutputKind::png || kind == io::OutputKind::jpeg;
  if (display) {
    OutputImage image = display_image(array, "tonekit.write");
    if (kind == io::OutputKind::jpeg && image.type != PixelType::u8)
      raise(invalid_argument("tonekit.write: " + path + ": JPEG takes uint8 pixels"));
    if (bits != 0 && bits != 8 * static_cast<int>(bytes_per_channel(image.type)))
      raise(invalid_argument("tonekit.write: bits=" + std::to_string(bits) + " does not match the array's dtype"));
    py::gil_scoped_release unlocked;
    check(kind == io::OutputKind::png ? io::write_png(path, image, png_level) : io::write_jpeg(path, image, jpeg_quality));
    return;
  }
  if (bits != 0 && bits != 16 && bits != 32) raise(invalid_argument("tonekit.write: bits must be 16 or 32 for " + path));
  HostImage in = host_image(array, "tonekit.write");
  py::gil_scoped_release unlocked;
  const Image image = owned_image(in.view);
  if (kind == io::OutputKind::exr) check(io::write_exr(path, image, bits != 32));
  else if (kind == io::OutputKind::hdr) check(io::write_hdr(path, image));
  else check(io::write_pfm(path, image));
}
#else
// A build without image I/O (TONEKIT_IO=OFF, GPU hosts without the codecs' libraries).
Status no_io() { return unsupported("this build of tonekit has no image I/O (configured with TONEKIT_IO=OFF)"); }
py::array read_image(const std::string&) { raise(no_io()); }
void write_image(const std::string&, const py::handle&, int, int, int) { raise(no_io()); }
#endif

py::dict quality_scores(const py::handle& hdr, const py::handle& ldr, const std::string& backend_text) {
  const Backend backend = take(parse_backend(backend_text));
  HostImage in = host_image(hdr, "tonekit.quality");
  const OutputImage out = display_image(ldr, "tonekit.quality");
  quality::QualityReport r;
  Backend ran = Backend::cpu;
  {
    py::gil_scoped_release unlocked;
    const Image scene = owned_image(in.view);
    r = take(quality::assess(scene, out, backend, &ran));
  }
  py::dict tmqi;
  tmqi["q"] = r.tmqi.q;
  tmqi["s"] = r.tmqi.s;
  tmqi["n"] = r.tmqi.n;
  tmqi["s_per_scale"] = std::vector<double>(r.tmqi.s_per_scale.begin(), r.tmqi.s_per_scale.end());
  tmqi["mean_luminance"] = r.tmqi.mean_luminance;
  tmqi["contrast"] = r.tmqi.contrast;
  py::dict fsitm;
  fsitm["r"] = r.fsitm.channel[0];
  fsitm["g"] = r.fsitm.channel[1];
  fsitm["b"] = r.fsitm.channel[2];
  fsitm["mean"] = r.fsitm.mean;
  py::dict colour;
  colour["delta_e2000_mean"] = r.colour.delta_e2000_mean;
  colour["delta_e2000_p95"] = r.colour.delta_e2000_p95;
  colour["hue_shift_mean_deg"] = r.colour.hue_shift_mean_deg;
  colour["chromatic_pixels"] = r.colour.chromatic_pixels;
  py::dict all;
  all["tmqi"] = tmqi;
  all["fsitm"] = fsitm;
  all["colour"] = colour;
  all["backend"] = tonekit::backend_name(ran);
  return all;
}

py::array synth_scene(const std::string& scene, int width, int height) {
  auto image = std::make_unique<Image>();
  {
    py::gil_scoped_release unlocked;
    *image = take(synth::render_scene(scene, width, height));
  }
  void* data = image->pixels.data();
  const int h = image->height, w = image->width, c = image->channels;
  return adopt(std::move(image), data, PixelType::f32, h, w, c);
}

py::dict param_dict(const ParamDesc& p, bool common) {
  py::dict d;
  d["name"] = p.name;
  d["default"] = p.default_value;
  d["min"] = p.min_value;
  d["max"] = p.max_value;
  d["help"] = p.help;
  d["integer"] = p.integer;
  d["common"] = common;
  return d;
}

py::list operator_list() {
  py::list ops;
  for (const OperatorDesc* op : all_operators()) {
    py::dict d;
    d["id"] = op->id;
    d["title"] = op->title;
    d["citation"] = op->citation;
    d["description"] = op->description;
    d["locality"] = op->locality == Locality::global ? "global" : "local";
    py::list params;
    for (const ParamDesc& p : op->params) params.append(param_dict(p, false));
    for (const ParamDesc& p : common_params()) params.append(param_dict(p, true));
    d["params"] = params;
    ops.append(d);
  }
  return ops;
}

py::list temporal_param_list() {
  py::list out;
  for (const ParamDesc& p : temporal_params()) out.append(param_dict(p, false));
  return out;
}

// Host frames of a sequence: tone_map_temporal with the state kept here between calls
// (the CPU or, with cuda, the host API's device pipeline).
class HostSequence {
 public:
  HostSequence(const std::string& op, const py::dict& settings, const py::dict& temporal, const std::string& backend)
      : params_(params_from(op, settings)), temporal_(temporal_from(temporal)), backend_(take(parse_backend(backend))) {}

  py::array map(const py::handle& input, const std::string& dtype, int channels, double dt) {
    HostImage in = host_image(input, "ToneMapper.map");
    OutputFormat f{parse_output_dtype(dtype), channels > 0 ? channels : in.view.channels};
    if (f.channels != 3 && f.channels != 4) raise(invalid_argument("ToneMapper.map: channels must be 3 or 4"));
    auto out = std::make_unique<OutputImage>();
    {
      py::gil_scoped_release unlocked;
      check(tone_map_temporal(in.view, params_, f, backend_, state_, temporal_, dt, *out));
    }
    void* data = out->bytes.data();
    const int h = out->height, w = out->width, c = out->channels;
    const PixelType t = out->type;
    return adopt(std::move(out), data, t, h, w, c);
  }
  void set_params(const std::string& op, const py::dict& settings) { params_ = params_from(op, settings); }
  py::dict state() const { return state_dict(state_); }
  void set_state(const py::dict& d) { state_ = state_from(d); }
  void reset() { state_ = TemporalState{}; }

 private:
  Params params_;
  TemporalParams temporal_;
  Backend backend_;
  TemporalState state_{};
};

}  // namespace

Params params_from(const std::string& op, const py::dict& settings) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (auto [key, value] : settings) {
    std::string text;
    if (py::isinstance<py::bool_>(value)) text = value.cast<bool>() ? "1" : "0";
    else if (py::isinstance<py::str>(value)) text = value.cast<std::string>();
    else text = py::repr(value).cast<std::string>();
    pairs.emplace_back(py::str(key).cast<std::string>(), text);
  }
  return take(prepare_params(op, pairs));
}

PixelType parse_output_dtype(const std::string& name) {
  if (name == "uint8") return PixelType::u8;
  if (name == "uint16") return PixelType::u16;
  if (name == "float16") return PixelType::f16;
  if (name == "float32") return PixelType::f32;
  raise(invalid_argument("unknown output dtype '" + name + "' (known: uint8, uint16, float16, float32)"));
}

py::dict state_dict(const TemporalState& s) {
  py::dict d;
  d["seeded"] = s.seeded != 0;
  d["last_cut"] = s.last_cut != 0;
  d["log_key"] = s.log_key;
  d["log_peak"] = s.log_peak;
  d["last_frame_log_key"] = s.last_frame_log_key;
  d["frames"] = s.frames;
  d["cuts"] = s.cuts;
  return d;
}

TemporalState state_from(const py::dict& d) {
  TemporalState s;
  s.seeded = d.contains("seeded") ? d["seeded"].cast<bool>() : 1;
  s.last_cut = d.contains("last_cut") ? d["last_cut"].cast<bool>() : 0;
  s.log_key = d["log_key"].cast<double>();
  s.log_peak = d["log_peak"].cast<double>();
  s.last_frame_log_key = d.contains("last_frame_log_key") ? d["last_frame_log_key"].cast<double>() : s.log_key;
  s.frames = d.contains("frames") ? d["frames"].cast<std::uint64_t>() : 0;
  s.cuts = d.contains("cuts") ? d["cuts"].cast<std::uint64_t>() : 0;
  return s;
}

TemporalParams temporal_from(const py::dict& settings) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (auto [k, v] : settings) pairs.emplace_back(py::str(k).cast<std::string>(), py::str(v).cast<std::string>());
  return take(prepare_temporal(pairs));
}


}  // namespace tonekit::python

PYBIND11_MODULE(_tonekit, m) {
  namespace tp = tonekit::python;
  namespace py = pybind11;
  m.doc() = "tonekit's native module (the package tonekit wraps it)";
  tp::register_exceptions(m);
  m.attr("__version__") = TONEKIT_VERSION_STRING;
  m.def("operators", &tp::operator_list);
  m.def("temporal_params", &tp::temporal_param_list);
  m.def("validate", [](const std::string& op, const py::dict& settings) {
    return tp::params_from(op, settings).values();
  });
  m.def("map_host", &tp::map_host);
  // The benchmark's C++ figure (bench/python_bench.py): tone_map on the same host view, `repeats`
  // calls with the output buffer reused as a C++ caller would, seconds per call.
  m.def("_time_host_api", [](const py::handle& a, const std::string& op, const std::string& backend, int repeats) {
    tp::HostImage in = tp::host_image(a, "tonekit.map");
    const tonekit::Params params = tp::params_from(op, py::dict());
    const tonekit::Backend b = tp::take(tonekit::parse_backend(backend));
    tonekit::OutputImage out;
    std::vector<double> seconds;
    py::gil_scoped_release unlocked;
    for (int i = 0; i < repeats; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      tp::check(tonekit::tone_map(in.view, params, {tonekit::PixelType::u8, in.view.channels}, b, out));
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return seconds;
  });
  m.def("read", &tp::read_image);
  // Tests: whether map_host would read this array where it lies (false) or copy it first (true).
  m.def("_input_is_copied", [](const py::handle& a) { return tp::host_image(a, "tonekit.map").copied; });
  m.def("write", &tp::write_image);
  m.def("quality", &tp::quality_scores);
  m.def("synth", &tp::synth_scene);
  m.def("scenes", [] {
    std::vector<std::string> ids;
    for (const auto& s : tonekit::synth::all_scenes()) ids.push_back(s.id);
    return ids;
  });
  m.def("cuda_available", [] {
    py::gil_scoped_release unlocked;
    return tonekit::cuda_available();
  });
  m.def("use_cuda_device", [](int device) {
    py::gil_scoped_release unlocked;
    tp::check(tonekit::use_cuda_device(device));
  });
  m.def("cuda_device_count", [] {
    py::gil_scoped_release unlocked;
    return tonekit::cuda_device_count();
  });
  py::class_<tp::HostSequence>(m, "HostSequence")
      .def(py::init<const std::string&, const py::dict&, const py::dict&, const std::string&>())
      .def("map", &tp::HostSequence::map)
      .def("set_params", &tp::HostSequence::set_params)
      .def("state", &tp::HostSequence::state)
      .def("set_state", &tp::HostSequence::set_state)
      .def("reset", &tp::HostSequence::reset);
  tp::register_device(m);
}
