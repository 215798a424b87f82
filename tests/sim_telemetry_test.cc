// The simulator's telemetry as the service reads it: the real SimServer over loopback (a
// FakeClock, no sleeps), its /csv/metrics and its /resources/ports in an Inventory. Host rows
// carry a port number that is not UFM's (HCA-k says k, UFM numbers every HCA port 1) and a
// Node_GUID that is not the port's, as NVIDIA's plugins warn real telemetry does; only the
// port_guid matching of the telemetry intake names every row after an inventory port.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "sim/sim_server.h"
#include "telemetry/telemetry.h"
#include "ufm/http_client.h"
#include "ufm/inventory.h"

namespace ufmr::sim {
namespace {

class SimTelemetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<Topology> t =
        Topology::FromString("fat-tree:leaves=2,spines=2,hosts_per_leaf=2,hcas_per_host=2", 5);
    ASSERT_TRUE(t.ok());
    state_ = std::make_unique<SimState>(std::move(t.value()), SimOptions{}, clock_.Now());
    SimServerOptions options;
    options.user = "admin";
    options.password = "s3cret";
    options.threads = 1;
    server_ = std::make_unique<SimServer>(*state_, clock_, options);
    ASSERT_TRUE(server_->Start().ok());
    HttpClientOptions auth;
    auth.basic_user = "admin";
    auth.basic_password = "s3cret";
    HttpClient client(auth);
    Result<HttpResult> ports = client.Get("http://127.0.0.1:" + std::to_string(server_->port()) +
                                          "/ufmRest/resources/ports");
    ASSERT_TRUE(ports.ok() && ports->status == 200);
    int skipped = 0;
    auto parsed = ParsePorts(ports->body, &skipped);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    inventory_.Replace(std::move(parsed.value()));
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  TelemetrySnapshot Metrics() {
    HttpClient plain;
    Result<HttpResult> r =
        plain.Get("http://127.0.0.1:" + std::to_string(server_->telemetry_port()) + "/csv/metrics");
    EXPECT_TRUE(r.ok() && r->status == 200);
    auto s = ParseTelemetryCsv(r.ok() ? r->body : "");
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? s.value() : TelemetrySnapshot{};
  }

  FakeClock clock_;
  std::unique_ptr<SimState> state_;
  std::unique_ptr<SimServer> server_;
  Inventory inventory_;
};

TEST_F(SimTelemetryTest, HostRowsNeedPortGuidMatching) {
  const TelemetrySnapshot s = Metrics();
  ASSERT_EQ(s.rows(), inventory_.size());
  size_t second_hcas = 0, unknown_by_number = 0;
  for (const PortKey& key : s.ports) {
    if (!inventory_.Get(PortName(key))) ++unknown_by_number;
    if (key.number == 2) {
      auto host = inventory_.Get(PortName(PortKey{key.guid, 1}));
      if (host && !host->is_switch()) ++second_hcas;
    }
  }
  // Every host's HCA-2 row says port 2 where UFM says 1: by number alone they name no port.
  EXPECT_EQ(second_hcas, 4u);
  EXPECT_EQ(unknown_by_number, 4u);
  HostPortIndex hosts;
  hosts.Refresh(inventory_);
  EXPECT_EQ(hosts.size(), 8u);
  std::vector<PortKey> named = s.ports;
  EXPECT_EQ(hosts.Resolve(&named), 4u);
  std::set<std::string> names;
  for (const PortKey& key : named) {
    EXPECT_TRUE(inventory_.Get(PortName(key))) << PortName(key);
    names.insert(PortName(key));
  }
  EXPECT_EQ(names.size(), inventory_.size());  // one row per port, none named twice
}

}  // namespace
}  // namespace ufmr::sim
