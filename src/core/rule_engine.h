// RuleEngine: matches Observations against a RuleSet and emits Findings. Event rules count
// matching events per link over a window and may hold (debounce) until a clear event cancels;
// counter rules compare a counter's rate with a threshold. Owned by the pipeline thread; not
// thread-safe. Swapping rules means building a new engine.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/observation.h"
#include "core/rules.h"

namespace ufmr {

// Given the ports an observation names, returns both ends of the link when known.
using LinkResolver = std::function<std::vector<std::string>(const std::vector<std::string>&)>;

class RuleEngine {
 public:
  RuleEngine(std::shared_ptr<const RuleSet> rules, LinkResolver resolver);

  // Findings this observation completes now (rules without hold).
  std::vector<Finding> Observe(const Observation& o);
  // Held findings whose hold has passed without a clear event.
  std::vector<Finding> Tick(TimePoint now);
  // Rules whose match condition this single observation meets (ignoring count/hold): used to
  // judge a link under soak, where any bad sign fails it.
  std::vector<const Rule*> Matching(const Observation& o) const;
  // Drops counting state for a link, e.g. once it has a ticket.
  void Forget(const std::string& link_key);

  // The smallest UFM event id that counting or holding state still depends on, if any. The
  // persisted event cursor must stay below it, so a restart replays what memory held.
  // Only observations from `source` count (each source has its own cursor and ids).
  std::optional<int64_t> OldestEventInUse(const std::string& source = "rest") const;

  size_t pending() const { return pending_.size(); }
  const RuleSet& rules() const { return *rules_; }

 private:
  bool Matches(const Rule& r, const Observation& o) const;
  Finding MakeFinding(const Rule& r, const std::vector<std::string>& ends, TimePoint t,
                      nlohmann::json evidence) const;

  struct Pending {
    const Rule* rule;
    std::vector<std::string> ends;
    TimePoint fire_at;
    nlohmann::json evidence;
  };
  std::shared_ptr<const RuleSet> rules_;
  std::map<std::string, const Rule*> by_name_;
  LinkResolver resolver_;
  std::map<std::pair<std::string, std::string>, std::deque<std::pair<TimePoint, nlohmann::json>>>
      windows_;  // (rule, link) -> matching observations in the window
  std::map<std::pair<std::string, std::string>, Pending> pending_;
};

nlohmann::json ObservationToJson(const Observation& o);

}  // namespace ufmr
