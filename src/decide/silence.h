// Silences (maintenance windows): a person says "leave these ports / switches / hosts alone
// until then, because ...". A Silence is plain data (stored in PostgreSQL by Store, managed
// through the JSON API); ValidateSilence checks one before it is stored; SilenceSet compiles the
// active ones' RE2 patterns once and answers whether a decision's subject (the ports of a link and
// the switches / hosts they belong to) falls under one. Silence and the functions are pure and
// thread-safe; a SilenceSet is immutable after construction and safe to share between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace ufmr {

struct Silence {
  int64_t id = 0;
  std::string port;     // RE2 pattern, full match against a port name "<guid>_<n>" (empty: any)
  std::string switch_;  // RE2 pattern, full match against a switch name (system name) (empty: any)
  std::string host;     // RE2 pattern, full match against a host name (empty: any)
  std::string reason;   // required, shown to people
  std::string created_by;
  TimePoint created_at;
  TimePoint expires_at;
  std::optional<TimePoint> expired_at;  // set when a person ended it early
  std::string expired_by;               // who ended it early ("" if not ended, or not given)

  // created_at <= t < expires_at, and not ended early (expired_at unset).
  bool ActiveAt(TimePoint t) const;
  // id, port, switch, host, reason, created_by, created_at, expires_at, expired_at, expired_by
  // (times ISO 8601 via FormatIsoTime, null when unset), active (at `now`).
  nlohmann::json ToJson(TimePoint now) const;
  nlohmann::json ToJson() const;  // active as of the system clock's now
};

// What a decision is about: the ports (one or both link ends) and the switches/hosts they belong
// to. Empty names (an unknown end) never match a pattern.
struct SilenceSubject {
  std::vector<std::string> ports;
  std::vector<std::string> switches;
  std::vector<std::string> hosts;
};

// Limits shared by validation and the API.
inline constexpr size_t kMaxSilencePatternLength = 1000;
inline constexpr size_t kMaxSilenceReasonLength = 4000;
inline constexpr size_t kMaxSilenceActorLength = 200;

// Checks a silence before it is stored: at least one of port/switch/host set; every set pattern
// compiles in RE2 (and is at most kMaxSilencePatternLength long); reason non-empty; expires_at
// after created_at. InvalidArgument with a message naming the field otherwise.
Status ValidateSilence(const Silence& s);

// Reads an ISO 8601 / RFC 3339 UTC or offset time: "2026-11-29T18:46:32Z",
// "2026-11-29T18:46:32.123+01:00", "2026-11-29 18:46:32Z". A time without a zone is rejected
// (ambiguous). The inverse of FormatIsoTime.
Result<TimePoint> ParseIsoTime(const std::string& text);

// The silences in force, compiled once. Match returns the first (in the order given) silence
// active at `now` whose every non-empty pattern full-matches at least one of the subject's
// corresponding names, or nullptr. Immutable after construction, safe to share between threads;
// copies share the compiled patterns.
class SilenceSet {
 public:
  SilenceSet() = default;
  // Skips (and logs) silences whose patterns do not compile or that set no pattern at all.
  explicit SilenceSet(std::vector<Silence> silences);

  const Silence* Match(const SilenceSubject& subject, TimePoint now) const;
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Silence silence;
    std::shared_ptr<const re2::RE2> port;  // null: any
    std::shared_ptr<const re2::RE2> switch_;
    std::shared_ptr<const re2::RE2> host;
  };
  std::vector<Entry> entries_;
};

}  // namespace ufmr
