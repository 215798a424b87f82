// Inputs shared by the benchmarks: see bench_inputs.h.
#include "bench_inputs.h"

#include <cstdio>
#include <random>
#include <utility>

namespace ufmr::bench {

std::string Hex16(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof(b), "%016llx", static_cast<unsigned long long>(v));
  return b;
}

std::string RandomGuid(Rng& r) { return Hex16(0xfc6a1c0300000000ULL | (r.Next() & 0xffffff)); }

// ---------------------------------------------------------------------------------------------
// Event log

int AppendEventLogEntry(std::string* out, Rng& r, int64_t index) {
  char ts[64];
  const int ms = static_cast<int>(index % 1000);
  const int sec = static_cast<int>((index / 1000) % 60);
  const int min = static_cast<int>((index / 60000) % 60);
  std::snprintf(ts, sizeof(ts), "2024-05-28 08:%02d:%02d.%03d [%lld] ", min, sec, ms,
                static_cast<long long>(index));
  const std::string a = RandomGuid(r), b = RandomGuid(r);
  const int pa = 1 + static_cast<int>(r.Below(64)), pb = 1 + static_cast<int>(r.Below(64));
  const std::string la = "1/" + std::to_string((pa + 1) / 2) + "/" + std::to_string(pa % 2 ? 1 : 2);
  const std::string lb = "1/" + std::to_string((pb + 1) / 2) + "/" + std::to_string(pb % 2 ? 1 : 2);
  const std::string sa =
      "T3-E" + std::to_string(r.Below(90)) + "-N-U" + std::to_string(r.Below(48));
  const std::string sb =
      "T4-E" + std::to_string(r.Below(90)) + "-L-U" + std::to_string(r.Below(48));
  const std::string link = "Link [Source " + a + "_" + std::to_string(pa) + "  TO Dest: " + b +
                           "_" + std::to_string(pb) + "]: ";
  const unsigned kind = r.Below(100);
  *out += ts;
  if (kind < 40) {
    const bool down = kind < 30;
    *out += std::string(down ? "[329] WARNING" : "[328] INFO") + " [Fabric_Topology] " + link +
            (down ? "Link went down: " : "Link is up: ") + a +
            " (Switch: mellanox-SX6036) : " + std::to_string(pa) + " - " + b + " (Computer: fsgb" +
            std::to_string(r.Below(999)) + " HCA-1) : " + std::to_string(pb) + "\n";
    return 1;
  }
  if (kind < 65) {
    *out += "[329] WARNING Site [default] [Fabric_Topology] " + link +
            "Link went down: (Switch:" + sa + ":" + la + ")" + a + ":" + std::to_string(pa) +
            " - (Switch:" + sb + ":" + lb + ")" + b + ":" + std::to_string(pb) +
            ", cable S/N: MT2330FT" + std::to_string(10000 + r.Below(89999)) + "\n";
    return 1;
  }
  if (kind < 75) {
    *out += "[702] WARNING Site [default] [Fabric_Notification] Port [default / Switch: " + sa +
            " / " + la + "] [dev_id: " + a + "]: Peer Port " + sb + ":" + lb +
            " is considered by SM as unhealthy due to FLAPPING.\n";
    return 1;
  }
  if (kind < 85) {
    *out += "[110] MINOR [Fabric_Notification] Switch [default / Switch: " + sa + " / " + la +
            "] [dev_id: " + a + "]: Symbol error counter rate threshold crossed: " + a + "_" +
            std::to_string(pa) + "\n";
    return 1;
  }
  if (kind < 95) {
    *out += kind < 90 ? "[67] INFO Site [default] [Fabric_Notification] Site [default]: MCast "
                        "Group Deleted\n"
                      : "[352] INFO [Logical_Model] Grid [Grid]: Network Added\n";
    return 1;
  }
  *out += "[394] CRITICAL [Hardware] Switch [default / Switch: " + sa + "] [dev_id: " + a +
          "]: Module status FAULT:\n  PSU 1: failed\n  FAN 3: speed 0 rpm\n";
  return 3;
}

std::string EventLogText(int64_t target_lines, int64_t* lines, int64_t* entries) {
  Rng rng;
  std::string data;
  data.reserve(static_cast<size_t>(target_lines) * 230);
  int64_t n = 0, index = 1;
  while (n < target_lines) n += AppendEventLogEntry(&data, rng, index++);
  *lines = n;
  *entries = index - 1;
  return data;
}

// ---------------------------------------------------------------------------------------------
// Telemetry

const char* const kCounters[kNumCounters] = {"PortXmitDataExtended",
                                             "PortRcvDataExtended",
                                             "PortXmitPktsExtended",
                                             "PortRcvPktsExtended",
                                             "SymbolErrorCounterExtended",
                                             "LinkErrorRecoveryCounterExtended",
                                             "LinkDownedCounterExtended",
                                             "PortRcvErrorsExtended",
                                             "PortRcvRemotePhysicalErrorsExtended",
                                             "PortRcvSwitchRelayErrorsExtended",
                                             "PortXmitDiscardsExtended",
                                             "PortXmitWaitExtended",
                                             "PortRcvConstraintErrorsExtended",
                                             "PortXmitConstraintErrorsExtended",
                                             "LocalLinkIntegrityErrorsExtended",
                                             "ExcessiveBufferOverrunErrorsExtended"};

namespace {

uint64_t SwitchGuid(int64_t i) { return 0xfc6a1c0300000000ULL + static_cast<uint64_t>(i / 64); }
int PortNum(int64_t i) { return static_cast<int>(i % 64 + 1); }

}  // namespace

uint64_t CounterValue(int64_t i, int k, int64_t s, bool resets) {
  const uint64_t base = 1'000'000'000'000ULL * static_cast<uint64_t>(i % 7 + 1);
  const auto us = static_cast<uint64_t>(s);
  if (k < 4) return base + 10'000'000'000ULL * us * static_cast<uint64_t>(k + 1);
  if (k == 4) return i % 1000 == 0 ? 500ULL * us : 0;
  if (k == 11) return 1'000'000ULL * us * static_cast<uint64_t>(i % 3);  // XmitWait
  if (resets && i % 5000 == 0 && s == 5) return 0;
  return static_cast<uint64_t>(i % 4);
}

std::string TelemetryCsv(int64_t ports, int64_t s, SnapshotShape shape) {
  std::string out = "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number";
  for (const char* c : kCounters) out += std::string(",") + c;
  out += "\n";
  out.reserve(static_cast<size_t>(ports) * 260);
  const long long ts = 1700000000000000LL + s * shape.interval_s * 1000000LL;
  char row[640];
  for (int64_t i = 0; i < ports; ++i) {
    const auto guid = static_cast<unsigned long long>(SwitchGuid(i));
    int n = std::snprintf(row, sizeof(row), "%lld,10.0.0.1:9001,,0x%016llx,0x%016llx,%d", ts, guid,
                          guid, PortNum(i));
    for (int k = 0; k < kNumCounters; ++k) {
      n += std::snprintf(row + n, sizeof(row) - static_cast<size_t>(n), ",%llu",
                         static_cast<unsigned long long>(CounterValue(i, k, s, shape.resets)));
    }
    row[n++] = '\n';
    out.append(row, static_cast<size_t>(n));
  }
  return out;
}

std::string TelemetryPrometheus(int64_t ports, int64_t s, SnapshotShape shape) {
  std::string out;
  out.reserve(static_cast<size_t>(ports) * kNumCounters * 150);
  const long long ts_ms = 1700000000000LL + s * shape.interval_s * 1000LL;
  char line[512];
  for (int k = 0; k < kNumCounters; ++k) {
    out += std::string("# TYPE ") + kCounters[k] + " counter\n";
    for (int64_t i = 0; i < ports; ++i) {
      const auto guid = static_cast<unsigned long long>(SwitchGuid(i));
      const int n = std::snprintf(
          line, sizeof(line),
          "%s{device_name=\"ib-leaf-%03d\",node_guid=\"0x%016llx\",port_guid=\"0x%016llx\","
          "port_num=\"%d\"} %llu %lld\n",
          kCounters[k], static_cast<int>(i / 64), guid, guid, PortNum(i),
          static_cast<unsigned long long>(CounterValue(i, k, s, shape.resets)), ts_ms);
      out.append(line, static_cast<size_t>(n));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rules

std::vector<Link> Fabric(int leaves, int hosts_per_leaf, Inventory* inventory) {
  std::vector<Link> links;
  std::vector<PortInfo> ports;
  for (int l = 0; l < leaves; ++l) {
    const uint64_t leaf_guid = 0xfc6a1c0300000000ULL + static_cast<uint64_t>(l);
    char leaf[32];
    std::snprintf(leaf, sizeof(leaf), "ib-leaf-%02d", l + 1);
    for (int h = 0; h < hosts_per_leaf; ++h) {
      const uint64_t host_guid = 0xe41d2d0300000000ULL + static_cast<uint64_t>(l * 256 + h);
      char host[32];
      std::snprintf(host, sizeof(host), "gpu-node-%04d", l * hosts_per_leaf + h + 1);
      const std::string label = "1/" + std::to_string(h / 2 + 1) + "/" + std::to_string(h % 2 + 1);
      Link link;
      link.sw_port = Hex16(leaf_guid) + "_" + std::to_string(h + 1);
      link.host_port = Hex16(host_guid) + "_1";
      const std::string ends = "(Switch:" + std::string(leaf) + ":" + label + ")" +
                               Hex16(leaf_guid) + ":" + std::to_string(h + 1) +
                               " - (Computer:" + host + " HCA-1)" + Hex16(host_guid) +
                               ":1, cable S/N: MT2118FT" + std::to_string(10000 + h);
      link.description_down = "Link went down: " + ends;
      link.description_up = "Link is up: " + ends;
      PortInfo sw;
      sw.name = link.sw_port;
      sw.system_guid = Hex16(leaf_guid);
      sw.system_name = leaf;
      sw.node_description = std::string(leaf) + ":" + label;
      sw.description = "Switch IB Port";
      sw.label = label;
      sw.peer = link.host_port;
      PortInfo hp;
      hp.name = link.host_port;
      hp.system_guid = Hex16(host_guid - 1);
      hp.system_name = host;
      hp.node_description = std::string(host) + " HCA-1";
      hp.description = "Computer IB Port";
      hp.peer = link.sw_port;
      ports.push_back(std::move(sw));
      ports.push_back(std::move(hp));
      links.push_back(std::move(link));
    }
  }
  inventory->Replace(std::move(ports));
  return links;
}

std::vector<Observation> EventStream(const std::vector<Link>& links, size_t n, int link_percent) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_int_distribution<size_t> pick(0, links.size() - 1);
  const double link_share = link_percent / 100.0;
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
      const bool down = unit(rng) < 0.5;
      o.event_type = down ? 329 : 328;
      o.name = down ? "Link is Down" : "Link is Up";
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

std::string BigRulesFile(int n) {
  std::string y =
      "lists:\n  downs: [329]\n  ups: [328]\nmacros:\n  down: {event_id: \"@downs\"}\n"
      "  up: {event_id: \"@ups\"}\nrules:\n";
  for (int i = 0; i < n; ++i) {
    const std::string name = "rule_" + std::to_string(i);
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

}  // namespace ufmr::bench
