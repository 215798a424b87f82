// The REST fixtures in tests/testdata/rest/ (written from the documented UFM shapes) through the
// parsers the service uses: both event layouts, port names from both message forms, the ports
// list with a nameless entry skipped, and an HTML page where JSON was expected.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/http_server.h"
#include "core/inventory.h"
#include "core/ufm_client.h"
#include "core/ufm_event.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

std::string Fixture(const std::string& name) { return testing::ReadFixture("rest/" + name); }

TEST(RestFixturesTest, EventsUpTo616) {
  auto events = ParseUfmEvents(Fixture("events_6_16.json"));
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->events.size(), 3u);
  EXPECT_TRUE(events->errors.empty());
  const UfmEvent& down = events->events[1];
  EXPECT_EQ(down.id, 228);
  EXPECT_EQ(down.event_type, 329);
  EXPECT_EQ(down.object_type, "");
  EXPECT_EQ(down.timestamp, "2017-09-19 10:51:12.443");
  Observation o = ToObservation(down, TimePoint());
  EXPECT_EQ(o.ports, (std::vector<std::string>{"f4521403008817f0_12", "e41d2d0300a4f482_1"}));
}

TEST(RestFixturesTest, EventsFrom617) {
  auto events = ParseUfmEvents(Fixture("events_6_17.json"));
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->events.size(), 3u);
  EXPECT_EQ(events->events[0].event_type, 67);
  EXPECT_EQ(events->events[0].object_type, "Site");
  const UfmEvent& down = events->events[1];
  EXPECT_EQ(down.event_type, 329);
  EXPECT_EQ(down.object_type, "Link");
  Observation o = ToObservation(down, TimePoint());
  EXPECT_EQ(o.ports, (std::vector<std::string>{"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
  EXPECT_EQ(events->events[2].event_type, 702);
}

TEST(RestFixturesTest, PortsWithANamelessEntrySkipped) {
  int skipped = 0;
  auto ports = ParsePorts(Fixture("ports.json"), &skipped);
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  ASSERT_EQ(ports->size(), 3u);
  EXPECT_EQ(skipped, 1);
  const PortInfo& sw = ports.value()[0];
  EXPECT_EQ(sw.system_guid, "9c0591030090e000");
  EXPECT_EQ(sw.label, "1/17/1");
  EXPECT_EQ(sw.peer, "fc6a1c0300244e00_8");
  EXPECT_TRUE(sw.is_switch());
  EXPECT_TRUE(ports.value()[1].disabled());
  const PortInfo& hca = ports.value()[2];
  EXPECT_FALSE(hca.is_switch());
  EXPECT_EQ(hca.system_guid, "e41d2d0300062300") << "actions need the system GUID, not the port's";
  EXPECT_EQ(hca.peer, "");
}

TEST(RestFixturesTest, HtmlWhereJsonWasExpectedIsAnError) {
  EXPECT_FALSE(ParseUfmEvents(Fixture("login_page.html")).ok());
  EXPECT_FALSE(ParsePorts(Fixture("login_page.html"), nullptr).ok());
}

TEST(RestFixturesTest, ClientReadsTheJobFixture) {
  // A stand-in UFM serving the fixture, and the real client reading it.
  HttpServer ufm("127.0.0.1", 0, [](const HttpRequest& r) {
    if (r.path == "/ufmRest/jobs/42")
      return HttpResponse::Text(200, Fixture("job_completed.json"), "application/json");
    if (r.path == "/ufmRest/jobs/43")
      return HttpResponse::Text(200, Fixture("login_page.html"), "text/html");
    return HttpResponse::Error(404, "no such job");
  });
  ASSERT_TRUE(ufm.Start().ok());
  Config config;
  config.ufm.url = "http://127.0.0.1:" + std::to_string(ufm.port());
  config.ufm.password = "x";
  RestUfmClient client(config, [](double) {});
  auto job = client.GetJob("42");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_TRUE(job->done());
  EXPECT_TRUE(job->ok());
  EXPECT_EQ(job->summary, "Port fc6a1c0300244e00_8 disabled");
  EXPECT_FALSE(client.GetJob("43").ok());
  EXPECT_EQ(client.GetJob("44").status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace ufmr
