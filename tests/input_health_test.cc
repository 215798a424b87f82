// Covers src/ingest/input_health.h (InputHealth): off when not enabled (or never declared), waiting
// before any attempt, ok after a success, failing while the last attempt failed and ok again after
// a later success, stale once no success came for more than max(3 intervals, 60 s) (at explicit
// TimePoints on both sides of the bound), and ToJson's fields per input in declaration order.
#include "ingest/input_health.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace ufmr {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const TimePoint kT0 = TimePoint(seconds(1'800'000'000));

TEST(InputHealthTest, OffWhenNotEnabledOrUnknown) {
  InputHealth h;
  h.Configure("syslog", false, 10);
  EXPECT_EQ(h.State("syslog", kT0), "off");
  h.Ok("syslog", kT0);
  EXPECT_EQ(h.State("syslog", kT0), "off") << "a success does not turn a disabled input on";
  h.Failed("syslog", kT0 + seconds(1), "bind: address in use");
  EXPECT_EQ(h.State("syslog", kT0 + seconds(1)), "off");
  EXPECT_EQ(h.State("never_declared", kT0), "off");
}

TEST(InputHealthTest, WaitingBeforeAnyAttempt) {
  InputHealth h;
  h.Configure("rest_events", true, 5);
  EXPECT_EQ(h.State("rest_events", kT0), "waiting");
  EXPECT_EQ(h.State("rest_events", kT0 + std::chrono::hours(1)), "waiting");
}

TEST(InputHealthTest, OkAfterASuccess) {
  InputHealth h;
  h.Configure("inventory", true, 30);
  h.Ok("inventory", kT0, "1024 ports");
  EXPECT_EQ(h.State("inventory", kT0), "ok");
  EXPECT_EQ(h.State("inventory", kT0 + seconds(30)), "ok");
}

TEST(InputHealthTest, FailingWhileTheLastAttemptFailedThenOkAgain) {
  InputHealth h;
  h.Configure("telemetry", true, 10);
  h.Failed("telemetry", kT0, "connection refused");
  EXPECT_EQ(h.State("telemetry", kT0), "failing") << "a first attempt that failed";
  h.Ok("telemetry", kT0 + seconds(10));
  EXPECT_EQ(h.State("telemetry", kT0 + seconds(10)), "ok");
  h.Failed("telemetry", kT0 + seconds(20), "timeout");
  EXPECT_EQ(h.State("telemetry", kT0 + seconds(21)), "failing")
      << "fails right after a success, well inside the stale bound";
  h.Ok("telemetry", kT0 + seconds(30));
  EXPECT_EQ(h.State("telemetry", kT0 + seconds(31)), "ok");
}

TEST(InputHealthTest, StaleAfterThreeIntervals) {
  InputHealth h;
  h.Configure("inventory", true, 60);  // 3 intervals = 180 s > 60 s
  h.Ok("inventory", kT0);
  EXPECT_EQ(h.State("inventory", kT0 + seconds(179)), "ok");
  EXPECT_EQ(h.State("inventory", kT0 + seconds(180)), "ok") << "exactly at the bound";
  EXPECT_EQ(h.State("inventory", kT0 + seconds(180) + milliseconds(1)), "stale");
  EXPECT_EQ(h.State("inventory", kT0 + std::chrono::hours(2)), "stale");
  h.Ok("inventory", kT0 + std::chrono::hours(2));
  EXPECT_EQ(h.State("inventory", kT0 + std::chrono::hours(2)), "ok");
}

TEST(InputHealthTest, StaleNeverBeforeAMinute) {
  InputHealth h;
  h.Configure("rest_events", true, 5);  // 3 intervals = 15 s < 60 s
  h.Ok("rest_events", kT0);
  EXPECT_EQ(h.State("rest_events", kT0 + seconds(16)), "ok");
  EXPECT_EQ(h.State("rest_events", kT0 + seconds(60)), "ok");
  EXPECT_EQ(h.State("rest_events", kT0 + seconds(61)), "stale");
}

TEST(InputHealthTest, AFailureAfterALongSilenceIsFailingNotStale) {
  InputHealth h;
  h.Configure("telemetry", true, 10);
  h.Ok("telemetry", kT0);
  h.Failed("telemetry", kT0 + seconds(600), "timeout");
  EXPECT_EQ(h.State("telemetry", kT0 + seconds(601)), "failing");
}

TEST(InputHealthTest, ReconfiguringKeepsTheHistory) {
  InputHealth h;
  h.Configure("telemetry", true, 10);
  h.Ok("telemetry", kT0);
  h.Configure("telemetry", true, 600);  // 3 intervals = 30 min
  EXPECT_EQ(h.State("telemetry", kT0 + seconds(1000)), "ok");
  h.Configure("telemetry", false, 600);
  EXPECT_EQ(h.State("telemetry", kT0), "off");
}

TEST(InputHealthTest, ToJsonFieldsInDeclarationOrder) {
  InputHealth h;
  h.Configure("rest_events", true, 5);
  h.Configure("inventory", true, 30);
  h.Configure("telemetry", true, 10);
  h.Configure("syslog", false, 0);
  h.Ok("rest_events", kT0, "event 1234");
  h.Ok("inventory", kT0);
  h.Failed("inventory", kT0 + seconds(5), "HTTP 502");
  h.Failed("inventory", kT0 + seconds(35), "HTTP 503");

  nlohmann::json j = h.ToJson(kT0 + seconds(40));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[0]["name"], "rest_events");
  EXPECT_EQ(j[1]["name"], "inventory");
  EXPECT_EQ(j[2]["name"], "telemetry");
  EXPECT_EQ(j[3]["name"], "syslog");

  for (const auto& in : j) {
    for (const char* field : {"name", "enabled", "state", "last_ok_at", "last_error",
                              "last_error_at", "detail", "interval_s", "failures"}) {
      EXPECT_TRUE(in.contains(field)) << in["name"] << " lacks " << field;
    }
    EXPECT_EQ(in.size(), 9u) << in.dump();
  }

  const auto& ok = j[0];
  EXPECT_EQ(ok["enabled"], true);
  EXPECT_EQ(ok["state"], "ok");
  EXPECT_EQ(ok["last_ok_at"], FormatIsoTime(kT0));
  EXPECT_TRUE(ok["last_error"].is_null());
  EXPECT_TRUE(ok["last_error_at"].is_null());
  EXPECT_EQ(ok["detail"], "event 1234");
  EXPECT_DOUBLE_EQ(ok["interval_s"].get<double>(), 5);
  EXPECT_EQ(ok["failures"], 0);

  const auto& failing = j[1];
  EXPECT_EQ(failing["state"], "failing");
  EXPECT_EQ(failing["last_ok_at"], FormatIsoTime(kT0));
  EXPECT_EQ(failing["last_error"], "HTTP 503");
  EXPECT_EQ(failing["last_error_at"], FormatIsoTime(kT0 + seconds(35)));
  EXPECT_EQ(failing["failures"], 2) << "failures in a row";
  EXPECT_EQ(failing["detail"], "");

  const auto& waiting = j[2];
  EXPECT_EQ(waiting["state"], "waiting");
  EXPECT_TRUE(waiting["last_ok_at"].is_null());

  const auto& off = j[3];
  EXPECT_EQ(off["enabled"], false);
  EXPECT_EQ(off["state"], "off");
}

TEST(InputHealthTest, ASuccessResetsTheFailuresInARowAndReplacesTheDetail) {
  InputHealth h;
  h.Configure("inventory", true, 30);
  h.Ok("inventory", kT0, "1024 ports");
  h.Failed("inventory", kT0 + seconds(30), "HTTP 502");
  h.Failed("inventory", kT0 + seconds(60), "HTTP 502");
  EXPECT_EQ(h.ToJson(kT0 + seconds(60))[0]["failures"], 2);
  h.Ok("inventory", kT0 + seconds(90), "1030 ports");
  nlohmann::json j = h.ToJson(kT0 + seconds(90));
  EXPECT_EQ(j[0]["failures"], 0);
  EXPECT_EQ(j[0]["state"], "ok");
  EXPECT_EQ(j[0]["detail"], "1030 ports");
  // A clean poll after one that skipped malformed events clears what that one said.
  h.Ok("inventory", kT0 + seconds(120));
  EXPECT_EQ(h.ToJson(kT0 + seconds(120))[0]["detail"], "");
}

}  // namespace
}  // namespace ufmr
