// A blocking queue of at most `capacity` items between two threads. close() ends the stream
// (the consumer drains what is queued, then pop() returns nothing); abort() ends it at once for
// both sides (a failure elsewhere: nothing more is wanted).
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>

namespace tonekit::stream {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {}

  // False when the queue was closed or aborted (the item is dropped).
  bool push(T item) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return items_.size() < capacity_ || closed_ || aborted_; });
    if (closed_ || aborted_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }
  // The next item; nothing once closed and drained, or aborted.
  std::optional<T> pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return !items_.empty() || closed_ || aborted_; });
    if (aborted_ || items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }
  // The next item if one is queued now; never waits.
  std::optional<T> try_pop() {
    std::lock_guard lock(mutex_);
    if (aborted_ || items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }
  // Items queued now (another thread may change it at once: a hint, not a promise).
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return items_.size();
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  std::deque<T> items_;
  std::size_t capacity_;
  bool closed_ = false;
  bool aborted_ = false;
};

}  // namespace tonekit::stream
