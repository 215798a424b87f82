#include "app/parse_command.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "app/cli.h"
#include "base/clock.h"
#include "ingest/event_log.h"
#include "ingest/event_subjects.h"
#include "ingest/observation.h"
#include "ingest/rest_event.h"
#include "ingest/syslog_receiver.h"
#include "ingest/syslog_record.h"
#include "rules/rule_engine.h"
#include "rules/rules.h"
#include "telemetry/telemetry_csv.h"
#include "telemetry/telemetry_hosts.h"
#include "telemetry/telemetry_port.h"
#include "ufm/inventory.h"
#include "ufm/ports_answer.h"
#include "ufm/ufm_event.h"
#include "ufm/ufm_json.h"

namespace ufmr::app {

namespace {

using Json = nlohmann::ordered_json;

const std::vector<std::string> kInputs = {"event-log", "syslog", "rest-events", "telemetry"};

// The file's bytes, or false with the reason in *error.
bool ReadWholeFile(const std::string& path, std::string* text, std::string* error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    *error = "cannot read " + path + ": it is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    *error = "cannot read " + path + ": read error";
    return false;
  }
  *text = buf.str();
  return true;
}

// Calls f(line, number) for every line of `text` (without '\n'; numbers from 1).
void ForEachLine(std::string_view text, const std::function<void(std::string_view, size_t)>& f) {
  size_t number = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    f(text.substr(0, nl), ++number);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

void AddUnique(std::vector<std::string>* list, const std::string& s) {
  if (!s.empty() && std::find(list->begin(), list->end(), s) == list->end()) list->push_back(s);
}

// What an event's own text says, beside the Observation.
struct EventText {
  std::string severity;
  std::string message;
  std::vector<std::string> labels;
  std::vector<std::string> node_names;  // event log and syslog: every switch or host named
};

class Printer {
 public:
  Printer(std::ostream& out, int utc_offset_s, const Inventory* inventory)
      : out_(out),
        utc_offset_s_(utc_offset_s),
        inventory_(inventory),
        engine_(std::make_shared<const RuleSet>(), inventory) {}

  void Error(const std::string& message, size_t line) {
    Json j;
    j["error"] = message;
    j["line"] = line;
    Write(j);
    ++errors_;
  }
  // What the service does not read of an input, said plainly: {"not_read": message}.
  void NotRead(const std::string& message) {
    Json j;
    j["not_read"] = message;
    Write(j);
  }
  void Event(const Observation& o, const EventText& text);
  void TelemetryRow(const TelemetrySnapshot& snapshot, size_t row);

  size_t observations() const { return observations_; }
  size_t errors() const { return errors_; }

 private:
  void Write(const Json& j) {
    out_ << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  }
  Json Time(const std::string& ufm_timestamp) const {
    TimePoint t;
    if (!ParseUfmTimestamp(ufm_timestamp, utc_offset_s_, &t)) return nullptr;
    return FormatIsoTime(t);
  }
  void AddInventoryLabels(const std::vector<std::string>& ports, std::vector<std::string>* labels);
  void Place(const Observation& o, const EventText& text, Json* j) const;

  std::ostream& out_;
  int utc_offset_s_;
  const Inventory* inventory_;
  // The rules engine without rules: its resolution of ports, switches and hosts is the service's.
  RuleEngine engine_;
  size_t observations_ = 0;
  size_t errors_ = 0;
};

// The first switch (or host) the resolved subjects name: by the order of the link's ends, else
// the first a whole-object event names.
std::string FirstNamed(const RuleEngine::Subjects& s, bool is_switch) {
  const auto& by_port = is_switch ? s.port_switch : s.port_host;
  const auto& names = is_switch ? s.switches : s.hosts;
  for (const auto& [port, key] : by_port) {  // in the order of the ends
    auto name = names.find(key);
    if (name != names.end()) return name->second;
  }
  return names.empty() ? "" : names.begin()->second;
}

// A node the text names as "Switch: NAME" / "Switch:NAME" (or Computer, Host, Node).
bool NamedAs(std::string_view text, const std::vector<std::string>& types, const std::string& n) {
  for (const auto& type : types) {
    for (const char* gap : {": ", ":"}) {
      if (text.find(type + gap + n) != std::string_view::npos) return true;
    }
  }
  return false;
}

// The text's own placement, for what the inventory and the link's ends do not settle: the
// object and message of an event-log entry name its switch and host ("Switch: c931ibsw-leaf01",
// "Peer info: Computer: c931f03p08 HCA-1").
std::string FirstInText(const Observation& o, const EventText& text, bool is_switch) {
  static const std::vector<std::string> kSwitch = {"Switch"};
  static const std::vector<std::string> kHost = {"Computer", "Host", "Node"};
  const std::string all = o.object_name + " " + text.message;
  for (const auto& name : text.node_names) {
    if (NamedAs(all, is_switch ? kSwitch : kHost, name)) return name;
  }
  return "";
}

void Printer::Place(const Observation& o, const EventText& text, Json* j) const {
  RuleEngine::Subjects s = engine_.Resolve(o);
  for (bool is_switch : {true, false}) {
    std::string name = FirstNamed(s, is_switch);
    if (name.empty()) name = FirstInText(o, text, is_switch);
    (*j)[is_switch ? "switch" : "host"] = name.empty() ? Json(nullptr) : Json(name);
  }
}

void Printer::AddInventoryLabels(const std::vector<std::string>& ports,
                                 std::vector<std::string>* labels) {
  if (!inventory_) return;
  for (const auto& port : ports) {
    // A label has a '/' ("1/17/1"); a bare number is a port number, not a label.
    inventory_->With(port, [&](const PortInfo& p) {
      if (p.label.find('/') != std::string::npos) AddUnique(labels, p.label);
    });
  }
}

void Printer::Event(const Observation& observed, const EventText& text) {
  // As the rules engine sees it: ports named "<node>:<label>" resolved through the inventory.
  Observation o = observed;
  o.ports = engine_.PortsOf(observed);
  std::vector<std::string> labels = text.labels;
  AddInventoryLabels(o.ports, &labels);
  Json j;
  j["time"] = Time(o.ufm_timestamp);
  j["source"] = o.source;
  j["event_id"] = o.event_type;
  j["severity"] = text.severity;
  j["ports"] = o.ports;
  j["switch"] = nullptr;
  j["host"] = nullptr;
  Place(o, text, &j);
  j["labels"] = labels;
  j["message"] = text.message;
  Write(j);
  ++observations_;
}

void Printer::TelemetryRow(const TelemetrySnapshot& snapshot, size_t row) {
  // The port name the service gives the row's counters (TelemetryIntake: PortName of the key).
  const std::string port = PortName(snapshot.ports[row]);
  std::vector<std::string> labels;
  AddInventoryLabels({port}, &labels);
  Json j;
  int64_t us = snapshot.time_us[row];
  j["time"] = us > 0 ? Json(FormatIsoTime(TimePoint(std::chrono::microseconds(us)))) : nullptr;
  j["source"] = "telemetry";
  j["event_id"] = nullptr;
  j["severity"] = nullptr;
  j["ports"] = {port};
  bool is_switch = false;
  std::string node;
  bool placed = inventory_ && inventory_->Placement(port, &is_switch, &node) && !node.empty();
  j["switch"] = placed && is_switch ? Json(node) : nullptr;
  j["host"] = placed && !is_switch ? Json(node) : nullptr;
  j["labels"] = labels;
  Json counters = Json::object();
  for (size_t c = 0; c < snapshot.counters.size(); ++c) {
    uint64_t v = snapshot.value(row, c);
    if (v != kNoValue) counters[snapshot.counters[c]] = v;
  }
  j["message"] = std::move(counters);
  Write(j);
  ++observations_;
}

void ParseEventLog(std::string_view body, Printer* p) {
  EventLogAssembler assembler;
  RawLogEntry raw;
  LogEntry entry;
  const TimePoint now = std::chrono::system_clock::now();
  auto handle = [&] {
    // The assembler was given line numbers as offsets: raw.offset is the entry's first line.
    Status s = ParseEventLogEntry(raw, &entry);
    if (!s.ok()) return p->Error(s.message(), raw.offset);
    p->Event(ToObservation(entry, now),
             {entry.severity, entry.message, entry.labels, entry.node_names});
  };
  ForEachLine(body, [&](std::string_view line, size_t number) {
    if (assembler.Add(line, number, &raw)) handle();
  });
  if (assembler.Flush(&raw)) handle();
}

void ParseSyslog(std::string_view body, Printer* p) {
  LogEntry entry;
  const TimePoint now = std::chrono::system_clock::now();
  ForEachLine(body, [&](std::string_view line, size_t number) {
    if (std::all_of(line.begin(), line.end(), [](char c) {
          return std::isspace(static_cast<unsigned char>(c)) || c == '\0';
        })) {
      return;  // a blank line is no record
    }
    Observation o;
    Status s = ParseSyslogRecord(SyslogReceiver::StripHeader(line), now, &entry, &o);
    if (!s.ok()) return p->Error(s.message(), number);
    p->Event(o, {entry.severity, entry.message, entry.labels, entry.node_names});
  });
}

// The line on which each element of the answer's list starts (the first JSON array in the text:
// the answer itself, or its "data"), in order.
std::vector<size_t> ElementLines(std::string_view body) {
  std::vector<size_t> lines;
  size_t line = 1;
  int depth = 0;
  bool in_string = false, escaped = false, expect = false;
  for (char c : body) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (depth == 1 && expect && !std::isspace(static_cast<unsigned char>(c)) && c != ']') {
      lines.push_back(line);
      expect = false;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (depth == 0 && c == '{' && lines.empty()) continue;  // {"data": [...]}: look inside
      if (++depth == 1) expect = true;
    } else if (c == ']' || c == '}') {
      if (depth > 0 && --depth == 0) break;
    } else if (c == ',' && depth == 1) {
      expect = true;
    }
  }
  return lines;
}

// The event's labels as its text gives them ("(Switch:T3-E21-N-U47:1/17/1)...").
std::vector<std::string> TextLabels(const std::string& description) {
  std::vector<std::string> labels;
  for (const auto& s : ExtractPortSubjects(description)) AddUnique(&labels, s.label);
  return labels;
}

void ParseRestEvents(const std::string& body, Printer* p) {
  auto doc = ParseUfmList(body, "events");
  if (!doc.ok()) return p->Error(doc.status().message(), 1);
  std::vector<size_t> lines = ElementLines(body);
  const TimePoint now = std::chrono::system_clock::now();
  size_t i = 0;
  for (const auto& element : doc.value()) {
    size_t line = i < lines.size() ? lines[i] : i + 1;
    ++i;
    auto e = ParseUfmEvent(element);
    if (!e.ok()) {
      p->Error(e.status().message(), line);
      continue;
    }
    p->Event(ToObservation(e.value(), now),
             {e->severity, e->description, TextLabels(e->description), {}});
  }
}

// The line number in a parser's "line N: ..." note; a note without one is about the header,
// line 1.
size_t NoteLine(const std::string& note) {
  if (note.rfind("line ", 0) != 0) return 1;
  size_t n = 0;
  for (size_t i = 5; i < note.size() && std::isdigit(static_cast<unsigned char>(note[i])); ++i) {
    n = n * 10 + static_cast<size_t>(note[i] - '0');
  }
  return n;
}

void ParseTelemetryFile(const std::string& body, const Inventory* inventory, Printer* p) {
  auto snapshot = ParseTelemetryCsv(body);
  if (!snapshot.ok()) return p->Error(snapshot.status().message(), 1);
  if (inventory) {
    // Host rows by port_guid, as the service names them (TelemetryIntake::UseInventory).
    HostPortIndex hosts;
    hosts.Refresh(*inventory);
    hosts.Resolve(&snapshot->ports);
  }
  for (size_t row = 0; row < snapshot->rows(); ++row) p->TelemetryRow(snapshot.value(), row);
  for (const auto& note : snapshot->errors) p->Error(note, NoteLine(note));
  for (const auto& note : TelemetryNotRead(snapshot.value())) p->NotRead(note);
}

int Usage(const std::string& message) { return UsageError({"parse"}, message); }

}  // namespace

int ParseCommand(const CommandLine& cl) {
  std::vector<std::string> inputs;
  for (const auto& name : kInputs) {
    if (cl.Has(name)) inputs.push_back(name);
  }
  if (inputs.size() != 1) {
    return Usage(inputs.empty()
                     ? "give one input: --event-log, --syslog, --rest-events "
                       "or --telemetry"
                     : "give exactly one input option, not " + std::to_string(inputs.size()));
  }
  int utc_offset_s = 0;
  if (!ParseUtcOffset(cl.One("utc-offset", "0"), &utc_offset_s)) {
    return Usage("--utc-offset must look like +02:00 or -05:30 (at most 14:00 from UTC)");
  }
  std::unique_ptr<Inventory> inventory;
  if (cl.Has("ports")) {
    std::string text, error;
    if (!ReadWholeFile(cl.One("ports"), &text, &error)) {
      std::cerr << "parse: " << error << "\n";
      return 1;
    }
    int skipped = 0;
    auto ports = ParsePortTable(text, &skipped);
    if (!ports.ok()) {
      std::cerr << "parse: --ports " << cl.One("ports") << ": " << ports.status().message() << "\n";
      return 1;
    }
    inventory = std::make_unique<Inventory>();
    inventory->Replace(ports.value());
  }
  const std::string& input = inputs[0];
  std::string body, error;
  if (!ReadWholeFile(cl.One(input), &body, &error)) {
    std::cerr << "parse: " << error << "\n";
    return 1;
  }
  Printer printer(std::cout, utc_offset_s, inventory.get());
  if (input == "event-log") ParseEventLog(body, &printer);
  if (input == "syslog") ParseSyslog(body, &printer);
  if (input == "rest-events") ParseRestEvents(body, &printer);
  if (input == "telemetry") ParseTelemetryFile(body, inventory.get(), &printer);
  std::cout.flush();
  std::cerr << "parsed " << printer.observations() << " observations, " << printer.errors()
            << " errors\n";
  return 0;
}

}  // namespace ufmr::app
