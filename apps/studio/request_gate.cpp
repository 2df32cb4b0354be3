#include "request_gate.hpp"

namespace tonekit::studio {

bool RequestGate::admit(const std::string& view, std::int64_t seq) {
  std::lock_guard lock(mutex_);
  auto it = newest_.find(view);
  if (it != newest_.end()) {
    if (seq < it->second) return false;
    it->second = seq;
    return true;
  }
  if (newest_.size() >= kMaxViews) newest_.erase(newest_.begin());
  newest_.emplace(view, seq);
  return true;
}

bool RequestGate::is_newest(const std::string& view, std::int64_t seq) const {
  std::lock_guard lock(mutex_);
  auto it = newest_.find(view);
  return it == newest_.end() || it->second <= seq;
}

}  // namespace tonekit::studio
