// The REST fixtures in tests/testdata/rest/ (UFM's answers as NVIDIA's REST API guide prints them;
// tests/testdata/rest/README.md names each one's source) through the parsers the service uses:
// both event layouts, port names from both message forms, ports (labels from dname, a disabled
// port by its physical state) with a nameless entry skipped, paged links with their cables,
// unhealthy ports named by GUID and number with Condition a string or a list, jobs finished,
// aborted and unknown, and an HTML page where JSON was expected.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http/http_server.h"
#include "ingest/rest_event.h"
#include "support/test_env.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"
#include "ufm/ufm_event.h"

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
  // The object names a port: it is the authority, as in the event log (the old message form can
  // name a host by its node GUID); the inventory gives the link's other end.
  EXPECT_EQ(o.ports, (std::vector<std::string>{"f4521403008817f0_12"}));
  UfmEvent bare = down;
  bare.object_name = bare.object_path = "Grid";
  EXPECT_EQ(ToObservation(bare, TimePoint()).ports,
            (std::vector<std::string>{"f4521403008817f0_12", "e41d2d0300a4f482_1"}))
      << "an object without ports: the message's";
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
  ASSERT_EQ(ports->size(), 4u);
  EXPECT_EQ(skipped, 1);
  const PortInfo& sw = ports.value()[0];
  EXPECT_EQ(sw.system_guid, "9c0591030090e000");
  EXPECT_EQ(sw.label, "1/17/1") << "from dname: real ports have no label field";
  EXPECT_EQ(sw.peer, "fc6a1c0300244e00_8");
  EXPECT_TRUE(sw.is_switch());
  EXPECT_EQ(sw.admin_state(), AdminState::kEnabled);
  EXPECT_EQ(ports.value()[1].label, "1/4/2");
  EXPECT_TRUE(ports.value()[1].disabled()) << "physical_state Disabled, logical_state Down";
  EXPECT_FALSE(ports.value()[1].link_up());
  const PortInfo& hca = ports.value()[2];
  EXPECT_FALSE(hca.is_switch());
  EXPECT_EQ(hca.system_guid, "e41d2d0300062300") << "actions need the system GUID, not the port's";
  EXPECT_EQ(hca.peer, "");
  EXPECT_EQ(hca.label, "1");
  const PortInfo& sample = ports.value()[3];
  EXPECT_EQ(sample.label, "1") << "dname is the number where a switch has no labels";
  EXPECT_EQ(sample.admin_state(), AdminState::kEnabled) << "logical N/A, physical Link Up";
  // The label resolves a "<switch>:<label>" reference, as event messages name ports.
  Inventory inventory;
  inventory.Replace(ports.value());
  EXPECT_EQ(inventory.FindByDescription("T4-E45-L-U51:1/4/2"), "fc6a1c0300244e00_8");
  EXPECT_EQ(inventory.FindByDescription("T3-E21-N-U47:17/1"), "9c0591030090e000_33");
  // A host port as an IBPort object names it: its node description and number.
  EXPECT_EQ(inventory.FindByDescription("fsgb001 HCA-1:1"), "e41d2d0300062380_1");
  EXPECT_EQ(inventory.FindByDescription("FSGB001 hca-1:1"), "e41d2d0300062380_1");
  EXPECT_FALSE(inventory.FindByDescription("fsgb001 HCA-1:2").has_value());
}

TEST(RestFixturesTest, LinksPagedWithTheirCables) {
  int skipped = 0;
  auto links = ParseLinks(Fixture("links_paged.json"), &skipped);
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  ASSERT_EQ(links->size(), 2u);
  EXPECT_EQ(skipped, 0);
  EXPECT_EQ(links.value()[0].a, "900a840300ac8c40_5");
  EXPECT_EQ(links.value()[0].b, "9c0591030085abc0_5");
  EXPECT_EQ(links.value()[0].cable_serial, "MT2330FT09118");
  EXPECT_EQ(links.value()[1].a, "248a070300f88fe0_20");
  EXPECT_EQ(links.value()[1].b, "b8599f03000a77d0_2");
  EXPECT_EQ(links.value()[1].cable_serial, "");
  auto nested = ParseLinks(
      R"([{"source_guid": "a000000000000001", "source_port": "1", "destination_guid":
      "a000000000000002", "destination_port": "2", "cable_info": {"serial_number": "S1"}}])",
      &skipped);
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested.value()[0].cable_serial, "S1") << "a cable_info object is read too";
}

TEST(RestFixturesTest, UnhealthyPortsNameAPortByGuidAndNumber) {
  int skipped = 0;
  auto list = ParseUnhealthyPorts(Fixture("unhealthy_ports.json"), &skipped);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(skipped, 0);
  const UnhealthyPort& u = list.value()[0];
  EXPECT_EQ(u.port, "248a0703002e628e_1") << "not the display path r-dmz-ufm135/HCA-1/1";
  EXPECT_EQ(u.condition, "MANUAL");
  EXPECT_TRUE(u.manual()) << "a person's isolation is recognised";
  EXPECT_EQ(u.node, "r-dmz-ufm135");
  EXPECT_EQ(u.peer_port, "switch-ec4034/6");

  auto one = ParseUnhealthyPorts(Fixture("unhealthy_port_6_19.json"), &skipped);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ(one.value()[0].port, "ec0d9a0300d42e54_1") << "UnhealthyPort is just \"1\"";
  EXPECT_EQ(one.value()[0].condition, "MANUAL");
  EXPECT_TRUE(one.value()[0].manual()) << "Condition as a list";
  EXPECT_EQ(one.value()[0].node, "r-ufm59 mlx5_0");
  EXPECT_EQ(skipped, 0);
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
    if (r.path == "/ufmRest/jobs/57")
      return HttpResponse::Text(200, Fixture("job_aborted.json"), "application/json");
    if (r.path == "/ufmRest/jobs/58")
      return HttpResponse::Text(200, Fixture("job_unknown.json"), "application/json");
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
  auto aborted = client.GetJob("57");
  ASSERT_TRUE(aborted.ok()) << aborted.status().ToString();
  EXPECT_TRUE(aborted->done()) << "every status but Running is final";
  EXPECT_FALSE(aborted->ok());
  auto unknown = client.GetJob("58");
  EXPECT_EQ(unknown.status().code(), Status::Code::kNotFound) << "UFM answers [] for it";
}

}  // namespace
}  // namespace ufmr
