// SecretMask: every configured secret, masked at the program's edges. Loading a config registers
// its secrets (MaskConfigSecrets): the UFM password and token and basic auth's header value, the
// database URL's password, SMTP passwords (and the base64 forms SMTP AUTH sends), and each
// receiver URL with its secret parts (its user info's password and their basic auth value, and
// each path segment or query value that looks like a key: 6 or more characters that are not a
// plain lowercase word, or 16 or more of any kind; and every query value whose name says secret:
// token, key, secret, sig, auth, pass, code, session). Each is also masked percent-encoded and as
// JSON escapes it ("\/"). A form that starts (ends) with a letter or digit is masked only where
// no letter or digit goes before (after) it: "123456" in "password=123456", not in "1771234567".
// The edges apply it to whatever they show, whatever its origin, including what UFM, Slurm, a
// receiver or PostgreSQL sent back: every log line (MaskedLogFormatter), the program's standard
// output and error, every HTTP answer (app/masked_output.h; JSON by its strings, /metrics by its
// names, labels and help), and the external text the service stores (Excerpt, masked before it
// is cut, so a cut never leaves a secret's head). A secret shorter than 4 characters is not
// masked. Thread-safe: matching takes no lock.
#pragma once

#include <spdlog/formatter.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace ufmr {

struct Config;

inline constexpr const char* kMasked = "***";

class SecretMask {
 public:
  // The process's mask, which the edges apply.
  static SecretMask& Global();

  // A secret, as it is and in its encoded forms.
  void Add(std::string_view secret);
  // A URL a secret may hide in: the whole of it, and its secret parts (see above).
  void AddUrl(std::string_view url);
  // `text` with every secret replaced by kMasked.
  std::string Mask(std::string_view text) const;
  // Masks in place; false when there was nothing to mask.
  bool MaskInPlace(std::string* text) const;
  // The masked text cut to at most `max` bytes (a "..." marks the cut).
  std::string Excerpt(std::string_view text, size_t max) const;
  // Forgets every secret (tests).
  void Clear();
  // No secret to mask.
  bool empty() const { return empty_.load(std::memory_order_relaxed); }
  // Whether `text` holds a secret.
  bool Holds(std::string_view text) const;

 private:
  std::mutex mu_;                     // serialises Add and Clear
  std::vector<std::string> secrets_;  // every form, distinct (with mu_)
  // Their alternation, longest first; null: none. Replaced whole by Add.
  std::atomic<std::shared_ptr<const re2::RE2>> pattern_;
  std::atomic<bool> empty_{true};
  std::atomic<size_t> longest_{0};  // the longest form's length
};

// Registers the config's secrets with the global mask.
void MaskConfigSecrets(const Config& c);

// Whether a path segment or query value of a URL looks like a key (see above).
bool LooksLikeKey(std::string_view part);

// Formats log lines with `inner` after masking their message.
class MaskedLogFormatter final : public spdlog::formatter {
 public:
  explicit MaskedLogFormatter(std::unique_ptr<spdlog::formatter> inner)
      : inner_(std::move(inner)) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  std::unique_ptr<spdlog::formatter> inner_;
};

}  // namespace ufmr
