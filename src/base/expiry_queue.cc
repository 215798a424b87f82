#include "base/expiry_queue.h"

#include <algorithm>

namespace ufmr {

namespace {

// std::push_heap builds a max-heap: the latest due time ranks lowest.
bool Later(const ExpiryQueue::Entry& a, const ExpiryQueue::Entry& b) { return a.due > b.due; }

}  // namespace

void ExpiryQueue::Schedule(std::optional<TimePoint> due, size_t rule, const std::string& entity,
                           std::optional<TimePoint>* scheduled) {
  if (!due || (*scheduled && **scheduled <= *due)) return;
  *scheduled = due;
  heap_.push_back({*due, static_cast<uint32_t>(rule), entity});
  std::push_heap(heap_.begin(), heap_.end(), Later);
}

std::vector<ExpiryQueue::Entry> ExpiryQueue::TakeDue(TimePoint now) {
  std::vector<Entry> due;
  while (!heap_.empty() && heap_.front().due <= now) {
    std::pop_heap(heap_.begin(), heap_.end(), Later);
    due.push_back(std::move(heap_.back()));
    heap_.pop_back();
  }
  return due;
}

}  // namespace ufmr
