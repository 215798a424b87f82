// SecretMask: every configured secret, masked at the program's edges. Loading a config registers
// its secrets (MaskConfigSecrets): the UFM password and token and basic auth's header value, the
// database URL's password, SMTP passwords (and the base64 forms SMTP AUTH sends), and each
// receiver URL with its secret parts (the password in its user info, and each path segment or
// query value that looks like a key: 6 or more characters that are not a plain lowercase word, or
// 16 or more of any kind). Each is also masked as percent-encoded and as JSON escapes it ("\/").
// The edges apply it to whatever they show, whatever its origin, including what UFM, Slurm, a
// receiver or PostgreSQL sent back: every log line (MaskedLogFormatter), the program's standard
// output and error (app/masked_output.h), every HTTP answer, and the external text the service
// stores (Excerpt, before a body is cut short, so a cut never leaves a secret's head). A
// secret shorter than 4 characters is not masked. Thread-safe: matching never waits for Add.
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

 private:
  std::shared_ptr<const re2::RE2> Pattern() const;

  mutable std::mutex mu_;
  std::vector<std::string> secrets_;         // every form, distinct
  std::shared_ptr<const re2::RE2> pattern_;  // their alternation, longest first; null: none
  std::atomic<bool> empty_{true};
};

// Registers the config's secrets with the global mask.
void MaskConfigSecrets(const Config& c);

// Whether a part of a URL (a path segment, a query value) looks like a key (see above).
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
