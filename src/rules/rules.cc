#include "rules/rules.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace ufmr {

const char* RuleActionName(RuleAction a) {
  switch (a) {
    case RuleAction::kDisablePort:
      return "disable_port";
    case RuleAction::kIsolatePort:
      return "isolate_port";
    case RuleAction::kDrainThenDisable:
      return "drain_then_disable";
    case RuleAction::kTicketOnly:
      return "ticket_only";
    case RuleAction::kLogOnly:
      return "log_only";
  }
  return "?";
}

bool TakesPortOut(RuleAction a) {
  return a == RuleAction::kDisablePort || a == RuleAction::kIsolatePort ||
         a == RuleAction::kDrainThenDisable;
}

const char* RuleModeName(RuleMode m) { return m == RuleMode::kShadow ? "shadow" : "enforce"; }

const char* RuleScopeName(RuleScope s) {
  switch (s) {
    case RuleScope::kPort:
      return "port";
    case RuleScope::kLink:
      return "link";
    case RuleScope::kSwitch:
      return "switch";
    case RuleScope::kNode:
      return "node";
  }
  return "?";
}

const char* CounterMeasureName(CounterCondition::Measure m) {
  switch (m) {
    case CounterCondition::Measure::kDelta:
      return "delta";
    case CounterCondition::Measure::kRate:
      return "rate";
    case CounterCondition::Measure::kBer:
      return "ber";
    case CounterCondition::Measure::kValue:
      return "value";
  }
  return "?";
}

std::string NormalizeMatchWord(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  std::string out = b == std::string::npos ? "" : s.substr(b, e - b + 1);
  for (char& c : out) {
    if (c == '_') c = ' ';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

const std::vector<std::string>& TemplatePlaceholders() {
  static const std::vector<std::string> names = {
      "rule",      "reason",    "port",      "peer",    "port_label",   "peer_label",
      "port_node", "peer_node", "switch",    "node",    "cable_serial", "count",
      "window",    "value",     "threshold", "severity"};
  return names;
}

namespace {

using TemplateField = MessageTemplate::Field;

// Every placeholder's name and field (as TemplatePlaceholders lists them).
constexpr std::array<std::pair<std::string_view, TemplateField>, 16> kFields = {{
    {"rule", TemplateField::kRule},
    {"reason", TemplateField::kReason},
    {"port", TemplateField::kPort},
    {"peer", TemplateField::kPeer},
    {"port_label", TemplateField::kPortLabel},
    {"peer_label", TemplateField::kPeerLabel},
    {"port_node", TemplateField::kPortNode},
    {"peer_node", TemplateField::kPeerNode},
    {"switch", TemplateField::kSwitch},
    {"node", TemplateField::kNode},
    {"cable_serial", TemplateField::kCableSerial},
    {"severity", TemplateField::kSeverity},
    {"count", TemplateField::kCount},
    {"window", TemplateField::kWindow},
    {"threshold", TemplateField::kThreshold},
    {"value", TemplateField::kValue},
}};

TemplateField FieldNamed(std::string_view name) {
  for (const auto& [n, f] : kFields) {
    if (n == name) return f;
  }
  return TemplateField::kUnknown;
}

}  // namespace

MessageTemplate MessageTemplate::Parse(std::string_view t) {
  MessageTemplate out;
  auto literal = [&](std::string_view s) {
    if (s.empty()) return;
    out.literal_bytes += s.size();
    if (!out.parts.empty() && out.parts.back().field == TemplateField::kText) {
      out.parts.back().text.append(s);
    } else {
      out.parts.push_back({TemplateField::kText, std::string(s)});
    }
  };
  for (size_t i = 0; i < t.size();) {
    const size_t open = t.find('{', i);
    const size_t close = open == std::string_view::npos ? open : t.find('}', open);
    if (close == std::string_view::npos) {
      literal(t.substr(i));
      break;
    }
    literal(t.substr(i, open - i));
    const std::string_view name = t.substr(open + 1, close - open - 1);
    const TemplateField f = FieldNamed(name);
    out.parts.push_back({f, f == TemplateField::kUnknown ? std::string(name) : std::string()});
    i = close + 1;
  }
  return out;
}

namespace {

void SignMatch(const EventMatch& m, std::string* out) {
  auto words = [&](const std::set<std::string>& set) {
    for (const auto& w : set) *out += w + ",";
    *out += ";";
  };
  for (int id : m.event_ids) *out += std::to_string(id) + ",";
  *out += ";";
  words(m.names);
  words(m.severities);
  words(m.categories);
  words(m.object_types);
  for (const auto* re : {&m.description, &m.object, &m.switch_name, &m.host_name}) {
    *out += (*re ? (*re)->pattern() : std::string("-")) + "\x1f";
  }
}

}  // namespace

std::string ConditionSignature(const Rule& r) {
  std::string out = std::to_string(static_cast<int>(r.kind)) + "|" +
                    std::to_string(static_cast<int>(r.scope)) + "|";
  SignMatch(r.match, &out);
  out += "|";
  if (r.clear) SignMatch(*r.clear, &out);
  char nums[256];
  std::snprintf(nums, sizeof(nums), "|%d|%.17g|%.17g|%d|%.17g|%.17g|%.17g|%.17g", r.count,
                r.window_s, r.for_s, static_cast<int>(r.condition.measure), r.condition.above,
                r.condition.per_s, r.condition.clear_below, r.min_link_uptime_s);
  return out + nums + "|" + r.counter;
}

const Rule* RuleSet::Find(const std::string& name) const {
  for (const auto& r : rules) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

void RuleSet::Index() {
  by_event_id.clear();
  any_event.clear();
  counter_rules.clear();
  by_counter.clear();
  counters.clear();
  RE2::Options opts;
  opts.set_log_errors(false);
  auto set = std::make_shared<RE2::Set>(opts, RE2::UNANCHORED);
  int patterns = 0;
  for (size_t i = 0; i < rules.size(); ++i) rules[i].index = static_cast<int>(i);
  for (auto& r : rules) {
    if (r.kind == Rule::Kind::kCounter) {
      counter_rules.push_back(&r);
      by_counter[r.counter].push_back(&r);
      counters.insert(r.counter);
      // Link uptime comes from the link-down counter.
      if (r.min_link_uptime_s > 0) counters.insert("LinkDownedCounterExtended");
      continue;
    }
    if (r.kind == Rule::Kind::kFlapping) {
      counters.insert("LinkDownedCounterExtended");
      by_counter["LinkDownedCounterExtended"].push_back(&r);
    }
    // A rule is a candidate for an event if its match or its clear could take it.
    std::set<int> ids = r.match.event_ids;
    bool any = r.match.event_ids.empty();
    if (r.clear) {
      ids.insert(r.clear->event_ids.begin(), r.clear->event_ids.end());
      any = any || r.clear->event_ids.empty();
    }
    if (any) {
      any_event.push_back(&r);
    } else {
      for (int id : ids) by_event_id[id].push_back(&r);
    }
    if (r.match.description) {
      std::string error;
      int index = set->Add(r.match.description->pattern(), &error);
      if (index >= 0) {
        r.match.description_set_index = index;
        ++patterns;
      }
    }
  }
  // Switch- and node-level rules see each event first: a reboot that an event completes must
  // inhibit the link findings the same event would make.
  auto wide_first = [](const Rule* a, const Rule* b) {
    auto wide = [](const Rule* r) {
      return r->scope == RuleScope::kSwitch || r->scope == RuleScope::kNode;
    };
    return wide(a) && !wide(b);
  };
  for (auto& [id, list] : by_event_id) std::stable_sort(list.begin(), list.end(), wide_first);
  std::stable_sort(any_event.begin(), any_event.end(), wide_first);
  if (patterns > 0 && set->Compile()) {
    descriptions = std::move(set);
  } else {
    descriptions.reset();
    for (auto& r : rules) r.match.description_set_index = -1;
  }
}

std::string RuleLoadResult::Report() const { return RenderDiagnosticsText(diagnostics); }

}  // namespace ufmr
