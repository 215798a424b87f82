// JsonLogFormatter: spdlog lines as JSON objects, one per line, for log shippers
// (`log.format: json`): {"time": ISO 8601 UTC, "level", "thread", "msg"}. The message is escaped
// (quotes, newlines, control characters) and made UTF-8-clean, so a line from UFM's text never
// breaks the line's JSON. Stateless; thread-safe as spdlog uses it.
#pragma once

#include <spdlog/formatter.h>

#include <memory>

namespace ufmr {

class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

}  // namespace ufmr
