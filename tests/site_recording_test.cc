// Covers src/app/site_recording.h (probe --record) against a peer that echoes what it was sent:
// a UFM whose answers carry the password, the basic-auth header it received, the user's login and
// the fabric's names, in JSON strings with escapes and in the event log. None of it is written;
// what UFM did not answer is listed as missing; the files are the layout ufm-sim --recording
// serves.
#include "app/site_recording.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/text.h"
#include "support/test_env.h"

namespace ufmr::app {
namespace {

TEST(SiteRecordingTest, AnEchoingUfmLeaksNothing) {
  const std::string dir = testing::MakeTempDir("site-recording");
  Config config;
  config.ufm.user = "svc-remediator";
  config.ufm.password = "Pa\"ss\\w0rd-42";  // a quote and a backslash: escaped in JSON
  config.event_log.path = dir + "/event.log";
  const std::string basic = Base64Encode(config.ufm.user + ":" + config.ufm.password);
  testing::WriteFile(config.event_log.path,
                     "2024-05-28 08:03:05.118 [1] [560] INFO [Security] Grid [Grid]: User "
                     "svc-remediator connected from 10.1.2.3\n");
  UfmReads reads;
  reads.rest_get = [&](const std::string& path) -> Result<HttpResult> {
    HttpResult r;
    r.status = 200;
    if (path.rfind("/resources/ports", 0) == 0) {
      r.body = R"([{"name": "9c0591030090e000_1", "description": "Switch IB Port",
        "system_name": "leaf-07", "node_description": "leaf-07:1/1/1", "systemID": "9c0591030090e000"}])";
    } else if (path == "/app/events") {
      nlohmann::json e = nlohmann::json::array(
          {{{"id", 1},
            {"type", "Grid"},
            {"event_type", "560"},
            {"description", "User svc-remediator connected\nwith " + config.ufm.password +
                                " (Authorization: Basic " + basic + ") on leaf-07"}}});
      r.body = e.dump();
    } else if (path == "/jobs") {
      r.status = 404;
      r.body = "no jobs here";
    } else {
      r.body = "[]";
    }
    return r;
  };
  auto recorded = RecordSite(config, reads, {}, dir + "/rec");
  ASSERT_TRUE(recorded.ok()) << recorded.status().ToString();
  EXPECT_NE(recorded->at("missing").dump().find("jobs.json: HTTP 404"), std::string::npos)
      << recorded->dump();
  std::string all;
  for (const auto& f : recorded->at("files")) {
    all += testing::ReadFile(dir + "/rec/" + f.get<std::string>());
  }
  for (const std::string& secret :
       {config.ufm.password, std::string("Pa\\\"ss"), basic, config.ufm.user,
        std::string("leaf-07"), std::string("9c0591030090e000"), std::string("10.1.2.3")}) {
    EXPECT_EQ(all.find(secret), std::string::npos) << secret << " in:\n" << all;
  }
  EXPECT_NE(all.find("redacted"), std::string::npos) << "the echoed credentials were replaced";
  EXPECT_NE(all.find("user-001"), std::string::npos) << all;
  EXPECT_TRUE(
      nlohmann::json::parse(testing::ReadFile(dir + "/rec/events.json"), nullptr, false).is_array())
      << "still the answer's JSON";
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace ufmr::app
