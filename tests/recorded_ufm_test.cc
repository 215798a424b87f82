// Covers src/sim/recorded_ufm.h (ufm-sim --recording) in process: a recording that cannot be
// read is an error naming its file; a loaded one keeps UFM's ways in (wrong credentials 401, the
// session and token prefixes as ufm-sim's), answers an unknown job with [], refuses a bad action,
// a fault on a port it has no link of and a port not named <guid>_<n>, and after a link fault
// stops listing the link and says 329 in the recording's layout.
#include "sim/recorded_ufm.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "base/text.h"
#include "support/test_env.h"

namespace ufmr::sim {
namespace {

using nlohmann::json;

HttpRequest Request(const std::string& method, const std::string& path,
                    const std::string& body = "", const std::string& auth = "admin:123456") {
  HttpRequest r;
  r.method = method;
  r.path = path;
  r.target = path;
  r.body = body;
  if (!auth.empty()) r.headers["authorization"] = "Basic " + Base64Encode(auth);
  return r;
}

TEST(RecordedUfmTest, AnUnreadableRecordingNamesItsFile) {
  const std::string dir = testing::MakeTempDir("recorded-ufm");
  auto none = RecordedUfm::Load(dir, "admin", "123456");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("ports.json"), std::string::npos);
  testing::WriteFile(dir + "/ports.json", "[{\"name\": ");
  auto bad = RecordedUfm::Load(dir, "admin", "123456");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("ports.json is not JSON"), std::string::npos);
  testing::WriteFile(dir + "/ports.json", "[]");
  EXPECT_FALSE(RecordedUfm::Load(dir, "admin", "123456").ok()) << "a recording without ports";
  testing::RemoveTree(dir);
}

TEST(RecordedUfmTest, ItKeepsUfmsWaysInAndRefusesWhatItCannotDo) {
  auto ufm = RecordedUfm::Load(testing::SourceDir() + "/tests/testdata/recorded/6.10-6.16", "admin",
                               "123456");
  ASSERT_TRUE(ufm.ok()) << ufm.status().ToString();
  RecordedUfm& u = *ufm.value();
  EXPECT_EQ(u.ufm_version(), 616);
  EXPECT_EQ(u.Answer(Request("GET", "/ufmRest/app/events", "", "admin:wrong")).status, 401);
  EXPECT_EQ(u.Answer(Request("GET", "/ufmRestV3/app/events", "", "")).status, 401);
  EXPECT_EQ(u.Answer(Request("GET", "/ufmRest/jobs/99")).body, "[]");
  EXPECT_EQ(u.Answer(Request("POST", "/ufmRest/actions", "{\"action\": \"reset\"}")).status, 400);
  EXPECT_EQ(
      u.Answer(Request("POST", "/sim/faults", R"({"kind": "link_down", "port": "x_1"})")).status,
      404);
  EXPECT_EQ(u.Answer(Request("POST", "/sim/faults", R"({"kind": "flap", "port": "x_1"})")).status,
            400);

  const size_t links =
      json::parse(u.Answer(Request("GET", "/ufmRest/resources/links")).body).size();
  ASSERT_EQ(u.Answer(Request("POST", "/sim/faults",
                             R"({"kind": "link_down", "port": "e41d2d0300062480_1"})"))
                .status,
            200);
  EXPECT_EQ(json::parse(u.Answer(Request("GET", "/ufmRest/resources/links")).body).size(),
            links - 1)
      << "a link that is down is no longer listed";
  const json events = json::parse(u.Answer(Request("GET", "/ufmRest/app/events")).body);
  EXPECT_EQ(events.back()["type"], "329") << "the recording's layout: the id in type (6.16)";
  EXPECT_FALSE(events.back().contains("event_type"));
  EXPECT_EQ(events.back()["name"], "Link is Down");
}

}  // namespace
}  // namespace ufmr::sim
