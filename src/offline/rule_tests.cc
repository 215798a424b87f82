#include "offline/rule_tests.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "base/duration.h"
#include "ingest/event_log.h"
#include "ingest/rest_event.h"
#include "offline/replay.h"
#include "rules/rule_loader.h"
#include "telemetry/telemetry_port.h"
#include "ufm/inventory.h"
#include "ufm/ufm_event.h"

namespace ufmr {

namespace {

// Rule tests judge rules, not the service's guards (which are configuration): only the default
// cap stays; the topology, cooldown, rate and breaker guards are off.
DecisionPolicy RuleTestPolicy() {
  DecisionPolicy p;
  p.require_system_guid = false;
  p.max_disabled_percent = 0;
  p.max_disabled_per_switch = 0;
  p.max_actions_per_hour = 0;
  p.port_cooldown_s = 0;
  p.min_active_links_host = 0;
  p.min_active_links_switch = 0;
  p.breaker_findings = 0;
  return p;
}

namespace fs = std::filesystem;

nlohmann::json YamlToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& e : n) a.push_back(YamlToJson(e));
      return a;
    }
    case YAML::NodeType::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& kv : n) o[kv.first.Scalar()] = YamlToJson(kv.second);
      return o;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() != "!") {
        // Unquoted numbers stay numbers (port "number" fields); everything else is text.
        char* end = nullptr;
        long long v = std::strtoll(s.c_str(), &end, 10);
        if (!s.empty() && end && *end == '\0') return v;
      }
      return s;
    }
    default:
      return nullptr;
  }
}

std::string UfmTimestamp(TimePoint t) {
  std::string iso = FormatIsoTime(t);  // 2026-01-01T00:00:30.000Z
  return iso.substr(0, 10) + " " + iso.substr(11, 12);
}

struct Expected {
  double at = 0;
  std::string rule, decision;
  std::map<std::string, std::string> fields;  // port, peer, switch, node, guard
  int line = 0;
};

struct Produced {
  double at;
  Decision d;
  bool matched = false;
};

std::string Describe(double at, const std::string& rule, const std::string& decision,
                     const std::map<std::string, std::string>& fields) {
  std::string s = "at " + FormatDuration(at) + ": " + rule + " -> " + decision;
  for (const auto& [k, v] : fields) s += " " + k + "=" + v;
  return s;
}

std::map<std::string, std::string> FieldsOf(const Decision& d) {
  std::map<std::string, std::string> f;
  if (!d.port.empty()) f["port"] = d.port;
  if (!d.peer.empty()) f["peer"] = d.peer;
  if (!d.switch_name.empty()) f["switch"] = d.switch_name;
  if (!d.node.empty()) f["node"] = d.node;
  if (!d.guard.empty()) f["guard"] = d.guard;
  return f;
}

// The time a test's offsets count from: 2026-01-01T00:00:00Z.
TimePoint TestTime(double at) {
  return TimePoint(std::chrono::seconds(1767225600)) +
         std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(at));
}

using Events = std::multimap<double, Observation>;        // by seconds from the start
using Sample = std::tuple<PortKey, std::string, double>;  // port, counter, value
using Samples = std::map<double, std::vector<Sample>>;

// One telemetry snapshot of the samples taken at one time: a column per counter, a row per
// port, in the order the test names them.
TelemetrySnapshot SnapshotOf(const std::vector<Sample>& taken, TimePoint when) {
  TelemetrySnapshot snap;
  std::map<std::string, size_t> columns;
  for (const auto& [key, counter, value] : taken) {
    if (!columns.count(counter)) {
      columns[counter] = snap.counters.size();
      snap.counters.push_back(counter);
    }
  }
  std::vector<PortKey> order;
  for (const auto& [key, counter, value] : taken) {
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
  }
  int64_t us =
      std::chrono::duration_cast<std::chrono::microseconds>(when.time_since_epoch()).count();
  for (const auto& key : order) {
    snap.ports.push_back(key);
    snap.time_us.push_back(us);
    std::vector<uint64_t> row(snap.counters.size(), kNoValue);
    for (const auto& [k, counter, value] : taken) {
      if (k == key) row[columns[counter]] = static_cast<uint64_t>(std::llround(value));
    }
    snap.values.insert(snap.values.end(), row.begin(), row.end());
  }
  return snap;
}

// Marks the first decision made that `e` describes (at, rule, decision and every field given);
// false when none.
bool MatchExpected(const Expected& e, std::vector<Produced>* produced) {
  for (auto& p : *produced) {
    if (p.matched || std::fabs(p.at - e.at) > 0.0005 || p.d.rule != e.rule ||
        DecisionKindName(p.d.kind) != e.decision) {
      continue;
    }
    auto fields = FieldsOf(p.d);
    bool same = true;
    for (const auto& [k, v] : e.fields) same = same && fields[k] == v;
    if (!same) continue;
    p.matched = true;
    return true;
  }
  return false;
}

class TestFile {
 public:
  TestFile(std::string path, RuleTestReport* report) : path_(std::move(path)), report_(report) {}

  void Run() {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    text_ = buf.str();
    YAML::Node doc;
    try {
      doc = YAML::Load(text_);
    } catch (const YAML::ParserException& e) {
      Error(e.mark.line + 1, e.mark.column + 1, "", "yaml-syntax", e.msg);
      return Done();
    }
    if (!doc.IsMap() || !doc["tests"] || !doc["tests"].IsSequence()) {
      Error(doc, "", "bad-test-file",
            "a test file is a mapping with rule_files, (ports,) and a 'tests:' list");
      return Done();
    }
    Keys(doc, "", {"rule_files", "ports", "tests"});
    // The rules under test.
    std::vector<std::string> rule_paths;
    YAML::Node files = doc["rule_files"];
    fs::path base = fs::path(path_).parent_path();
    if (!files) {
      rule_paths.push_back((base / "..").lexically_normal().string());
    } else if (files.IsSequence()) {
      for (const auto& f : files)
        rule_paths.push_back((base / f.as<std::string>()).lexically_normal().string());
    } else {
      rule_paths.push_back((base / files.as<std::string>()).lexically_normal().string());
    }
    auto rules = LoadRules(rule_paths);
    for (auto d : rules.diagnostics) {
      if (!d.warning) report_->diagnostics.push_back(std::move(d));
    }
    if (!rules.ok()) {
      Error(files ? files : doc, "rule_files", "rules-not-loaded",
            "the rules under test have errors (shown above)");
      return Done();
    }
    rules_ = rules.rules;
    if (doc["ports"]) ports_ = Ports(doc["ports"], "ports");
    YAML::Node tests = doc["tests"];
    for (size_t i = 0; i < tests.size(); ++i) {
      try {
        RunTest(tests[i], "tests[" + std::to_string(i) + "]");
      } catch (const YAML::Exception& e) {
        Error(tests[i], "tests[" + std::to_string(i) + "]", "bad-test", e.what());
      }
    }
    Done();
  }

 private:
  void Done() { AttachSourceLines(path_, text_, &report_->diagnostics); }

  void Error(int line, int col, const std::string& path, const std::string& code,
             const std::string& msg) {
    Diagnostic d;
    d.file = path_;
    d.line = line;
    d.column = col;
    d.path = path;
    d.code = code;
    d.message = msg;
    report_->diagnostics.push_back(std::move(d));
  }
  void Error(const YAML::Node& n, const std::string& path, const std::string& code,
             const std::string& msg) {
    Error(n.IsDefined() ? n.Mark().line + 1 : 0, n.IsDefined() ? n.Mark().column + 1 : 0, path,
          code, msg);
  }

  // In a test file a typo would make a test that checks nothing and passes: an error.
  void Keys(const YAML::Node& map, const std::string& path, const std::set<std::string>& allowed) {
    if (!map.IsMap()) return;
    for (const auto& kv : map) {
      std::string key = kv.first.Scalar();
      if (allowed.count(key)) continue;
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      Error(kv.first, path.empty() ? key : path + "." + key, "unknown-key",
            "unknown key '" + key + "' (expected one of: " + list + ")");
    }
  }

  std::vector<PortInfo> Ports(const YAML::Node& n, const std::string& path) {
    std::vector<PortInfo> out;
    if (!n.IsSequence()) {
      Error(n, path, "bad-ports", "ports is a list of /resources/ports entries");
      return out;
    }
    for (size_t i = 0; i < n.size(); ++i) {
      auto p = ParsePortInfo(YamlToJson(n[i]));
      if (!p.ok()) {
        Error(n[i], path + "[" + std::to_string(i) + "]", "bad-port", p.status().message());
        continue;
      }
      out.push_back(std::move(p.value()));
    }
    return out;
  }

  bool Seconds(const YAML::Node& n, const std::string& path, double* out) {
    auto d = n.IsScalar() ? ParseDuration(n.Scalar()) : Result<double>(Status::InvalidArgument(""));
    if (!d.ok()) {
      Error(n, path, "bad-duration", "expected a time offset like 0s, 30s, 10m");
      return false;
    }
    *out = d.value();
    return true;
  }

  void RunTest(const YAML::Node& t, const std::string& path) {
    std::string name = t["name"] ? t["name"].as<std::string>() : path;
    int errors_before = static_cast<int>(report_->diagnostics.size());
    Keys(t, path, {"name", "ports", "events", "counters", "expect", "until"});
    std::vector<PortInfo> ports = ports_;
    if (t["ports"]) {
      for (auto& p : Ports(t["ports"], path + ".ports")) ports.push_back(std::move(p));
    }
    Inventory inventory;
    inventory.Replace(ports);
    Events events = ReadEvents(t, path);
    Samples samples = ReadSamples(t, path);
    std::vector<Expected> expected = ReadExpected(t, path);
    if (static_cast<int>(report_->diagnostics.size()) > errors_before) {
      ++report_->tests;
      ++report_->failed;
      report_->text += "FAIL " + path_ + ": " + name + " (the test itself has errors)\n";
      return;
    }
    std::vector<Produced> produced = Play(t, path, &inventory, events, samples);
    Judge(name, expected, &produced);
  }

  // The test's events, by time (seconds from the start).
  Events ReadEvents(const YAML::Node& t, const std::string& path) {
    Events events;
    YAML::Node list = t["events"];
    if (!list) return events;
    int64_t next_id = 1;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string p = path + ".events[" + std::to_string(i) + "]";
      const YAML::Node& e = list[i];
      Keys(e, p,
           {"at", "line", "event_id", "id", "name", "severity", "category", "object_type", "object",
            "description", "ports"});
      double at = 0;
      if (!e["at"] || !Seconds(e["at"], p + ".at", &at)) continue;
      std::optional<Observation> o = ReadEvent(e, p, TestTime(at), next_id);
      if (!o) continue;
      o->event_id = next_id++;
      events.emplace(at, std::move(*o));
    }
    return events;
  }

  // One event: an event-log line, or a UFM event by its fields.
  std::optional<Observation> ReadEvent(const YAML::Node& e, const std::string& p, TimePoint when,
                                       int64_t next_id) {
    if (e["line"]) {
      // The entry as the log writes it: time, the log's running number, then the line.
      auto entry = ParseEventLogEntry(UfmTimestamp(when) + " [" + std::to_string(next_id) + "] " +
                                      e["line"].as<std::string>());
      if (!entry.ok()) {
        Error(e["line"], p + ".line", "bad-event", entry.status().message());
        return std::nullopt;
      }
      return ToObservation(entry.value(), when);
    }
    if (!e["event_id"]) {
      Error(e, p, "bad-event", "an event has 'line' (an event-log entry) or 'event_id'");
      return std::nullopt;
    }
    UfmEvent u;
    u.id = e["id"] ? e["id"].as<int64_t>() : next_id;
    u.event_type = e["event_id"].as<int>();
    u.name = e["name"].as<std::string>("");
    u.severity = e["severity"].as<std::string>("");
    u.category = e["category"].as<std::string>("");
    u.object_type = e["object_type"].as<std::string>("");
    u.object_name = e["object"].as<std::string>("");
    u.description = e["description"].as<std::string>("");
    u.timestamp = UfmTimestamp(when).substr(0, 19);
    Observation o = ToObservation(u, when);
    if (e["ports"]) {
      o.ports.clear();
      for (const auto& port : e["ports"]) o.ports.push_back(port.as<std::string>());
    }
    return o;
  }

  // The test's counter series, as samples by time: one telemetry snapshot per sample time.
  Samples ReadSamples(const YAML::Node& t, const std::string& path) {
    Samples samples;
    YAML::Node list = t["counters"];
    if (!list) return samples;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string p = path + ".counters[" + std::to_string(i) + "]";
      const YAML::Node& c = list[i];
      Keys(c, p, {"port", "counter", "interval", "start", "values"});
      PortKey key;
      if (!c["port"] || !ParsePortName(c["port"].as<std::string>(""), &key)) {
        Error(c["port"] ? c["port"] : c, p + ".port", "bad-port",
              "expected a port name <guid>_<n>");
        continue;
      }
      std::string counter = c["counter"].as<std::string>("");
      double interval = 60, begin = 0;
      if (c["interval"] && !Seconds(c["interval"], p + ".interval", &interval)) continue;
      if (c["start"] && !Seconds(c["start"], p + ".start", &begin)) continue;
      std::vector<std::optional<double>> values;
      std::string error;
      if (counter.empty() || !c["values"] ||
          !ExpandSeries(c["values"].as<std::string>(""), &values, &error)) {
        Error(c["values"] ? c["values"] : c, p, "bad-series",
              counter.empty() ? "a series names its counter" : "values: " + error);
        continue;
      }
      for (size_t k = 0; k < values.size(); ++k) {
        if (values[k]) samples[begin + k * interval].emplace_back(key, counter, *values[k]);
      }
    }
    return samples;
  }

  std::vector<Expected> ReadExpected(const YAML::Node& t, const std::string& path) {
    std::vector<Expected> expected;
    YAML::Node list = t["expect"];
    if (!list) return expected;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string p = path + ".expect[" + std::to_string(i) + "]";
      const YAML::Node& x = list[i];
      Keys(x, p, {"at", "rule", "decision", "port", "peer", "switch", "node", "guard"});
      Expected e;
      e.line = x.Mark().line + 1;
      if (!x["at"] || !Seconds(x["at"], p + ".at", &e.at) || !x["rule"] || !x["decision"]) {
        if (!x["rule"] || !x["decision"]) {
          Error(x, p, "bad-expect", "an expected decision has at, rule and decision");
        }
        continue;
      }
      e.rule = x["rule"].as<std::string>();
      e.decision = x["decision"].as<std::string>();
      for (const char* k : {"port", "peer", "switch", "node", "guard"}) {
        if (x[k]) e.fields[k] = x[k].as<std::string>();
      }
      expected.push_back(std::move(e));
    }
    return expected;
  }

  // Runs the decision path over the events and samples in time order, then to `until` (or to
  // the end of every hold); returns the decisions made.
  std::vector<Produced> Play(const YAML::Node& t, const std::string& path, Inventory* inventory,
                             const Events& events, const Samples& samples) {
    std::vector<Produced> produced;
    ReplayPipeline pipeline(
        rules_, RuleTestPolicy(), inventory, SilenceSet(), [&](const Decision& d) {
          produced.push_back({std::chrono::duration<double>(d.time - TestTime(0)).count(), d});
        });
    auto ev = events.begin();
    auto sm = samples.begin();
    while (ev != events.end() || sm != samples.end()) {
      bool event_next = sm == samples.end() || (ev != events.end() && ev->first <= sm->first);
      if (event_next) {
        pipeline.Event(ev->second);
        ++ev;
        continue;
      }
      pipeline.Telemetry(SnapshotOf(sm->second, TestTime(sm->first)), TestTime(sm->first));
      ++sm;
    }
    double until = 0;
    if (t["until"] && Seconds(t["until"], path + ".until", &until)) {
      pipeline.AdvanceTo(TestTime(until));
    } else {
      pipeline.Finish();
    }
    return produced;
  }

  // Compares: each expected decision must be made, and nothing else.
  void Judge(const std::string& name, const std::vector<Expected>& expected,
             std::vector<Produced>* produced) {
    std::vector<const Expected*> missing;
    for (const auto& e : expected) {
      if (!MatchExpected(e, produced)) missing.push_back(&e);
    }
    std::vector<const Produced*> unexpected;
    for (const auto& p : *produced) {
      if (!p.matched) unexpected.push_back(&p);
    }
    ++report_->tests;
    if (missing.empty() && unexpected.empty()) {
      report_->text += "PASS " + path_ + ": " + name + "\n";
      return;
    }
    ++report_->failed;
    report_->text += "FAIL " + path_ + ": " + name + "\n";
    for (const auto* e : missing) {
      report_->text += "  - expected, not made (line " + std::to_string(e->line) +
                       "): " + Describe(e->at, e->rule, e->decision, e->fields) + "\n";
    }
    for (const auto* p : unexpected) {
      report_->text += "  + made, not expected: " +
                       Describe(p->at, p->d.rule, DecisionKindName(p->d.kind), FieldsOf(p->d)) +
                       "\n      reason: " + p->d.reason + "\n";
    }
  }

  std::string path_;
  std::string text_;
  RuleTestReport* report_;
  std::shared_ptr<const RuleSet> rules_;
  std::vector<PortInfo> ports_;
};

}  // namespace

bool ExpandSeries(const std::string& text, std::vector<std::optional<double>>* out,
                  std::string* error) {
  std::istringstream in(text);
  std::string tok;
  bool any = false;
  while (in >> tok) {
    any = true;
    if (tok == "_") {
      out->push_back(std::nullopt);
      continue;
    }
    // a, a+bxn, a-bxn, axn
    size_t x = tok.find('x');
    std::string head = tok.substr(0, x);
    int times = 0;
    if (x != std::string::npos) {
      try {
        size_t used = 0;
        times = std::stoi(tok.substr(x + 1), &used);
        if (used != tok.size() - x - 1 || times < 0 || times > 100000) throw std::exception();
      } catch (const std::exception&) {
        *error = "bad repeat in '" + tok + "'";
        return false;
      }
    }
    // The operator is the first + or - that is not a number's own sign or exponent sign (1e-12).
    size_t op = std::string::npos;
    for (size_t k = 1; k < head.size(); ++k) {
      if ((head[k] == '+' || head[k] == '-') && head[k - 1] != 'e' && head[k - 1] != 'E') {
        op = k;
        break;
      }
    }
    double a = 0, b = 0;
    try {
      size_t used = 0;
      a = std::stod(head.substr(0, op), &used);
      if (used != (op == std::string::npos ? head.size() : op)) throw std::exception();
      if (op != std::string::npos) {
        b = std::stod(head.substr(op + 1), &used);
        if (used != head.size() - op - 1) throw std::exception();
        if (head[op] == '-') b = -b;
      }
    } catch (const std::exception&) {
      *error = "cannot read '" + tok + "' (expected a, a+bxn, a-bxn, axn or _)";
      return false;
    }
    if (op != std::string::npos && x == std::string::npos) {
      *error = "'" + tok + "' needs a repeat count, e.g. 0+10x5";
      return false;
    }
    for (int i = 0; i <= times; ++i) out->push_back(a + b * i);
  }
  if (!any) *error = "empty series";
  return any;
}

RuleTestReport RunRuleTests(const std::vector<std::string>& paths) {
  RuleTestReport report;
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        auto ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml"))
          found.push_back(e.path().string());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      Diagnostic d;
      d.file = p;
      d.code = "no-such-file";
      d.message = "no such file or directory";
      report.diagnostics.push_back(std::move(d));
    }
  }
  for (const auto& f : files) {
    ++report.files;
    TestFile(f, &report).Run();
  }
  return report;
}

}  // namespace ufmr
