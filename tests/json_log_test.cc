// JsonLogFormatter (src/base/json_log.h): each log line is one JSON object with time, level,
// thread and message; quotes, newlines and invalid UTF-8 in a message keep the line valid JSON.
#include "base/json_log.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace ufmr {
namespace {

TEST(JsonLogTest, EachLineIsAJsonObject) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger log("json-test", sink);
  log.set_formatter(std::make_unique<JsonLogFormatter>());
  log.warn("port {} is \"down\"\nsecond line \xff end", "e41d_1");
  log.info("plain");
  std::istringstream lines(out.str());
  std::string first, second, extra;
  ASSERT_TRUE(std::getline(lines, first));
  ASSERT_TRUE(std::getline(lines, second));
  EXPECT_FALSE(std::getline(lines, extra)) << "one line per message";
  auto j = nlohmann::json::parse(first);  // throws if not valid JSON (or not UTF-8)
  EXPECT_EQ(j["level"], "warning");
  EXPECT_EQ(j["msg"], "port e41d_1 is \"down\"\nsecond line \xef\xbf\xbd end");
  EXPECT_TRUE(j["thread"].is_number_integer());
  std::string time = j["time"];
  EXPECT_EQ(time.size(), 24u) << time;  // 2026-11-30T04:30:00.000Z
  EXPECT_EQ(time.back(), 'Z') << time;
  EXPECT_EQ(nlohmann::json::parse(second)["msg"], "plain");
}

}  // namespace
}  // namespace ufmr
