// Drops stale renders. The page numbers its requests per client and view (A or B); a request
// older than the newest one seen for its view is answered without rendering, and one overtaken
// while it rendered is not sent, so a fast slider never queues work behind itself.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace tonekit::studio {

class RequestGate {
 public:
  // Records `seq` for `view` and says whether it is still the newest (false: drop it).
  bool admit(const std::string& view, std::int64_t seq);
  // Whether no newer request for `view` arrived since `seq` was admitted.
  bool is_newest(const std::string& view, std::int64_t seq) const;

 private:
  // Bounded: a page holds two views, so this only grows with clients; past the bound the
  // oldest-keyed entries are forgotten (a forgotten view simply admits its next request).
  static constexpr std::size_t kMaxViews = 4096;
  mutable std::mutex mutex_;
  std::map<std::string, std::int64_t> newest_;
};

}  // namespace tonekit::studio
