// Errors are values at the API boundary: every public call returns a Status (or a Result<T>)
// whose message names the file or parameter and the problem. Exceptions stay inside the library.
#pragma once
#include <optional>
#include <string>
#include <utility>

namespace tonekit {

enum class StatusCode {
  ok = 0,
  invalid_argument,  // bad parameter, unknown operator, out-of-range value, wrong format
  bad_input,         // unreadable, truncated or corrupt file, wrong magic, absurd dimensions
  io_error,          // the operating system refused (open, write, rename)
  unsupported,       // valid but not handled (an orientation, a channel layout)
  no_device,         // CUDA requested but no GPU or no CUDA build
  out_of_memory,     // host or device allocation failed
  runtime_error,     // anything else that went wrong while running
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok_status() { return {}; }
  bool ok() const { return code_ == StatusCode::ok; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // True for errors caused by what the user handed over (CLI exit code 1), false for
  // failures while running (exit code 2).
  bool is_input_error() const {
    return code_ == StatusCode::invalid_argument || code_ == StatusCode::bad_input ||
           code_ == StatusCode::unsupported;
  }

 private:
  StatusCode code_ = StatusCode::ok;
  std::string message_;
};

inline Status invalid_argument(std::string m) { return {StatusCode::invalid_argument, std::move(m)}; }
inline Status bad_input(std::string m) { return {StatusCode::bad_input, std::move(m)}; }
inline Status io_error(std::string m) { return {StatusCode::io_error, std::move(m)}; }
inline Status unsupported(std::string m) { return {StatusCode::unsupported, std::move(m)}; }

// A value or the Status explaining why there is none.
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status status) : status_(std::move(status)) {}
  bool ok() const { return status_.ok() && value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace tonekit
