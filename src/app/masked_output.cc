#include "app/masked_output.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

#include "base/json_log.h"
#include "config/secret_mask.h"

namespace ufmr::app {

bool MaskedLineBuf::Emit(size_t upto) {
  std::string chunk = SecretMask::Global().Mask(std::string_view(line_).substr(0, upto));
  line_.erase(0, upto);
  const auto size = static_cast<std::streamsize>(chunk.size());
  failed_ = failed_ || out_->sputn(chunk.data(), size) != size;
  return !failed_;
}

MaskedLineBuf::int_type MaskedLineBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  line_ += traits_type::to_char_type(c);
  if (line_.back() == '\n' && !Emit(line_.size())) return traits_type::eof();
  return failed_ ? traits_type::eof() : c;
}

std::streamsize MaskedLineBuf::xsputn(const char* s, std::streamsize n) {
  if (line_.empty() && SecretMask::Global().empty()) {
    // No secret to mask (replay, rules commands): straight through.
    const std::streamsize wrote = out_->sputn(s, n);
    failed_ = failed_ || wrote != n;
    return wrote;
  }
  line_.append(s, static_cast<size_t>(n));
  const size_t newline = line_.rfind('\n');
  if (newline != std::string::npos && !Emit(newline + 1)) return 0;
  return failed_ ? 0 : n;
}

int MaskedLineBuf::sync() {
  if (!line_.empty()) Emit(line_.size());
  return out_->pubsync() == 0 && !failed_ ? 0 : -1;
}

void MaskOutput(const std::string& pattern) {
  // Never destroyed: the streams are flushed through them at exit.
  std::cout.rdbuf(new MaskedLineBuf(std::cout.rdbuf()));
  std::cerr.rdbuf(new MaskedLineBuf(std::cerr.rdbuf()));
  spdlog::set_formatter(
      std::make_unique<MaskedLogFormatter>(std::make_unique<spdlog::pattern_formatter>(pattern)));
}

void UseJsonLogs() {
  spdlog::set_formatter(std::make_unique<MaskedLogFormatter>(std::make_unique<JsonLogFormatter>()));
}

void MaskAnswer(HttpResponse* answer) {
  const SecretMask& mask = SecretMask::Global();
  mask.MaskInPlace(&answer->body);
  for (auto& [name, value] : answer->headers) mask.MaskInPlace(&value);
}

}  // namespace ufmr::app
