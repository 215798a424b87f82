// Fifo: a first-in, first-out queue kept in one vector, for the rules engine's sliding windows.
// Unlike std::deque (which allocates a 512-byte block and a map even while empty) an empty Fifo
// holds no memory, and one that is pushed and popped in turn reuses its storage: the consumed
// front is compacted away once it is half the vector. Popped items are reset at once, so what
// they hold (a shared observation) is released when it leaves the window, not at compaction.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace ufmr {

template <typename T>
class Fifo {
 public:
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;

  bool empty() const { return head_ == items_.size(); }
  size_t size() const { return items_.size() - head_; }

  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  T& back() { return items_.back(); }
  const T& back() const { return items_.back(); }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    return items_.emplace_back(std::forward<Args>(args)...);
  }
  void push_back(T item) { items_.push_back(std::move(item)); }

  void pop_front() {
    items_[head_] = T{};
    ++head_;
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= kCompactAt && head_ * 2 >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }

  iterator begin() { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  const_iterator end() const { return items_.end(); }

 private:
  static constexpr size_t kCompactAt = 16;
  std::vector<T> items_;
  size_t head_ = 0;  // items_[0, head_) are consumed
};

}  // namespace ufmr
