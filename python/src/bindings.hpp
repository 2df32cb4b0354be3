// What the binding files share: a failed Status as a Python exception, and the look (operator and
// parameters) from Python keyword arguments through the registry's one validator.
#pragma once
#include <pybind11/pybind11.h>

#include <exception>
#include <string>

#include "tonekit/image.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/temporal.hpp"

namespace tonekit::python {

namespace py = pybind11;

// Carries a library Status to the translator, which raises the tonekit exception of its code
// with the library's one-line message.
struct StatusError : std::exception {
  explicit StatusError(Status s) : status(std::move(s)) {}
  const char* what() const noexcept override { return status.message().c_str(); }
  Status status;
};

[[noreturn]] inline void raise(const Status& s) { throw StatusError(s); }
inline void check(const Status& s) {
  if (!s.ok()) raise(s);
}
template <class T>
T take(Result<T> r) {
  if (!r.ok()) raise(r.status());
  return std::move(*r);
}

// prepare_params(op, NAME=VALUE...) from keyword arguments: numbers are passed as their repr (which
// reads back as the same double), bools as 1 / 0, strings as given, so the messages and the
// values are those of `tonekit map --set`.
Params params_from(const std::string& op, const py::dict& settings);

// "uint8", "uint16", "float16", "float32" -> the output's PixelType.
PixelType parse_output_dtype(const std::string& name);

// The temporal state as a dict (the keys of TemporalState) and back; the temporal parameters
// from NAME=VALUE keyword arguments through prepare_temporal.
py::dict state_dict(const TemporalState& s);
TemporalState state_from(const py::dict& d);
TemporalParams temporal_from(const py::dict& settings);

void register_device(py::module_& m);

}  // namespace tonekit::python
