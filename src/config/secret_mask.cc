#include "config/secret_mask.h"

#include <re2/re2.h>

#include <algorithm>
#include <set>

#include "base/text.h"
#include "config/config.h"
#include "config/db_url.h"

namespace ufmr {

namespace {

constexpr size_t kShortest = 4;  // shorter secrets are not masked: they would mask words

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

bool WordChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

std::string PercentEncoded(std::string_view s, const char* hex) {
  std::string out;
  for (unsigned char c : s) {
    if (Unreserved(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string PercentDecoded(std::string_view s) {
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && value(s[i + 1]) >= 0 && value(s[i + 2]) >= 0) {
      out += static_cast<char>(value(s[i + 1]) * 16 + value(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// As JSON writers escape it: `slash` also escapes '/' ("\/"), as some do.
std::string JsonEscaped(std::string_view s, bool slash) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\' || (slash && c == '/')) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      static const char* kHex = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A form as a pattern: one that starts (ends) with a letter or digit matches only where none goes
// before (after) it.
std::string Bounded(const std::string& form) {
  return (WordChar(form.front()) ? "\\b" : "") + RE2::QuoteMeta(form) +
         (WordChar(form.back()) ? "\\b" : "");
}

// A query parameter's name that says its value is a secret (token=, api_key=, sig=, ...).
bool NamesASecret(const std::string& name) {
  const std::string lower = AsciiLower(name);
  for (const char* word : {"token", "key", "secret", "sig", "auth", "pass", "code", "session"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> Split(std::string_view s, char by) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(by, start);
    if (end == std::string_view::npos) end = s.size();
    out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

SecretMask& SecretMask::Global() {
  static SecretMask* mask = new SecretMask();  // never destroyed: logging outlives main
  return *mask;
}

bool LooksLikeKey(std::string_view part) {
  if (part.size() >= 16) return true;
  if (part.size() < 6) return false;
  return !std::all_of(part.begin(), part.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || c == '-' || c == '_' || c == '.';
  });
}

void SecretMask::Add(std::string_view secret) {
  if (secret.size() < kShortest) return;
  std::set<std::string> forms = {std::string(secret), PercentEncoded(secret, "0123456789ABCDEF"),
                                 PercentEncoded(secret, "0123456789abcdef"),
                                 JsonEscaped(secret, false), JsonEscaped(secret, true)};
  std::lock_guard<std::mutex> lock(mu_);
  bool added = false;
  for (const auto& f : forms) {
    if (std::find(secrets_.begin(), secrets_.end(), f) != secrets_.end()) continue;
    secrets_.push_back(f);
    added = true;
  }
  if (!added) return;
  std::vector<std::string> order = secrets_;
  std::sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  std::string alternation;
  for (const auto& s : order) alternation += (alternation.empty() ? "" : "|") + Bounded(s);
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);  // secrets and text as bytes
  options.set_max_mem(64 << 20);
  options.set_log_errors(false);
  auto pattern = std::make_shared<const RE2>("(?:" + alternation + ")", options);
  if (!pattern->ok()) return;
  longest_.store(order.front().size());
  pattern_.store(std::move(pattern));  // readers never wait for the compile above
  empty_.store(false);
}

void SecretMask::AddUrl(std::string_view url) {
  if (url.empty()) return;
  Add(url);
  std::string_view rest = url;
  if (size_t scheme = rest.find("://"); scheme != std::string_view::npos) {
    rest.remove_prefix(scheme + 3);
  }
  const size_t path_at = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_at);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    if (size_t colon = userinfo.find(':'); colon != std::string_view::npos) {
      const std::string user = PercentDecoded(userinfo.substr(0, colon));
      const std::string password = PercentDecoded(userinfo.substr(colon + 1));
      Add(userinfo.substr(colon + 1));
      Add(password);
      Add(Base64Encode(user + ":" + password));  // the Authorization header curl sends
    }
  }
  if (path_at == std::string_view::npos) return;
  std::string_view tail = rest.substr(path_at);
  tail = tail.substr(0, tail.find('#'));
  const size_t query_at = tail.find('?');
  for (const auto& segment : Split(tail.substr(0, query_at), '/')) {
    if (LooksLikeKey(segment)) {
      Add(segment);
      Add(PercentDecoded(segment));
    }
  }
  if (query_at == std::string_view::npos) return;
  for (const auto& pair : Split(tail.substr(query_at + 1), '&')) {
    const size_t eq = pair.find('=');
    const std::string value = eq == std::string::npos ? pair : pair.substr(eq + 1);
    if (LooksLikeKey(value) || (eq != std::string::npos && NamesASecret(pair.substr(0, eq)))) {
      Add(value);
      Add(PercentDecoded(value));
    }
  }
}

bool SecretMask::Holds(std::string_view text) const {
  if (empty()) return false;
  auto pattern = pattern_.load();
  return pattern && RE2::PartialMatch(text, *pattern);
}

bool SecretMask::MaskInPlace(std::string* text) const {
  if (empty() || text->empty()) return false;
  auto pattern = pattern_.load();
  return pattern && RE2::GlobalReplace(text, *pattern, kMasked) > 0;
}

std::string SecretMask::Mask(std::string_view text) const {
  std::string out(text);
  MaskInPlace(&out);
  return out;
}

std::string SecretMask::Excerpt(std::string_view text, size_t max) const {
  // Only what can reach the cut: a secret that starts before it ends within this much.
  const size_t reach = max + longest_.load() + 1;
  std::string out = Mask(text.substr(0, reach));
  if (out.size() <= max && text.size() <= reach) return out;
  size_t cut = std::min(max, out.size());
  while (cut > 0 && cut < out.size() && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) {
    --cut;  // not inside a UTF-8 character
  }
  out.resize(cut);
  return out + "...";
}

void SecretMask::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  secrets_.clear();
  pattern_.store(nullptr);
  longest_.store(0);
  empty_.store(true);
}

void MaskConfigSecrets(const Config& c) {
  SecretMask& mask = SecretMask::Global();
  mask.Add(c.ufm.password);
  mask.Add(c.ufm.token);
  if (!c.ufm.password.empty()) mask.Add(Base64Encode(c.ufm.user + ":" + c.ufm.password));
  for (const auto& form : DatabasePasswordForms(c.database.url)) mask.Add(form);
  for (const auto& r : c.notify.receivers) {
    mask.AddUrl(r.url);
    if (r.password.empty()) continue;
    mask.Add(r.password);
    mask.Add(Base64Encode(r.password));                                             // AUTH LOGIN
    mask.Add(Base64Encode(std::string(1, '\0') + r.username + '\0' + r.password));  // PLAIN
    mask.Add(Base64Encode(r.username + ":" + r.password));
  }
}

void MaskedLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  if (SecretMask::Global().empty()) return inner_->format(msg, dest);
  std::string payload(msg.payload.data(), msg.payload.size());
  if (!SecretMask::Global().MaskInPlace(&payload)) return inner_->format(msg, dest);
  spdlog::details::log_msg masked = msg;
  masked.payload = spdlog::string_view_t(payload.data(), payload.size());
  inner_->format(masked, dest);
}

std::unique_ptr<spdlog::formatter> MaskedLogFormatter::clone() const {
  return std::make_unique<MaskedLogFormatter>(inner_->clone());
}

}  // namespace ufmr
