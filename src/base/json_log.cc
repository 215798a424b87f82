#include "base/json_log.h"

#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/json_writer.h"

namespace ufmr {

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  const auto level = spdlog::level::to_string_view(msg.level);
  JsonWriter w;
  w.BeginObject();
  w.Key("time").String(FormatIsoTime(std::chrono::time_point_cast<TimePoint::duration>(msg.time)));
  w.Key("level").String(std::string_view(level.data(), level.size()));
  w.Key("thread").Int(static_cast<int64_t>(msg.thread_id));
  w.Key("msg").String(std::string_view(msg.payload.data(), msg.payload.size()));
  w.EndObject();
  const std::string& line = w.str();
  dest.append(line.data(), line.data() + line.size());
  dest.push_back('\n');
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

}  // namespace ufmr
