#include "notify/notice.h"

namespace ufmr {

namespace {

std::string Str(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The end of the ticket's link named `port` as its ends record it, or null.
const nlohmann::json* EndOf(const Ticket& t, const std::string& port) {
  if (!t.ends.is_array()) return nullptr;
  for (const auto& end : t.ends) {
    if (Str(end, "name") == port) return &end;
  }
  return nullptr;
}

// How people name a port: its label on the switch or host ("1/12"), else UFM's name.
std::string PortWords(const Ticket& t, const std::string& port) {
  const nlohmann::json* end = EndOf(t, port);
  const std::string label = end ? Str(*end, "label") : "";
  return label.empty() ? port : label;
}

// The port the service acts on, else the switch end, else the first.
std::string MainPort(const Ticket& t) {
  if (!t.action_port.empty()) return t.action_port;
  for (const std::string& p : {t.port_a, t.port_b}) {
    const nlohmann::json* end = EndOf(t, p);
    if (end && end->value("is_switch", false)) return p;
  }
  return t.port_a;
}

// "switch leaf-01 port 1/12 (rack r03), to host gpu-017"
std::string Where(const Ticket& t) {
  std::string out;
  const std::string port = PortWords(t, MainPort(t));
  if (!t.switch_name.empty()) {
    out = "switch " + t.switch_name + " port " + port;
  } else if (!t.host_name.empty()) {
    out = "host " + t.host_name + " port " + port;
  } else {
    out = "port " + port;
  }
  if (!t.rack.empty()) out += " (rack " + t.rack + ")";
  if (!t.switch_name.empty() && !t.host_name.empty()) out += ", to host " + t.host_name;
  return out;
}

// What the service did about a new ticket, from its decision and where the ticket is now.
std::string DoneWords(const Ticket& t, const nlohmann::json& decision) {
  const std::string kind = Str(decision, "decision");
  const std::string port = PortWords(t, t.action_port);
  const std::string verb = t.method == "isolate" ? "isolated" : "disabled";
  if (kind == "disable" || kind == "isolate") {
    if (t.disabled_by_us) return "The service " + verb + " port " + port + ".";
    if (!Str(decision, "drain_host").empty()) {
      return "The service is draining host " + Str(decision, "drain_host") +
             " in the job scheduler; port " + port + " is " + verb + " once its jobs end.";
    }
    return "The service is taking port " + port + " out of service (" + verb + ").";
  }
  const std::string guard = Str(decision, "guard");
  if (kind == "ticket" || guard == "ticket_only" || guard == "log_only" || guard.empty()) {
    return "No port was cut: the rule files a ticket only.";
  }
  std::string why = Str(decision, "reason");
  return "No port was cut: the " + guard + " guard held the service back" +
         (why.empty() ? "." : " (" + why + ").");
}

// The rule's hint (or a general one), then what closes the ticket.
std::string ToDoWords(const Ticket& t, const nlohmann::json& decision, bool cut) {
  std::string hint = Str(decision, "repair_hint");
  while (!hint.empty() && (hint.back() == '.' || hint.back() == ' ')) hint.pop_back();
  if (hint.empty()) hint = "look at the link's cable and transceivers";
  return "To do: " + hint + "; then report the repair on the ticket page (ticket #" +
         std::to_string(t.id) + ")" +
         (cut ? ", and the service brings the port back once the link proves clean." : ".");
}

// The text as a sentence: a full stop at its end unless it has one.
std::string Sentence(std::string text) {
  if (!text.empty() && text.back() != '.' && text.back() != '!' && text.back() != '?') {
    text += '.';
  }
  return text;
}

std::string SeverityOf(const NoticeSource& s, const std::string& kind) {
  if (kind == "breaker_tripped" || kind == "input_failing") return "critical";
  if (kind == "repaired" || kind == "breaker_rearmed" || kind == "input_ok") return "info";
  if (kind == "input_stale") return "warning";
  return s.ticket ? s.ticket->severity : "major";
}

// Title and text of a ticket's notification.
void TicketWords(const NoticeSource& s, const std::string& kind, Notification* n) {
  const Ticket& t = *s.ticket;
  const std::string where = Where(t);
  const std::string id = "ticket #" + std::to_string(t.id);
  if (kind == "breaker_tripped") {
    n->title = "Circuit breaker tripped on fabric " + s.fabric + ": no port will be cut";
    n->text = Sentence(s.message) +
              " No port is cut until a person re-arms the breaker on the dashboard, after looking "
              "at what tripped it (" +
              id + ").";
  } else if (kind == "breaker_rearmed") {
    n->title = "Circuit breaker re-armed on fabric " + s.fabric;
    n->text = Sentence(s.message) + " The service cuts ports again as its rules say.";
  } else if (kind == "ticket_opened") {
    const std::string kind_word = Str(s.decision, "decision");
    const bool acts = kind_word == "disable" || kind_word == "isolate";
    n->title = "Link fault on " + where + ": " + (acts ? "port cut" : "not cut") + " (" + id +
               ", " + t.rule + ")";
    n->text = Sentence(t.reason.empty() ? t.explanation : t.reason) + "\n" +
              DoneWords(t, s.decision) + "\n" + ToDoWords(t, s.decision, acts);
  } else if (kind == "soak_failed") {
    n->title = "Repair did not hold on " + where + " (" + id + ")";
    n->text = Sentence(s.message) +
              "\nThe port is out of service again; look at the link again and report the next "
              "repair on the ticket page.";
  } else if (kind == "escalated") {
    n->title = "Escalated: " + where + " (" + id + ")";
    n->text = Sentence(s.message) + "\nA person must decide what to do next.";
  } else if (kind == "drift") {
    n->title = "Port brought back by hand on " + where + " (" + id + ")";
    n->text = s.message;
  } else {  // repaired
    n->title = "Repaired: " + where + " (" + id + " closed)";
    n->text = Sentence(s.message) + "\nNothing left to do.";
  }
}

void InputWords(const NoticeSource& s, const std::string& kind, Notification* n) {
  if (kind == "input_ok") {
    n->title = "Input " + s.input + " is healthy again (fabric " + s.fabric + ")";
    n->text = "The service reads " + s.input + " again.";
    return;
  }
  const bool stale = kind == "input_stale";
  n->title =
      "Input " + s.input + " is " + (stale ? "stale" : "failing") + " (fabric " + s.fabric + ")";
  n->text = (stale ? "No read of " + s.input + " has succeeded for a while"
                   : "Reading " + s.input + " fails") +
            (s.message.empty() ? std::string(".") : ": " + s.message + ".") +
            "\nWhile it is, the service does not see the faults this input reports. To do: check "
            "UFM and the service's access to it (the dashboard's inputs panel and the service's "
            "log say more).";
}

}  // namespace

std::string NoticeKind(const NoticeSource& s) {
  if (s.kind == "opened") {
    return s.ticket && s.ticket->link_key == "storm" ? "breaker_tripped" : "ticket_opened";
  }
  if (s.kind == "soak_passed") return "repaired";
  if (s.kind == "rearmed") return "breaker_rearmed";
  return s.kind;  // soak_failed, escalated, drift, input_stale, input_failing, input_ok
}

bool NoticeKindResolves(const std::string& kind) {
  for (const char* k : {"ticket_opened", "breaker_tripped", "soak_failed", "escalated", "drift",
                        "input_stale", "input_failing"}) {
    if (kind == k) return true;
  }
  return false;
}

Notification NoticeOf(const NoticeSource& s, const std::string& dashboard_url) {
  Notification n;
  n.kind = NoticeKind(s);
  n.severity = SeverityOf(s, n.kind);
  n.at = s.at;
  n.labels["fabric"] = s.fabric;
  n.labels["kind"] = n.kind;
  n.labels["severity"] = n.severity;
  if (s.ticket) {
    const Ticket& t = *s.ticket;
    n.labels["ticket"] = std::to_string(t.id);
    if (t.link_key != "storm") {
      n.labels["rule"] = t.rule;
      n.labels["port"] = PortWords(t, MainPort(t));
    }
    if (!t.switch_name.empty()) n.labels["switch"] = t.switch_name;
    if (!t.rack.empty()) n.labels["rack"] = t.rack;
    if (!t.host_name.empty()) n.labels["host"] = t.host_name;
    if (!dashboard_url.empty()) {
      n.url = dashboard_url + (dashboard_url.back() == '/' ? "" : "/") + "tickets/" +
              std::to_string(t.id);
    }
    TicketWords(s, n.kind, &n);
  } else {
    n.labels["input"] = s.input;
    n.url = dashboard_url;
    InputWords(s, n.kind, &n);
  }
  return n;
}

nlohmann::json NotificationJson(const Notification& n) {
  return {{"kind", n.kind},    {"severity", n.severity},     {"title", n.title},
          {"text", n.text},    {"at", ToEpochSeconds(n.at)}, {"url", n.url},
          {"labels", n.labels}};
}

Notification NotificationFromJson(const nlohmann::json& j) {
  Notification n;
  if (!j.is_object()) return n;
  n.kind = j.value("kind", "");
  n.severity = j.value("severity", "");
  n.title = j.value("title", "");
  n.text = j.value("text", "");
  n.at = FromEpochSeconds(j.value("at", 0.0));
  n.url = j.value("url", "");
  if (j.contains("labels") && j["labels"].is_object()) {
    for (const auto& [k, v] : j["labels"].items()) {
      if (v.is_string()) n.labels[k] = v.get<std::string>();
    }
  }
  return n;
}

}  // namespace ufmr
