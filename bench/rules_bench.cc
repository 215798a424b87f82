// Rules benchmark: (1) rule evaluation with the shipped rules over a stream of UFM events on one
// core, for two mixes (a realistic stream where most events are ones no rule cares about, and a
// storm of link-down/up events only); (2) a reload of a 500-rule file: the whole load (parse,
// collect, compile, index) and the swap into a running engine. Prints figures; run by
// bench/run.sh. Usage: rules_bench [EVENTS] [RULES_DIR]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "core/rule_engine.h"
#include "core/rule_loader.h"

namespace {

using ufmr::Observation;

std::string Hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

struct Link {
  std::string sw_port, host_port, description_down, description_up;
};

// A fat-tree's leaf-to-host links, with the inventory UFM would serve for them.
std::vector<Link> Fabric(int leaves, int hosts_per_leaf, ufmr::Inventory* inventory) {
  std::vector<Link> links;
  std::vector<ufmr::PortInfo> ports;
  for (int l = 0; l < leaves; ++l) {
    uint64_t leaf_guid = 0xfc6a1c0300000000ULL + l;
    char leaf[32];
    std::snprintf(leaf, sizeof(leaf), "ib-leaf-%02d", l + 1);
    for (int h = 0; h < hosts_per_leaf; ++h) {
      uint64_t host_guid = 0xe41d2d0300000000ULL + l * 256 + h;
      char host[32];
      std::snprintf(host, sizeof(host), "gpu-node-%04d", l * hosts_per_leaf + h + 1);
      std::string label = "1/" + std::to_string(h / 2 + 1) + "/" + std::to_string(h % 2 + 1);
      Link link;
      link.sw_port = Hex16(leaf_guid) + "_" + std::to_string(h + 1);
      link.host_port = Hex16(host_guid) + "_1";
      std::string ends = "(Switch:" + std::string(leaf) + ":" + label + ")" + Hex16(leaf_guid) +
                         ":" + std::to_string(h + 1) + " - (Computer:" + host + " HCA-1)" +
                         Hex16(host_guid) + ":1, cable S/N: MT2118FT" + std::to_string(10000 + h);
      link.description_down = "Link went down: " + ends;
      link.description_up = "Link went up: " + ends;
      ufmr::PortInfo sw;
      sw.name = link.sw_port;
      sw.system_guid = Hex16(leaf_guid);
      sw.system_name = leaf;
      sw.node_description = std::string(leaf) + ":" + label;
      sw.description = "Switch IB Port";
      sw.label = label;
      sw.peer = link.host_port;
      ufmr::PortInfo hp;
      hp.name = link.host_port;
      hp.system_guid = Hex16(host_guid - 1);
      hp.system_name = host;
      hp.node_description = std::string(host) + " HCA-1";
      hp.description = "Computer IB Port";
      hp.peer = link.sw_port;
      ports.push_back(sw);
      ports.push_back(hp);
      links.push_back(std::move(link));
    }
  }
  inventory->Replace(std::move(ports));
  return links;
}

// `link_share` of the events are link-downs and link-ups on random links; the rest are events
// no shipped rule names (multicast groups, network added, module status, ...).
std::vector<Observation> Stream(const std::vector<Link>& links, size_t n, double link_share) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_int_distribution<size_t> pick(0, links.size() - 1);
  const int others[] = {67, 66, 352, 336, 394, 920, 1500, 1502, 64, 65};
  std::vector<Observation> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Observation o;
    o.kind = Observation::Kind::kEvent;
    o.source = "rest";
    o.event_id = static_cast<int64_t>(i + 1);
    if (unit(rng) < link_share) {
      const Link& l = links[pick(rng)];
      bool down = unit(rng) < 0.5;
      o.event_type = down ? 329 : 328;
      o.name = down ? "Link went down" : "Link went up";
      o.severity = down ? "Warning" : "Info";
      o.category = "Fabric Topology";
      o.object_type = "Link";
      o.object_name = l.sw_port + ":" + l.host_port;
      o.description = down ? l.description_down : l.description_up;
      o.ports = {l.sw_port, l.host_port};
    } else {
      o.event_type = others[i % 10];
      o.name = "MCast Group Deleted";
      o.severity = "Info";
      o.category = "Fabric Notification";
      o.object_type = "Site";
      o.object_name = "default";
      o.description = "MCast group with MGID ff12:401b:ffff::1 is deleted";
    }
    out.push_back(std::move(o));
  }
  return out;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

void Evaluate(const char* label, std::shared_ptr<const ufmr::RuleSet> rules,
              const ufmr::Inventory& inventory, std::vector<Observation> stream) {
  ufmr::RuleEngine engine(std::move(rules), &inventory);
  std::vector<ufmr::Finding> findings;
  size_t total_findings = 0;
  // 1,000 events a second of UFM time: windows and holds move as they would.
  const ufmr::TimePoint t0 = ufmr::FromEpochSeconds(1.7e9);
  for (size_t i = 0; i < stream.size(); ++i) {
    stream[i].time = t0 + std::chrono::milliseconds(i);
  }
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < stream.size(); ++i) {
    engine.Observe(stream[i], &findings);
    if (i % 1000 == 999) engine.Tick(stream[i].time, &findings);
    if (findings.size() > 4096) {  // the decision stage takes them
      total_findings += findings.size();
      findings.clear();
    }
  }
  double s = Seconds(std::chrono::steady_clock::now() - start);
  total_findings += findings.size();
  std::printf(
      "rule evaluation, %s: %zu events in %.3f s: %.2f M events/s (target >= 1.00), "
      "%zu findings\n",
      label, stream.size(), s, stream.size() / s / 1e6, total_findings);
}

// A rules file of `n` rules of every kind, with patterns, lists and macros.
std::string BigRulesFile(int n) {
  std::string y =
      "lists:\n  downs: [329]\n  ups: [328]\nmacros:\n  down: {event_id: \"@downs\"}\n"
      "  up: {event_id: \"@ups\"}\nrules:\n";
  for (int i = 0; i < n; ++i) {
    std::string name = "rule_" + std::to_string(i);
    switch (i % 5) {
      case 0:
        y += "  - name: " + name +
             "\n    match: {use: down, description: \"Link went down: .*leaf-" + std::to_string(i) +
             "\"}\n    for: 30s\n    clear: {use: up}\n    action: disable_port\n"
             "    title: \"{port_node} {port_label} <-> {peer_node} {peer_label}\"\n";
        break;
      case 1:
        y += "  - name: " + name +
             "\n    flapping: {downs: 3, within: 10m}\n    match: {use: down, "
             "switch: \"^ib-leaf-" +
             std::to_string(i) + "$\"}\n    action: disable_port\n";
        break;
      case 2:
        y += "  - name: " + name + "\n    counter: SymbolErrorCounterExtended\n    rate: {above: " +
             std::to_string(100 + i) +
             ", per: 1m}\n    window: 5m\n    clear: {below: 10}\n"
             "    action: ticket_only\n";
        break;
      case 3:
        y += "  - name: " + name + "\n    match: {event_id: [" + std::to_string(900 + i % 50) +
             "], severity: [critical, warning], object: \"sw-" + std::to_string(i) +
             "\"}\n    scope: switch\n    inhibits: {rules: [rule_" + std::to_string(i - 3) +
             "], for: 15m}\n    action: log_only\n";
        break;
      default:
        y += "  - name: " + name + "\n    match: {event_id: 130, host: \"gpu-node-" +
             std::to_string(i) + "\"}\n    action: ticket_only\n    mode: shadow\n";
    }
  }
  return y;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  auto loaded = ufmr::LoadRules({argc > 2 ? argv[2] : "rules"});
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s", loaded.Report().c_str());
    return 1;
  }
  ufmr::Inventory inventory;
  auto links = Fabric(64, 32, &inventory);
  std::printf("shipped rules: %zu; fabric: %zu host links\n", loaded.rules->rules.size(),
              links.size());
  const std::string only = argc > 3 ? argv[3] : "";  // "mix" or "storm": one figure (profiling)
  if (only != "storm") {
    Evaluate("stream with 10% link events", loaded.rules, inventory, Stream(links, events, 0.10));
  }
  if (only != "mix") {
    Evaluate("link events only (a storm)", loaded.rules, inventory, Stream(links, events, 1.0));
  }
  if (!only.empty()) return 0;

  const std::string big = BigRulesFile(500);
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    auto start = std::chrono::steady_clock::now();
    auto result = ufmr::LoadRulesText(big, "big.yaml");
    if (!result.ok()) {
      std::fprintf(stderr, "%s", result.Report().c_str());
      return 1;
    }
    ufmr::RuleEngine old(loaded.rules, &inventory);
    ufmr::RuleEngine next(result.rules, &inventory);
    next.AdoptState(std::move(old));
    best = std::min(best, Seconds(std::chrono::steady_clock::now() - start));
  }
  std::printf("reload of a 500-rule file (%.0f KB): %.1f ms best of 5 (target <= 200 ms)\n",
              big.size() / 1024.0, best * 1000);
  return 0;
}
