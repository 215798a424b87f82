#include "decide/explain.h"

#include <cstdio>
#include <set>

#include "base/duration.h"

namespace ufmr {

namespace {

// For people: whole numbers as they are, others to a sensible precision (1603, 12.5, 2.1e-11).
std::string Num(double v) {
  char buf[32];
  double a = v < 0 ? -v : v;
  if (a != 0 && (a < 0.01 || a >= 1e9)) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  } else if (a >= 100 || v == static_cast<double>(static_cast<long long>(v))) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

// "links.yaml" from "/etc/ufm-remediator/rules/links.yaml".
std::string Basename(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "10:00:04 UTC" from an ISO 8601 time.
std::string TimeOfDay(const std::string& iso) {
  if (iso.size() >= 19 && iso[10] == 'T') return iso.substr(11, 8) + " UTC";
  return iso;
}

std::string Quoted(const std::set<std::string>& names) {
  std::string out;
  size_t i = 0;
  for (const auto& n : names) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += "\"" + n + "\"";
    ++i;
  }
  return out;
}

// What the counters showed, against the rule's threshold.
std::string CounterSeen(const nlohmann::json& ev, const nlohmann::json& th) {
  std::string counter = th.value("counter", "");
  std::string measure = th.value("measure", "");
  double above = th.value("above", 0.0);
  double window = th.value("window_s", 0.0);
  std::string what = measure == "rate"    ? "rose at a rate of"
                     : measure == "delta" ? "rose by"
                     : measure == "ber"   ? "gave a bit error rate of"
                                          : "read";
  std::string per;
  if (measure == "rate") {
    double per_s = th.value("per_s", 1.0);
    per = per_s == 60  ? " per minute"
          : per_s == 1 ? " per second"
                       : " per " + FormatDuration(per_s);
  }
  std::string out = "The counter " + counter + " " + what + " " +
                    (ev.contains("measured") ? Num(ev.value("measured", 0.0)) : std::string("?")) +
                    per + (window > 0 ? " over " + FormatDuration(window) : "") +
                    ", above the threshold of " + Num(above) + per + ".";
  double clear = th.value("clear_below", 0.0);
  if (clear > 0) out += " The rule clears once it is below " + Num(clear) + per + ".";
  return out + " ";
}

// The events among a finding's observations: their names, how many, the first and last times.
struct SeenEvents {
  std::set<std::string> names;
  int events = 0;
  std::string first, last;  // ISO 8601

  void Add(const std::string& name, int type, const std::string& time) {
    ++events;
    names.insert(name.empty() ? "event " + std::to_string(type) : name);
    if (first.empty() || time < first) first = time;
    if (last.empty() || time > last) last = time;
  }
};

// Those written as JSON in the evidence, and those kept as they are (Finding::observed).
SeenEvents EventsOf(const Finding& f) {
  SeenEvents seen;
  const nlohmann::json& ev = f.evidence;
  if (ev.is_object() && ev.contains("observations") && ev["observations"].is_array()) {
    for (const auto& o : ev["observations"]) {
      if (!o.is_object() || !o.contains("event_type")) continue;
      seen.Add(o.value("name", ""), o.value("event_type", 0), o.value("time", ""));
    }
  }
  for (const auto& o : f.observed) {
    if (o->kind == Observation::Kind::kEvent)
      seen.Add(o->name, o->event_type, FormatIsoTime(o->time));
  }
  return seen;
}

// The events UFM reported: which, how often and when; "" when the evidence holds none.
std::string EventsSeen(const nlohmann::json& ev, const nlohmann::json& th, const SeenEvents& s) {
  const auto& [names, events, first, last] = s;
  if (events == 0) return "";
  std::string out = "UFM reported " + Quoted(names) + " " +
                    (events == 1 ? "once, at " + TimeOfDay(first)
                                 : std::to_string(events) + " times between " + TimeOfDay(first) +
                                       " and " + TimeOfDay(last)) +
                    ".";
  int count = th.value("count", 1);
  double window = th.value("window_s", 0.0);
  if (ev.contains("counter_downs")) {
    out += " The link-down counter saw " + Num(ev.value("counter_downs", 0.0)) + " downs.";
  }
  if (count > 1 && window > 0) {
    out +=
        " The rule fires at " + std::to_string(count) + " within " + FormatDuration(window) + ".";
  }
  double hold = th.value("for_s", 0.0);
  if (hold > 0) out += " It lasted " + FormatDuration(hold) + " without clearing.";
  return out + " ";
}

// Which rule, where it is written, and the rules hash.
std::string WhichRule(const Finding& f, const nlohmann::json& ev) {
  std::string out;
  if (ev.contains("rule") && ev["rule"].is_object()) {
    const auto& r = ev["rule"];
    out += "Rule " + r.value("name", f.rule) + " (" + Basename(r.value("file", std::string("?"))) +
           " line " + std::to_string(r.value("line", 0)) + ")";
  } else {
    out += "Rule " + f.rule;
  }
  return out + ", rules " + f.rules_hash.substr(0, 12) + ". ";
}

// What the service did, or why it kept its hands off.
std::string WhatWasDone(const Decision& d) {
  switch (d.kind) {
    case DecisionKind::kDisable:
      return "The service disables " + d.port + " so traffic avoids the link.";
    case DecisionKind::kIsolate:
      return "The service isolates " + d.port + ": the subnet manager routes around it.";
    case DecisionKind::kBlocked:
      return "Not taken out of service: " + d.note + ".";
    case DecisionKind::kTicket:
      return "No port action: " + d.note + ".";
    case DecisionKind::kSuppressed:
    case DecisionKind::kFinding:
      return "Recorded only: " + d.note + ".";
  }
  return "";
}

}  // namespace

std::string Explain(const Finding& f, const Decision& d) {
  const nlohmann::json& ev = f.evidence;
  const nlohmann::json th = ev.contains("threshold") ? ev["threshold"] : nlohmann::json::object();
  std::string out;
  if (!d.title.empty()) out += d.title + ". ";
  // What was seen: the counters, else UFM's events, else the finding's own reason.
  if (th.contains("counter")) {
    out += CounterSeen(ev, th);
  } else if (std::string events = EventsSeen(ev, th, EventsOf(f)); !events.empty()) {
    out += events;
  } else if (!f.reason.empty()) {
    out += f.reason + ". ";
  }
  out += WhichRule(f, ev);
  out += WhatWasDone(d);
  if (!d.repair_hint.empty()) out += " What to do: " + d.repair_hint;
  return out;
}

}  // namespace ufmr
