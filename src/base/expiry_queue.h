// ExpiryQueue: when the next look at one entity's state under one rule is due (for the rules
// engine: the oldest entry of a window leaves it, a quiet episode ends, a late counter sample
// lets a condition clear), so that expiry costs what expires, not a visit of every tracked
// entity every few seconds. A min-heap of (due, rule, entity). Each state remembers the due time
// of its live entry (Schedule's `scheduled`); an entry whose state is gone, or was scheduled
// again since, is stale and is dropped when it comes up. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"

namespace ufmr {

class ExpiryQueue {
 public:
  struct Entry {
    TimePoint due;
    uint32_t rule = 0;  // Rule::index
    std::string entity;
  };

  // Asks for a look at the entity's state at `due` (none: the state needs no look), unless the
  // state's live entry (`*scheduled`) comes first. `*scheduled` is the state's own record of it.
  void Schedule(std::optional<TimePoint> due, size_t rule, const std::string& entity,
                std::optional<TimePoint>* scheduled);
  // Removes and returns the entries due at or before `now`, earliest first. Stale ones are among
  // them: the caller keeps an entry only if it finds the state with `scheduled == due`, and then
  // resets `scheduled` before it looks.
  std::vector<Entry> TakeDue(TimePoint now);
  // Forgets every entry (a reload schedules the adopted states again).
  void Clear() { heap_.clear(); }
  size_t size() const { return heap_.size(); }

 private:
  std::vector<Entry> heap_;  // a min-heap on `due`
};

}  // namespace ufmr
