#include "decide/silence.h"

#include <re2/re2.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <chrono>
#include <tuple>
#include <utility>

namespace ufmr {

namespace {

nlohmann::json OptString(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

RE2::Options PatternOptions() {
  RE2::Options o;
  o.set_log_errors(false);  // a bad pattern is reported to the person who wrote it
  return o;
}

// Compiles a non-empty pattern; the error names the field.
Result<std::shared_ptr<const re2::RE2>> Compile(const char* field, const std::string& pattern) {
  if (pattern.size() > kMaxSilencePatternLength) {
    return Status::InvalidArgument("\"" + std::string(field) + "\" is longer than " +
                                   std::to_string(kMaxSilencePatternLength) + " characters");
  }
  auto re = std::make_shared<const re2::RE2>(pattern, PatternOptions());
  if (!re->ok()) {
    return Status::InvalidArgument("\"" + std::string(field) + "\" is not a valid RE2 pattern '" +
                                   pattern + "': " + re->error());
  }
  return std::shared_ptr<const re2::RE2>(std::move(re));
}

// True if no pattern (any), or the pattern full-matches one of the non-empty names.
bool Covers(const std::shared_ptr<const re2::RE2>& re, const std::vector<std::string>& names) {
  if (!re) return true;
  for (const auto& n : names) {
    if (!n.empty() && RE2::FullMatch(n, *re)) return true;
  }
  return false;
}

// Reads exactly `n` digits at text[*i] as a number.
bool Digits(const std::string& text, size_t* i, size_t n, int* out) {
  if (*i + n > text.size()) return false;
  int v = 0;
  for (size_t k = 0; k < n; ++k) {
    char c = text[*i + k];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *i += n;
  *out = v;
  return true;
}

bool Expect(const std::string& text, size_t* i, char c) {
  if (*i >= text.size() || text[*i] != c) return false;
  ++*i;
  return true;
}

}  // namespace

bool Silence::ActiveAt(TimePoint t) const {
  return !expired_at && created_at <= t && t < expires_at;
}

nlohmann::json Silence::ToJson(TimePoint now) const {
  return {{"id", id},
          {"port", port},
          {"switch", switch_},
          {"host", host},
          {"reason", reason},
          {"created_by", OptString(created_by)},
          {"created_at", FormatIsoTime(created_at)},
          {"expires_at", FormatIsoTime(expires_at)},
          {"expired_at",
           expired_at ? nlohmann::json(FormatIsoTime(*expired_at)) : nlohmann::json(nullptr)},
          {"expired_by", OptString(expired_by)},
          {"active", ActiveAt(now)}};
}

nlohmann::json Silence::ToJson() const { return ToJson(std::chrono::system_clock::now()); }

Status ValidateSilence(const Silence& s) {
  if (s.port.empty() && s.switch_.empty() && s.host.empty()) {
    return Status::InvalidArgument(
        "a silence needs at least one of \"port\", \"switch\" or \"host\" (a pattern)");
  }
  const std::pair<const char*, const std::string*> patterns[] = {
      {"port", &s.port}, {"switch", &s.switch_}, {"host", &s.host}};
  for (const auto& [field, pattern] : patterns) {
    if (pattern->empty()) continue;
    auto re = Compile(field, *pattern);
    if (!re.ok()) return re.status();
  }
  if (s.reason.empty()) return Status::InvalidArgument("\"reason\" is required");
  if (s.reason.size() > kMaxSilenceReasonLength) {
    return Status::InvalidArgument("\"reason\" is longer than " +
                                   std::to_string(kMaxSilenceReasonLength) + " characters");
  }
  if (s.created_by.size() > kMaxSilenceActorLength) {
    return Status::InvalidArgument("\"by\" is longer than " +
                                   std::to_string(kMaxSilenceActorLength) + " characters");
  }
  if (s.expires_at <= s.created_at) {
    return Status::InvalidArgument("expires_at (" + FormatIsoTime(s.expires_at) +
                                   ") must be after created_at (" + FormatIsoTime(s.created_at) +
                                   ")");
  }
  return Status::Ok();
}

Result<TimePoint> ParseIsoTime(const std::string& text) {
  auto bad = [&text](const std::string& why) {
    return Status::InvalidArgument("'" + text + "' is not an ISO 8601 time (" + why +
                                   "; e.g. 2026-11-29T18:00:00Z)");
  };
  size_t i = 0;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!Digits(text, &i, 4, &y) || !Expect(text, &i, '-') || !Digits(text, &i, 2, &mo) ||
      !Expect(text, &i, '-') || !Digits(text, &i, 2, &d)) {
    return bad("expected a date YYYY-MM-DD");
  }
  if (i >= text.size() || (text[i] != 'T' && text[i] != 't' && text[i] != ' ')) {
    return bad("expected 'T' and a time of day");
  }
  ++i;
  if (!Digits(text, &i, 2, &h) || !Expect(text, &i, ':') || !Digits(text, &i, 2, &mi) ||
      !Expect(text, &i, ':') || !Digits(text, &i, 2, &sec)) {
    return bad("expected a time hh:mm:ss");
  }
  std::chrono::nanoseconds frac{0};
  if (i < text.size() && (text[i] == '.' || text[i] == ',')) {
    ++i;
    size_t start = i;
    int64_t ns = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (i - start < 9) ns = ns * 10 + (text[i] - '0');
      ++i;
    }
    if (i == start) return bad("expected digits after the decimal point");
    for (size_t k = i - start; k < 9; ++k) ns *= 10;
    frac = std::chrono::nanoseconds(ns);
  }
  int offset_minutes = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int sign = text[i] == '-' ? -1 : 1;
    ++i;
    int oh = 0, om = 0;
    if (!Digits(text, &i, 2, &oh)) return bad("expected a zone offset like +01:00");
    if (i < text.size() && text[i] == ':') ++i;
    if (!Digits(text, &i, 2, &om) || oh > 23 || om > 59) {
      return bad("expected a zone offset like +01:00");
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return bad("a time zone is required: Z or an offset like +01:00");
  }
  if (i != text.size()) return bad("unexpected text after the time");
  std::chrono::year_month_day ymd{std::chrono::year(y),
                                  std::chrono::month(static_cast<unsigned>(mo)),
                                  std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok()) return bad("no such date");
  // TimePoint counts nanoseconds in 64 bits: it ends in 2262.
  if (y < 1970 || y > 2200) return bad("the year must be 1970 to 2200");
  if (h > 23 || mi > 59 || sec > 59) return bad("no such time of day");
  auto t = std::chrono::sys_days(ymd) + std::chrono::hours(h) + std::chrono::minutes(mi) +
           std::chrono::seconds(sec) - std::chrono::minutes(offset_minutes);
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(t.time_since_epoch() + frac));
}

SilenceSet::SilenceSet(std::vector<Silence> silences) {
  entries_.reserve(silences.size());
  for (auto& s : silences) {
    if (s.port.empty() && s.switch_.empty() && s.host.empty()) {
      spdlog::warn("silence {} sets no pattern; ignored", s.id);
      continue;
    }
    Entry e;
    bool ok = true;
    const std::tuple<const char*, const std::string*, std::shared_ptr<const re2::RE2>*> fields[] = {
        {"port", &s.port, &e.port}, {"switch", &s.switch_, &e.switch_}, {"host", &s.host, &e.host}};
    for (const auto& [field, pattern, out] : fields) {
      if (pattern->empty()) continue;
      auto re = Compile(field, *pattern);
      if (!re.ok()) {
        spdlog::warn("silence {} ignored: {}", s.id, re.status().message());
        ok = false;
        break;
      }
      *out = std::move(re.value());
    }
    if (!ok) continue;
    e.silence = std::move(s);
    entries_.push_back(std::move(e));
  }
}

const Silence* SilenceSet::Match(const SilenceSubject& subject, TimePoint now) const {
  for (const auto& e : entries_) {
    if (!e.silence.ActiveAt(now)) continue;
    if (Covers(e.port, subject.ports) && Covers(e.switch_, subject.switches) &&
        Covers(e.host, subject.hosts)) {
      return &e.silence;
    }
  }
  return nullptr;
}

}  // namespace ufmr
