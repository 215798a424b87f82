#include "api/request_body.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "base/duration.h"
#include "base/utf8.h"

namespace ufmr {

int JsonDepth(std::string_view text, int stop_above) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > stop_above) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

nlohmann::json ParseBodyJson(std::string_view text) {
  if (JsonDepth(text, kMaxBodyDepth) > kMaxBodyDepth) {
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  return nlohmann::json::parse(text, nullptr, false);
}

Result<nlohmann::json> ReadObject(std::string_view text,
                                  std::initializer_list<std::string_view> allowed,
                                  const std::string& example) {
  if (JsonDepth(text, kMaxBodyDepth) > kMaxBodyDepth) {
    return Status::InvalidArgument("body nests arrays and objects more than " +
                                   std::to_string(kMaxBodyDepth) + " deep");
  }
  auto body = ParseBodyJson(text.empty() ? "{}" : text);
  if (body.is_discarded() || !body.is_object()) {
    return Status::InvalidArgument("body must be a JSON object like " + example);
  }
  for (const auto& [key, value] : body.items()) {
    std::string clean;
    if (value.is_string() && SanitizeUtf8(value.get_ref<const std::string&>(), &clean)) {
      // The database would cut the text at a NUL byte (or refuse it): say so instead.
      return Status::InvalidArgument("\"" + key + "\" must be text without NUL characters");
    }
    bool known = false;
    std::string expected;
    for (std::string_view a : allowed) {
      known = known || key == a;
      expected += (expected.empty() ? "" : ", ") + std::string(a);
    }
    if (!known) {
      return Status::InvalidArgument("unknown field \"" + key + "\" (expected " + expected + ")");
    }
  }
  return body;
}

Status StringField(const nlohmann::json& body, const char* key, std::string* out) {
  if (!body.contains(key)) return Status::Ok();
  if (!body[key].is_string()) {
    return Status::InvalidArgument("\"" + std::string(key) + "\" must be a string");
  }
  *out = body[key].get<std::string>();
  return Status::Ok();
}

Result<int64_t> PathId(const HttpRequest& req) {
  const std::string& s = req.params.at("id");
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) {
    return Status::InvalidArgument("id must be a positive integer, got '" + s + "'");
  }
  return std::stoll(s);
}

Result<Silence> ReadNewSilence(std::string_view text, TimePoint now) {
  auto parsed = ReadObject(
      text, {"port", "switch", "host", "reason", "duration", "expires_at", "by"},
      R"({"host": "gpu-node-0[0-9]+", "reason": "...", "duration": "2h", "by": "name"})");
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& body = parsed.value();
  Silence s;
  std::string duration, expires_at;
  for (auto [key, out] : {std::pair<const char*, std::string*>{"port", &s.port},
                          {"switch", &s.switch_},
                          {"host", &s.host},
                          {"reason", &s.reason},
                          {"by", &s.created_by},
                          {"duration", &duration},
                          {"expires_at", &expires_at}}) {
    Status st = StringField(body, key, out);
    if (!st.ok()) return st;
  }
  s.created_at = now;
  if (!duration.empty() && !expires_at.empty()) {
    return Status::InvalidArgument("give \"duration\" or \"expires_at\", not both");
  }
  double seconds = 0;
  if (!duration.empty()) {
    auto d = ParseDuration(duration);
    if (!d.ok()) return Status::InvalidArgument("\"duration\": " + d.status().message());
    seconds = d.value();
    if (seconds <= 0) return Status::InvalidArgument("\"duration\" must be more than 0");
    if (seconds > kMaxSilenceSeconds) {
      return Status::InvalidArgument("\"duration\" " + duration + " is longer than " +
                                     FormatDuration(kMaxSilenceSeconds));
    }
    s.expires_at = now + std::chrono::duration_cast<TimePoint::duration>(Seconds(seconds));
  } else if (!expires_at.empty()) {
    auto t = ParseIsoTime(expires_at);
    if (!t.ok()) return Status::InvalidArgument("\"expires_at\": " + t.status().message());
    s.expires_at = t.value();
    seconds = Seconds(s.expires_at - now).count();
    if (seconds <= 0) {
      return Status::InvalidArgument("\"expires_at\" " + expires_at + " is not in the future");
    }
    if (seconds > kMaxSilenceSeconds) {
      return Status::InvalidArgument("\"expires_at\" " + expires_at + " is more than " +
                                     FormatDuration(kMaxSilenceSeconds) + " from now");
    }
  } else {
    return Status::InvalidArgument(
        "\"duration\" (e.g. \"2h\") or \"expires_at\" (ISO 8601) is required");
  }
  Status valid = ValidateSilence(s);
  if (!valid.ok()) return valid;
  return s;
}

}  // namespace ufmr
