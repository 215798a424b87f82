#include "api/api.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "api/dashboard_pages.h"
#include "api/request_body.h"
#include "api/ticket_query.h"
#include "api/ticket_view.h"
#include "base/json_writer.h"
#include "base/utf8.h"
#include "notify/outbox.h"

namespace ufmr {

namespace {

// What the probes and the input list say of a database that does not answer: libpq's message
// names the server, its socket, the database and the user, and goes to the log instead.
constexpr const char* kDatabaseUnavailable = "unavailable (see the log)";

nlohmann::json OptTime(const std::optional<double>& t) {
  if (!t) return nullptr;
  return FormatIsoTime(FromEpochSeconds(*t));
}

}  // namespace

Api::Api(Store& store, Inventory& inventory, Metrics& metrics, LoopControl& remediator,
         const Clock& clock, const AuthGate& gate)
    : store_(store),
      inventory_(inventory),
      metrics_(metrics),
      remediator_(remediator),
      clock_(clock),
      gate_(gate),
      desk_(store, clock) {}

namespace {

// The ticket id and the JSON body (only `allowed` keys) of a ticket action.
struct TicketAction {
  int64_t id = 0;
  nlohmann::json body;
};

Result<TicketAction> ReadTicketAction(const HttpRequest& req,
                                      std::initializer_list<std::string_view> allowed,
                                      const std::string& example) {
  auto id = PathId(req);
  if (!id.ok()) return id.status();
  auto body = ReadObject(req.body, allowed, example);
  if (!body.ok()) return body.status();
  return TicketAction{id.value(), body.value()};
}

}  // namespace

void Api::Register(HttpRouter& router) {
  RegisterDashboardPages(router);
  gate_.Register(router);  // login, logout, me, the audit log
  RegisterTicketReads(router);
  RegisterStaffActions(router);
  RegisterInputRoutes(router);
  RegisterSilenceRoutes(router, store_, clock_, &gate_);
  RegisterBreakerRoutes(router);
  RegisterDecisionRoutes(router);
  RegisterProbeRoutes(router);
}

HttpHandler Api::Read(ReadMethod fn) {
  return gate_.Read([this, fn](const HttpRequest& r, const Principal&) { return (this->*fn)(r); });
}

HttpHandler Api::Mutate(Role role, const char* action, MutateMethod fn) {
  return gate_.Mutate(role, action, [this, fn](const HttpRequest& r, const Principal& p) {
    return (this->*fn)(r, p);
  });
}

void Api::RegisterTicketReads(HttpRouter& router) {
  router.Add("GET", "/api/tickets", Read(&Api::ListTickets));
  router.Add("GET", "/api/tickets.csv", Read(&Api::ExportTickets));
  router.Add("GET", "/api/tickets/{id}", Read(&Api::GetTicket));
  router.Add("GET", "/api/tickets/{id}/counters", Read(&Api::TicketCounters));
}

void Api::RegisterStaffActions(HttpRouter& router) {
  router.Add("POST", "/api/tickets/{id}/acknowledge",
             Mutate(Role::kTechnician, "ticket.acknowledge", &Api::Acknowledge));
  router.Add("POST", "/api/tickets/{id}/assign",
             Mutate(Role::kTechnician, "ticket.assign", &Api::Assign));
  router.Add("POST", "/api/tickets/{id}/comments",
             Mutate(Role::kTechnician, "ticket.comment", &Api::Comment));
  router.Add("POST", "/api/tickets/{id}/repaired",
             Mutate(Role::kTechnician, "ticket.repaired", &Api::Repaired));
  router.Add("POST", "/api/tickets/{id}/reopen",
             Mutate(Role::kEngineer, "ticket.reopen", &Api::Reopen));
  router.Add("POST", "/api/tickets/{id}/wontfix",
             Mutate(Role::kEngineer, "ticket.wontfix", &Api::WontFix));
}

void Api::RegisterInputRoutes(HttpRouter& router) {
  router.Add("GET", "/api/inputs", Read(&Api::Inputs));
  router.Add("GET", "/api/alerts", Read(&Api::Alerts));
  router.Add("GET", "/api/notify/failing", Read(&Api::NotifyFailing));
  router.Add("POST", "/api/alerts/{id}/clear",
             Mutate(Role::kEngineer, "alert.clear", &Api::ClearAlert));
}

void Api::RegisterBreakerRoutes(HttpRouter& router) {
  router.Add("GET", "/api/breaker", Read(&Api::Breaker));
  router.Add("POST", "/api/breaker/rearm",
             Mutate(Role::kEngineer, "breaker.rearm", &Api::RearmBreaker));
}

void Api::RegisterDecisionRoutes(HttpRouter& router) {
  router.Add("GET", "/api/decisions", Read(&Api::Decisions));
  router.Add("GET", "/api/rules", Read(&Api::RulesHash));
}

void Api::RegisterProbeRoutes(HttpRouter& router) {
  router.Add("GET", "/healthz", [this](const HttpRequest& r) { return Healthz(r); });
  router.Add("GET", "/readyz", [this](const HttpRequest& r) { return Readyz(r); });
  router.Add("GET", "/metrics", [this](const HttpRequest&) {
    return HttpResponse::Text(200, metrics_.Render(), "text/plain; version=0.0.4");
  });
}

TicketJsonWriter Api::TicketWriter() const {
  return TicketJsonWriter(inventory_, clock_, repeat_threshold_);
}

nlohmann::json Api::TicketJson(const Ticket& t, bool full) const {
  return TicketWriter().Json(t, full);
}

nlohmann::json Api::BreakerJson(const Store::BreakerState& b) const {
  return {
      {"tripped", b.tripped},
      {"tripped_at", OptTime(b.tripped_at)},
      {"reason", b.reason},
      {"ticket_id", b.ticket_id > 0 ? nlohmann::json(b.ticket_id) : nlohmann::json(nullptr)},
      {"rearmed_by", b.rearmed_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.rearmed_by)},
      {"rearmed_at", OptTime(b.rearmed_at)}};
}

HttpResponse Api::ListTickets(const HttpRequest& req) {
  auto q = ParseTicketQuery(req.query);
  if (!q.ok()) return HttpResponse::FromStatus(q.status());
  q->unparsed_ends = true;  // the writer parses a ticket's filed ends only if it needs them
  auto page = store_.ListTickets(q.value());
  if (!page.ok()) return HttpResponse::FromStatus(page.status());
  // Written straight to text: a page of tickets as a JSON tree cost more than the query.
  const TicketJsonWriter writer = TicketWriter();
  JsonWriter w;
  w.Reserve(page->tickets.size() * 1536 + 128);  // a ticket is about 1.4 KB
  w.BeginObject().Key("tickets").BeginArray();
  for (const auto& t : page->tickets) writer.Write(w, t, false);
  w.EndArray();
  w.Key("total").Int(page->total).Key("limit").Int(q->limit).Key("offset").Int(q->offset);
  w.EndObject();
  HttpResponse r;
  r.body = w.Take();
  return r;
}

HttpResponse Api::ExportTickets(const HttpRequest& req) {
  auto q = ParseTicketQuery(req.query);
  if (!q.ok()) return HttpResponse::FromStatus(q.status());
  // One file, not a page: up to the largest page unless the caller asked for less.
  if (!req.query.count("limit")) q->limit = kMaxTicketPage;
  auto page = store_.ListTickets(q.value());
  if (!page.ok()) return HttpResponse::FromStatus(page.status());
  std::string csv = TicketCsvHeader();
  double now = ToEpochSeconds(clock_.Now());
  for (const auto& t : page->tickets) csv += TicketCsvRow(t, now);
  HttpResponse r = HttpResponse::Text(200, std::move(csv), "text/csv; charset=utf-8");
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"tickets.csv\"");
  r.headers.emplace_back("X-Total-Count", std::to_string(page->total));
  return r;
}

HttpResponse Api::GetTicket(const HttpRequest& req) {
  auto id = PathId(req);
  if (!id.ok()) return HttpResponse::FromStatus(id.status());
  auto t = store_.GetTicket(id.value());
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  auto events = store_.Events(id.value());
  if (!events.ok()) return HttpResponse::FromStatus(events.status());
  auto actions = store_.Actions(id.value());
  if (!actions.ok()) return HttpResponse::FromStatus(actions.status());
  auto drains = store_.Drains(id.value());
  if (!drains.ok()) return HttpResponse::FromStatus(drains.status());
  nlohmann::json j = TicketJson(t.value());
  // The jobs on the host when the ticket opened (the job scheduler's), and the host's drains.
  j["host_jobs"] = t->host_jobs;
  j["drains"] = nlohmann::json::array();
  for (const auto& d : drains.value()) {
    j["drains"].push_back({{"id", d.id},
                           {"host", d.host},
                           {"node", d.node},
                           {"state", d.state},
                           {"reason", d.reason},
                           {"note", d.note},
                           {"escalated", d.escalated},
                           {"by_person", d.by_person},
                           {"sent_at", OptTime(d.sent_at)},
                           {"created_at", FormatIsoTime(FromEpochSeconds(d.created_at))},
                           {"updated_at", FormatIsoTime(FromEpochSeconds(d.updated_at))}});
  }
  const bool host_draining = std::any_of(drains->begin(), drains->end(), [](const NodeDrain& d) {
    return d.state == drain_state::kPending || d.state == drain_state::kDraining;
  });
  j["what_to_do"] = WhatToDo(t.value(), host_draining);
  j["evidence"] = nlohmann::json::object();
  j["events"] = nlohmann::json::array();
  for (const auto& e : events.value()) {
    if (e.kind == "opened" && j["evidence"].empty() && e.details.is_object()) {
      j["evidence"] = e.details;
    }
    j["events"].push_back({{"at", FormatIsoTime(FromEpochSeconds(e.at))},
                           {"kind", e.kind},
                           {"actor", e.actor},
                           {"message", e.message},
                           {"details", e.details}});
  }
  // The timeline is the ticket's events, oldest first (port actions report there as they go).
  j["timeline"] = j["events"];
  j["actions"] = nlohmann::json::array();
  for (const auto& a : actions.value()) {
    j["actions"].push_back({{"id", a.id},
                            {"port", a.port},
                            {"action", a.action},
                            {"state", a.state},
                            {"reason", a.reason},
                            {"job_id", a.job_id},
                            {"created_at", FormatIsoTime(FromEpochSeconds(a.created_at))},
                            {"updated_at", FormatIsoTime(FromEpochSeconds(a.updated_at))},
                            {"confirmed_at", OptTime(a.confirmed_at)},
                            {"tries", a.tries},
                            {"error", a.error}});
  }
  return HttpResponse::Json(200, j);
}

HttpResponse Api::TicketCounters(const HttpRequest& req) {
  auto id = PathId(req);
  if (!id.ok()) return HttpResponse::FromStatus(id.status());
  auto t = store_.GetTicket(id.value());
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  std::vector<std::string> ports;
  for (const auto& p : {t->port_a, t->port_b}) {
    if (!p.empty() && t->link_key != "storm") ports.push_back(p);
  }
  // From an hour before the ticket (what the link looked like before) to now or its close.
  double since = t->created_at - 3600;
  // Until an hour after it closed (or now), at most about 500 samples a port.
  std::optional<double> until;
  if (t->closed_at) until = *t->closed_at + 3600;
  auto samples = store_.CounterSamples(t->fabric, ports, since, until, 500);
  if (!samples.ok()) return HttpResponse::FromStatus(samples.status());
  std::map<std::pair<std::string, std::string>, nlohmann::json> series;
  for (const auto& s : samples.value()) {
    for (const auto& [counter, value] : s.counters.items()) {
      if (!value.is_number()) continue;
      auto& points = series[{s.port, counter}];
      if (points.is_null()) points = nlohmann::json::array();
      points.push_back({{"at", FormatIsoTime(FromEpochSeconds(s.at))}, {"value", value}});
    }
  }
  nlohmann::json out = nlohmann::json::array();
  for (auto& [key, points] : series) {
    out.push_back({{"port", key.first}, {"counter", key.second}, {"points", std::move(points)}});
  }
  return HttpResponse::Json(
      200,
      {{"ticket_id", t->id}, {"from", FormatIsoTime(FromEpochSeconds(since))}, {"series", out}});
}

Status Api::PingDatabase() {
  Status db = store_.Ping();
  std::lock_guard<std::mutex> lock(db_mu_);
  // libpq's message names the server, socket, database and user: the unauthenticated /healthz
  // and /readyz say only "unavailable", and the log has the message, once per change.
  std::string error = db.ok() ? "" : db.message();
  if (error != db_error_) {
    if (error.empty()) {
      spdlog::info("database ping: answers again");
    } else {
      spdlog::warn("database ping: {}", error);
    }
    db_error_ = error;
  }
  db_state_ = db.ok() ? "ok" : "unavailable";
  return db;
}

std::string Api::LastDatabaseState() const {
  std::lock_guard<std::mutex> lock(db_mu_);
  return db_state_;
}

HttpResponse Api::Inputs(const HttpRequest&) {
  TimePoint now = clock_.Now();
  nlohmann::json inputs = remediator_.inputs().ToJson(now);
  Status db = PingDatabase();
  inputs.push_back(
      {{"name", "database"},
       {"enabled", true},
       {"state", db.ok() ? "ok" : "failing"},
       {"last_ok_at", db.ok() ? nlohmann::json(FormatIsoTime(now)) : nullptr},
       {"last_error", db.ok() ? nlohmann::json(nullptr) : nlohmann::json(kDatabaseUnavailable)},
       {"last_error_at", db.ok() ? nlohmann::json(nullptr) : nlohmann::json(FormatIsoTime(now))},
       {"failures", db.ok() ? 0 : 1},
       {"interval_s", 0},
       {"detail", ""}});
  return HttpResponse::Json(200, {{"inputs", inputs}});
}

HttpResponse Api::Alerts(const HttpRequest&) {
  auto alerts = store_.ActiveAlerts(100);
  if (!alerts.ok()) return HttpResponse::FromStatus(alerts.status());
  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : alerts.value()) {
    list.push_back({{"id", a.id},
                    {"kind", a.kind},
                    {"message", a.message},
                    {"details", a.details},
                    {"created_at", FormatIsoTime(FromEpochSeconds(a.created_at))}});
  }
  return HttpResponse::Json(200, {{"alerts", list}});
}

HttpResponse Api::NotifyFailing(const HttpRequest&) {
  auto failing = NotifyOutbox(store_).Failing(100);
  if (!failing.ok()) return HttpResponse::FromStatus(failing.status());
  return HttpResponse::Json(200, {{"deliveries", failing.value()}});
}

HttpResponse Api::ClearAlert(const HttpRequest& r, const Principal& who) {
  auto id = PathId(r);
  if (!id.ok()) return HttpResponse::FromStatus(id.status());
  auto body = ReadObject(r.body, {"by", "note"}, R"({})");
  if (!body.ok()) return HttpResponse::FromStatus(body.status());
  Status s = store_.ClearAlert(id.value(), who.name);
  if (!s.ok()) return HttpResponse::FromStatus(s);
  return HttpResponse::Json(200, {{"cleared", id.value()}, {"by", who.name}});
}

HttpResponse Api::Breaker(const HttpRequest&) {
  auto b = store_.GetBreaker();
  if (!b.ok()) return HttpResponse::FromStatus(b.status());
  return HttpResponse::Json(200, BreakerJson(b.value()));
}

HttpResponse Api::RearmBreaker(const HttpRequest& r, const Principal& who) {
  auto body = ReadObject(r.body, {"by", "note"}, R"({"note": "why"})");
  if (!body.ok()) return HttpResponse::FromStatus(body.status());
  std::string note;
  Status s = StringField(body.value(), "note", &note);
  if (s.ok()) s = remediator_.RearmBreaker(who.name, note);
  if (!s.ok()) return HttpResponse::FromStatus(s);
  return Breaker(r);
}

HttpResponse Api::Decisions(const HttpRequest& r) {
  int limit = 200;
  std::string l = r.Query("limit");
  if (!l.empty()) {
    if (l.size() > 6 || l.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(l) < 1) {
      return HttpResponse::Error(400, "limit must be a positive integer");
    }
    limit = std::min(std::stoi(l), 5000);
  }
  const std::string rule = r.Query("rule");
  std::string clean;
  if (rule.size() > 200 || SanitizeUtf8(rule, &clean)) {
    // A NUL would cut the filter short in the database (and match everything), and invalid
    // UTF-8 makes it refuse the query.
    return HttpResponse::Error(400,
                               "rule must be a rule's name: UTF-8 text without NUL, at "
                               "most 200 bytes");
  }
  auto decisions = store_.RecentDecisions(limit, rule);
  if (!decisions.ok()) return HttpResponse::FromStatus(decisions.status());
  return HttpResponse::Json(200, {{"decisions", decisions.value()}});
}

HttpResponse Api::RulesHash(const HttpRequest&) {
  return HttpResponse::Json(200, {{"hash", remediator_.rules_hash()}});
}

HttpResponse Api::Healthz(const HttpRequest&) {
  // No database round trip here: a probe must answer at once even while the database host is
  // unreachable (a ping could wait for a connect timeout). The state is the last ping's (by
  // /readyz and /api/inputs).
  std::string db = LastDatabaseState();
  nlohmann::json body{{"status", db == "ok" || db == "unknown" ? "ok" : "degraded"},
                      {"database", db},
                      {"role", remediator_.acting() ? "leader" : "standby"},
                      {"fabric", store_.fabric()},
                      {"inventory_ports", inventory_.size()}};
  // Alive is not ready: a database outage must not make an orchestrator restart a process that
  // will carry on by itself when the database is back (/readyz says 503 meanwhile).
  return HttpResponse::Json(200, body);
}

// Ready to do its job: the database answers, UFM answered the last time it was asked (and at
// least once), and rules are loaded. For load balancers and orchestrators; no login.
HttpResponse Api::Readyz(const HttpRequest&) {
  TimePoint now = clock_.Now();
  Status db = PingDatabase();
  const InputHealth& in = remediator_.inputs();
  std::string inventory = in.State("inventory", now);
  std::string events = in.State("ufm_events", now);
  // A standby polls only the inventory (for its dashboard); the leader polls events too.
  bool ufm_ok = inventory == "ok" && (!remediator_.acting() || events == "ok" || events == "stale");
  std::string hash = remediator_.rules_hash();
  nlohmann::json checks = {
      {"database", {{"ok", db.ok()}, {"detail", db.ok() ? "" : kDatabaseUnavailable}}},
      {"ufm", {{"ok", ufm_ok}, {"detail", "inventory " + inventory + ", events " + events}}},
      {"rules", {{"ok", !hash.empty()}, {"detail", hash.empty() ? "no rules loaded" : hash}}}};
  bool ready = db.ok() && ufm_ok && !hash.empty();
  return HttpResponse::Json(ready ? 200 : 503,
                            {{"status", ready ? "ready" : "not ready"},
                             {"role", remediator_.acting() ? "leader" : "standby"},
                             {"fabric", store_.fabric()},
                             {"checks", checks}});
}

HttpResponse Api::Repaired(const HttpRequest& req, const Principal& who) {
  auto a = ReadTicketAction(req, {"kind", "note", "by"}, R"({"kind": "cable_replaced"})");
  if (!a.ok()) return HttpResponse::FromStatus(a.status());
  std::string kind, note;
  Status s = StringField(a->body, "kind", &kind);
  if (s.ok()) s = StringField(a->body, "note", &note);
  if (!s.ok()) return HttpResponse::FromStatus(s);
  if (kind.empty()) {
    return HttpResponse::Error(400,
                               "\"kind\" (what was done) is required: reseat, cable_replaced, "
                               "transceiver_replaced, switch_port_replaced, hca_replaced or other");
  }
  if (note.size() > 4000)
    return HttpResponse::Error(400, "\"note\" is longer than 4000 characters");
  auto t = remediator_.ReportRepair(a->id, who.name, kind, note);
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  return HttpResponse::Json(200, TicketJson(t.value()));
}

HttpResponse Api::Acknowledge(const HttpRequest& req, const Principal& who) {
  auto a = ReadTicketAction(req, {"note", "by"}, R"({"note": "on my way"})");
  if (!a.ok()) return HttpResponse::FromStatus(a.status());
  std::string note;
  Status s = StringField(a->body, "note", &note);
  if (s.ok() && note.size() > 4000) s = Status::InvalidArgument("\"note\" is too long");
  if (!s.ok()) return HttpResponse::FromStatus(s);
  auto t = remediator_.Acknowledge(a->id, who.name, note);
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  return HttpResponse::Json(200, TicketJson(t.value()));
}

HttpResponse Api::Assign(const HttpRequest& req, const Principal& who) {
  auto a = ReadTicketAction(req, {"to", "by"}, R"({"to": "name"})");
  if (!a.ok()) return HttpResponse::FromStatus(a.status());
  if (!a->body.contains("to")) {
    return HttpResponse::Error(400, "\"to\" is required (a user name, or \"\" to unassign)");
  }
  std::string to;
  Status s = StringField(a->body, "to", &to);
  if (!s.ok()) return HttpResponse::FromStatus(s);
  auto t = desk_.Assign(a->id, who.name, to);
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  return HttpResponse::Json(200, TicketJson(t.value()));
}

HttpResponse Api::Comment(const HttpRequest& req, const Principal& who) {
  auto a = ReadTicketAction(req, {"text", "by"}, R"({"text": "..."})");
  if (!a.ok()) return HttpResponse::FromStatus(a.status());
  std::string text;
  Status s = StringField(a->body, "text", &text);
  if (!s.ok()) return HttpResponse::FromStatus(s);
  auto t = desk_.Comment(a->id, who.name, text);
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  return HttpResponse::Json(200, TicketJson(t.value()));
}

HttpResponse Api::Reopen(const HttpRequest& req, const Principal& who) {
  auto a = ReadTicketAction(req, {"reason", "by"}, R"({"reason": "..."})");
  if (!a.ok()) return HttpResponse::FromStatus(a.status());
  std::string reason;
  Status s = StringField(a->body, "reason", &reason);
  if (!s.ok()) return HttpResponse::FromStatus(s);
  auto t = desk_.Reopen(a->id, who.name, reason);
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  return HttpResponse::Json(200, TicketJson(t.value()));
}

HttpResponse Api::WontFix(const HttpRequest& req, const Principal& who) {
  auto a = ReadTicketAction(req, {"reason", "by"}, R"({"reason": "..."})");
  if (!a.ok()) return HttpResponse::FromStatus(a.status());
  std::string reason;
  Status s = StringField(a->body, "reason", &reason);
  if (!s.ok()) return HttpResponse::FromStatus(s);
  auto t = desk_.WontFix(a->id, who.name, reason);
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  return HttpResponse::Json(200, TicketJson(t.value()));
}

}  // namespace ufmr
