// Port names in event text ("<16 hex>_<n>" and two message forms), by their definition in RE2
// (ExtractPortNames) and by the hand-written scan the intakes use (ScanPortNames,
// AppendPortNames), about ten times faster in bench/event_log_bench; event_log_test and the fuzz
// targets check the scan against the definition. Pure functions, thread-safe; a FoundPortNames is
// plain state for one thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ufmr {

// Port names in text: "<16 hex>_<n>" and the message forms "...)<16 hex>:<n>" and
// "<16 hex> (Switch: x) : <n>". Lower-cased, de-duplicated, in order of appearance. This is the
// definition, in RE2.
std::vector<std::string> ExtractPortNames(const std::string& text);

// The names one ScanPortNames found, repeats included, in the order ExtractPortNames gives them.
// Up to 16 names without allocating; reuse one for every scan on a hot path.
class FoundPortNames {
 public:
  size_t size() const { return count_; }
  std::string_view operator[](size_t i) const {
    const Match& m = (overflow_.empty() ? fixed_.data() : overflow_.data())[i];
    return std::string_view(m.name, m.len);
  }

 private:
  friend class PortNameScanner;
  friend void ScanPortNames(std::string_view text, FoundPortNames* found);
  struct Match {
    size_t end;     // where the match ends in the text
    uint8_t len;    // of name
    char name[24];  // 16 hex + '_' + up to 4 digits
  };

  void Clear() {
    count_ = 0;
    overflow_.clear();
  }
  // Adds "<guid lower-cased>_<number>" for a match ending at `end`.
  void Add(const char* guid, size_t end, int number);
  // Orders the matches by where they end (stable; forms never tie on an end position).
  void SortByEnd();

  std::array<Match, 16> fixed_;
  std::vector<Match> overflow_;  // all matches, once there are more than 16
  size_t count_ = 0;
};

// The port names in text, exactly as ExtractPortNames finds them (repeats left in), into *found.
void ScanPortNames(std::string_view text, FoundPortNames* found);

// The same names, appended to *out, skipping names already there.
void AppendPortNames(std::string_view text, std::vector<std::string>* out);

}  // namespace ufmr
