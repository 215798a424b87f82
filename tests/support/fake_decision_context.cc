#include "fake_decision_context.h"

#include <chrono>

namespace ufmr::testing {

PortInfo SwitchPort(const std::string& name, const std::string& system, const std::string& label) {
  PortInfo p;
  p.name = name;
  p.system_guid = name.substr(0, 16);
  p.system_name = system;
  p.node_description = system + ":" + label;
  p.description = "Switch IB Port";
  p.label = label;
  p.logical_state = "Active";
  p.physical_state = "Link Up";
  return p;
}

PortInfo HostPort(const std::string& name, const std::string& node_description) {
  PortInfo p;
  p.name = name;
  p.system_guid = "e41d2d0300a4f480";
  p.node_description = node_description;  // no system_name: the name comes from here
  p.description = "Computer IB Port";
  p.label = "1";
  p.logical_state = "Active";
  p.physical_state = "Link Up";
  return p;
}

void AddFabric(FakeDecisionContext* ctx) {
  ctx->ports[kSw] = SwitchPort(kSw, "leaf-1", "1/17/1");
  ctx->ports[kSw].peer = kHost;
  ctx->ports[kSpine] = SwitchPort(kSpine, "spine-1", "1/4/2");
  ctx->ports[kHost] = HostPort(kHost, "host-a HCA-1");
  ctx->ports[kHost].peer = kSw;
  ctx->ports[kHost2] = HostPort(kHost2, "host-a HCA-2");
  ctx->ports[kHost2].peer = kSw2;
  ctx->ports[kSw2] = SwitchPort(kSw2, "leaf-1", "1/17/2");
  ctx->ports[kSw2].peer = kHost2;
  ctx->ports[kSwUp] = SwitchPort(kSwUp, "leaf-1", "1/20/2");
  ctx->ports[kSwUp].peer = kSpineUp;
  ctx->ports[kSpineUp] = SwitchPort(kSpineUp, "spine-1", "1/5/1");
  ctx->ports[kSpineUp].peer = kSwUp;
}

Silence MakeSilence(int64_t id, const std::string& port, const std::string& sw,
                    const std::string& host) {
  Silence s;
  s.id = id;
  s.port = port;
  s.switch_ = sw;
  s.host = host;
  s.reason = "cable work in row 3";
  s.created_by = "ops";
  s.created_at = kT0 - std::chrono::hours(1);
  s.expires_at = kT0 + std::chrono::hours(1);
  return s;
}

Finding LinkFinding(RuleAction action) {
  Finding f;
  f.rule = "link_down";
  f.action = action;
  f.mode = RuleMode::kEnforce;
  f.scope = RuleScope::kLink;
  f.severity = "major";
  f.ports = {kSw, kHost};
  f.link_key = LinkKey(f.ports);
  f.reason = "Link went down";
  f.rules_hash = "0123456789abcdef";
  f.time = kT0;
  f.cable_serial = "MT2330FT09118";
  f.evidence = {{"threshold", {{"count", 1}, {"window_s", 600.0}}}};
  return f;
}

}  // namespace ufmr::testing
