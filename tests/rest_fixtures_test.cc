// The REST fixtures in tests/testdata/rest/ (UFM's answers as NVIDIA's REST API guide prints them;
// tests/testdata/rest/README.md names each one's source) through the parsers the service uses:
// both event layouts, port names from both message forms, ports (labels from dname, a disabled
// port by its physical state) with a nameless entry skipped, paged links with their cables,
// unhealthy ports named by GUID and number with Condition a string or a list, jobs finished,
// aborted and unknown, and an HTML page where JSON was expected.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

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
  // "name" names the ports; destination_guid is the host system's GUID (before 6.20).
  EXPECT_EQ(links.value()[1].a, "248a070300f88fe0_20");
  EXPECT_EQ(links.value()[1].b, "ec0d9a03007d7d0b_2");
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

namespace ufmr {
namespace {

bool KnownIn(const std::set<std::string>& known, const std::string& name) {
  return known.count(name) > 0;
}

// REST guide 6.11.1 (same in 6.10 to 6.19.3), Links REST API, "?system=" example, verbatim (the
// first two of its entries): a host end's destination_guid is the host system's GUID, the same
// for both of its links, while "name" names the real ports.
TEST(RestFixturesTest, LinksBefore620NameHostEndsByTheirPortsNotTheSystemGuid) {
  int skipped = 0;
  auto links = ParseLinks(Fixture("links_6_11.json"), &skipped);
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  ASSERT_EQ(links->size(), 2u);
  EXPECT_EQ(skipped, 0);
  EXPECT_EQ(links.value()[0].a, "248a070300f88fe0_20");
  EXPECT_EQ(links.value()[0].b, "ec0d9a03007d7d0b_2");
  EXPECT_EQ(links.value()[1].a, "248a070300f88fe0_19");
  EXPECT_EQ(links.value()[1].b, "ec0d9a03007d7d0a_1");
  // The system GUID's form is kept apart, never taken while the name's ports are known.
  EXPECT_EQ(links.value()[0].by_guid,
            (std::vector<std::string>{"248a070300f88fe0_20", "b8599f03000a77d0_2"}));
  const std::set<std::string> ports = {"248a070300f88fe0_20", "248a070300f88fe0_19",
                                       "ec0d9a03007d7d0b_2", "ec0d9a03007d7d0a_1",
                                       "b8599f03000a77d0_2"};
  std::vector<LinkInfo> resolved = links.value();
  EXPECT_EQ(ResolveLinks(&resolved, [&](const std::string& n) { return KnownIn(ports, n); }), 0);
  EXPECT_EQ(resolved[0].b, "ec0d9a03007d7d0b_2") << "not the system GUID's port, though listed";
  EXPECT_TRUE(resolved[0].resolved);

  // Against a ports answer that lists neither host port: counted, never guessed.
  const std::set<std::string> switches_only = {"248a070300f88fe0_20", "248a070300f88fe0_19"};
  resolved = links.value();
  EXPECT_EQ(
      ResolveLinks(&resolved, [&](const std::string& n) { return KnownIn(switches_only, n); }), 2);
  EXPECT_FALSE(resolved[0].resolved);
  std::vector<PortInfo> with_peers(1);
  with_peers[0].name = "248a070300f88fe0_20";
  EXPECT_EQ(FillPeersFromLinks(&with_peers, resolved), 0) << "an unresolved link gives no peer";
  EXPECT_EQ(with_peers[0].peer, "");
}

// Without a name, guid + port is taken only when it names a listed port.
TEST(RestFixturesTest, GuidAndPortOnlyWhenTheyNameAListedPort) {
  auto links = ParseLinks(
      R"([{"source_guid": "248a070300f88fe0", "source_port": "20",
           "destination_guid": "b8599f03000a77d0", "destination_port": "2"}])",
      nullptr);
  ASSERT_TRUE(links.ok());
  const std::set<std::string> listed = {"248a070300f88fe0_20", "b8599f03000a77d0_2"};
  std::vector<LinkInfo> a = links.value();
  EXPECT_EQ(ResolveLinks(&a, [&](const std::string& n) { return KnownIn(listed, n); }), 0);
  EXPECT_EQ(a[0].b, "b8599f03000a77d0_2");
  const std::set<std::string> not_listed = {"248a070300f88fe0_20"};
  std::vector<LinkInfo> b = links.value();
  EXPECT_EQ(ResolveLinks(&b, [&](const std::string& n) { return KnownIn(not_listed, n); }), 1);
}

// REST guide 6.20.0 (same to 6.22.1), Links REST API, "Get All Links", verbatim but for a
// trailing comma: the ends by name.
TEST(RestFixturesTest, LinksFrom620NameTheirEnds) {
  auto links = ParseLinks(Fixture("links_6_20.json"), nullptr);
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  ASSERT_FALSE(links->empty());
  const nlohmann::json raw = nlohmann::json::parse(Fixture("links_6_20.json"));
  EXPECT_EQ(links.value()[0].a, raw[0]["source_port_name"].get<std::string>());
  EXPECT_EQ(links.value()[0].b, raw[0]["destination_port_name"].get<std::string>());
}

// A real UFM's links answer NVIDIA kept in Mellanox/ufm_sdk_3.0 (16faf03a,
// plugins/UFM_NDT_Plugin/.../ufm_samples/links.json), verbatim: "cable_info" is {} when UFM knows
// nothing of the cable. The nested fields as IBM CAST's UFM inventory client reads them
// (csmd/src/inv/ib_and_switch/src/inv_ib_connector_access.cc), "NA" and "N/A" meaning no serial.
TEST(RestFixturesTest, CableInfoIsNestedAndNaIsNoSerial) {
  auto links = ParseLinks(Fixture("links_cable_info.json"), nullptr);
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  ASSERT_EQ(links->size(), 1u);
  EXPECT_EQ(links.value()[0].cable_serial, "") << "{} names no cable";
  EXPECT_EQ(links.value()[0].a, "1c34da0300728606_37");
  for (const char* none : {"NA", "N/A", "na", " N/A "}) {
    auto l = ParseLinks(std::string(R"([{"name": "a_1:b_1", "cable_info": {"part_number":
        "MCP4Y10-N001", "length": "1 m", "serial_number": ")") +
                            none + R"(", "identifier": "OSFP", "technology": "Copper",
        "revision": "A3"}}])",
                        nullptr);
    ASSERT_TRUE(l.ok());
    EXPECT_EQ(l.value()[0].cable_serial, "") << none;
  }
  auto real = ParseLinks(R"([{"name": "a_1:b_1", "cable_info": {"part_number": "MCP4Y10-N001",
      "length": "1 m", "serial_number": "MT2330FT09118", "identifier": "OSFP",
      "technology": "Copper", "revision": "A3"}}])",
                         nullptr);
  ASSERT_TRUE(real.ok());
  EXPECT_EQ(real.value()[0].cable_serial, "MT2330FT09118");
}

}  // namespace
}  // namespace ufmr
