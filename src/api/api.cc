#include "api/api.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string_view>

#include "api/request_body.h"
#include "api/ticket_query.h"
#include "api/ticket_view.h"
#include "base/json_writer.h"
#include "base/utf8.h"
#include "decide/silence.h"

namespace ufmr {

namespace {
// What the probes and the input list say of a database that does not answer: libpq's message
// names the server, its socket, the database and the user, and goes to the log instead.
constexpr const char* kDatabaseUnavailable = "unavailable (see the log)";
}  // namespace

namespace web {
extern const std::string_view kDashboardHtml;
}  // namespace web

namespace {

nlohmann::json OptTime(const std::optional<double>& t) {
  if (!t) return nullptr;
  return FormatIsoTime(FromEpochSeconds(*t));
}

// The {id} of a ticket, an alert or a silence.
Result<int64_t> PathId(const HttpRequest& req) {
  const std::string& s = req.params.at("id");
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) {
    return Status::InvalidArgument("id must be a positive integer, got '" + s + "'");
  }
  return std::stoll(s);
}

}  // namespace

void RegisterSilenceRoutes(HttpRouter& router, Store& store_ref, const Clock& clock_ref,
                           const AuthGate* gate) {
  // The handlers outlive this call: hold the objects, not the parameters.
  Store* store = &store_ref;
  const Clock* clock = &clock_ref;
  // Behind the gate the person is the logged-in user; without one (tests), the body's "by".
  auto read = [gate](std::function<HttpResponse(const HttpRequest&)> h) -> HttpHandler {
    if (!gate) return h;
    return gate->Read([h](const HttpRequest& r, const Principal&) { return h(r); });
  };
  using Mut = std::function<HttpResponse(const HttpRequest&, const std::string& by)>;
  auto mutate = [gate](const char* action, Mut h) -> HttpHandler {
    if (!gate) {
      return [h](const HttpRequest& r) {
        auto body = ParseBodyJson(r.body.empty() ? "{}" : r.body);
        std::string by;
        if (body.is_object() && body.contains("by") && body["by"].is_string()) by = body["by"];
        return h(r, by);
      };
    }
    return gate->Mutate(Role::kEngineer, action,
                        [h](const HttpRequest& r, const Principal& p) { return h(r, p.name); });
  };
  router.Add("GET", "/api/silences", read([store, clock](const HttpRequest& r) {
               std::string all = r.Query("all", "0");
               if (all != "0" && all != "1" && all != "false" && all != "true") {
                 return HttpResponse::Error(400, "all must be 1 or 0, got '" + all + "'");
               }
               auto silences = store->ListSilences(all == "1" || all == "true", 500);
               if (!silences.ok()) return HttpResponse::FromStatus(silences.status());
               TimePoint now = clock->Now();
               nlohmann::json list = nlohmann::json::array();
               for (const auto& s : silences.value()) list.push_back(s.ToJson(now));
               return HttpResponse::Json(200, {{"silences", list}});
             }));
  router.Add("POST", "/api/silences",
             mutate("silence.create", [store, clock](const HttpRequest& r, const std::string& by) {
               auto s = ReadNewSilence(r.body, clock->Now());
               if (!s.ok()) return HttpResponse::FromStatus(s.status());
               if (!by.empty()) s->created_by = by;
               auto added = store->AddSilence(s.value());
               if (!added.ok()) return HttpResponse::FromStatus(added.status());
               // The database has just recorded it in force from its now() (created_at); a clock
               // here a few milliseconds behind that must not report it inactive.
               return HttpResponse::Json(201,
                                         added->ToJson(std::max(clock->Now(), added->created_at)));
             }));
  router.Add("POST", "/api/silences/{id}/expire",
             mutate("silence.expire", [store, clock](const HttpRequest& r, const std::string& who) {
               auto id = PathId(r);
               if (!id.ok()) return HttpResponse::FromStatus(id.status());
               auto body = ReadObject(r.body, {"by"}, R"({})");
               if (!body.ok()) return HttpResponse::FromStatus(body.status());
               std::string by = who, given;
               Status typed = StringField(body.value(), "by", &given);
               if (!typed.ok()) return HttpResponse::FromStatus(typed);
               if (by.size() > kMaxSilenceActorLength) {
                 return HttpResponse::Error(400, "\"by\" is longer than " +
                                                     std::to_string(kMaxSilenceActorLength) +
                                                     " characters");
               }
               Status st = store->ExpireSilence(id.value(), by);
               if (!st.ok()) return HttpResponse::FromStatus(st);
               auto s = store->GetSilence(id.value());
               if (!s.ok()) return HttpResponse::FromStatus(s.status());
               return HttpResponse::Json(200, s->ToJson(clock->Now()));
             }));
}

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

// A ticket's port, as the inventory knows it now (else as it was when the ticket was filed).
constexpr std::pair<const char*, std::string PortInfo::*> kPortTextFields[] = {
    {"guid", &PortInfo::guid},
    {"system_guid", &PortInfo::system_guid},
    {"system_name", &PortInfo::system_name},
    {"node_description", &PortInfo::node_description},
    {"description", &PortInfo::description},
    {"label", &PortInfo::label},
    {"cable_serial", &PortInfo::cable_serial},
    {"logical_state", &PortInfo::logical_state},
    {"physical_state", &PortInfo::physical_state},
    {"peer", &PortInfo::peer},
};

}  // namespace

void Api::WriteTicket(JsonWriter& w, const Ticket& t, bool full) const {
  const double end = t.closed_at ? *t.closed_at : ToEpochSeconds(clock_.Now());
  char buf[24];
  auto time = [&](const char* key, const std::optional<double>& v) {
    w.Key(key);
    if (v) {
      w.String(FormatIsoTime(FromEpochSeconds(*v), buf));
    } else {
      w.Null();
    }
  };
  w.BeginObject();
  w.Key("id").Int(t.id);
  w.Key("fabric").String(t.fabric);
  w.Key("state").String(t.state);
  w.Key("reason").String(t.reason);
  w.Key("rule").String(t.rule);
  w.Key("severity").String(t.severity);
  w.Key("priority").Int(t.priority);
  w.Key("attempts").Int(t.attempts);
  w.Key("action_port").String(t.action_port);
  w.Key("disabled_by_us").Bool(t.disabled_by_us);
  w.Key("acknowledged_by").StringOrNull(t.acknowledged_by);
  w.Key("assigned_to").StringOrNull(t.assigned_to);
  w.Key("resolution").String(t.resolution);
  w.Key("resolution_note").String(t.resolution_note);
  w.Key("link").String(t.link_key);
  time("created_at", t.created_at);
  time("updated_at", t.updated_at);
  time("closed_at", t.closed_at);
  time("soak_until", t.soak_until);
  w.Key("age_seconds").Number(std::max(0.0, end - t.created_at));
  w.Key("method").String(t.method);
  w.Key("guard").String(t.guard);
  if (full) w.Key("explanation").String(t.explanation);
  w.Key("repair_kind").String(t.repair_kind);
  w.Key("repeat_count").Int(t.repeat_count);
  w.Key("repeat_offender").Bool(t.link_key != "storm" && t.repeat_count >= repeat_threshold_);
  w.Key("storm").Bool(t.link_key == "storm");
  w.Key("location").BeginObject();
  w.Key("rack").String(t.rack).Key("switch").String(t.switch_name).Key("host").String(t.host_name);
  w.EndObject();
  // Each end as UFM knows it now; what it does not know (or no longer) as it was when the ticket
  // was filed. A list leaves the filed ends as text: parsed here only if a port falls back on them.
  std::optional<nlohmann::json> parsed;
  auto filed_ends = [&]() -> const nlohmann::json& {
    if (t.ends_text.empty()) return t.ends;
    if (!parsed) {
      parsed = nlohmann::json::parse(t.ends_text, nullptr, false);
      if (!parsed->is_array()) parsed = nlohmann::json::array();
    }
    return *parsed;
  };
  w.Key("ports").BeginArray();
  for (const std::string* p : {&t.port_a, &t.port_b}) {
    if (p->empty()) continue;
    const nlohmann::json* filed = nullptr;
    bool looked = false;
    auto find_filed = [&]() {
      if (!looked) {
        looked = true;
        for (const auto& e : filed_ends()) {
          if (e.is_object() && e.contains("name") && e["name"] == *p) filed = &e;
        }
      }
      return filed;
    };
    auto was = [&](const char* key) -> std::string {
      const nlohmann::json* f = find_filed();
      if (!f) return "";
      auto it = f->find(key);
      return it != f->end() && it->is_string() ? it->get<std::string>() : "";
    };
    auto field = [&](const char* key, const std::string* now) {
      if (now && !now->empty()) {
        w.Key(key).String(*now);
      } else {
        w.Key(key).String(was(key));
      }
    };
    w.BeginObject();
    w.Key("name").String(*p);
    // Read in place, under the inventory's lock: a copy of each port was a tenth of a list's CPU.
    const bool known = inventory_.With(*p, [&](const PortInfo& info) {
      for (const auto& [key, member] : kPortTextFields) field(key, &(info.*member));
      w.Key("number").Int(info.number);
      w.Key("is_switch").Bool(info.is_switch());
    });
    if (!known) {
      for (const auto& [key, member] : kPortTextFields) field(key, nullptr);
      if (const nlohmann::json* f = find_filed()) {
        auto n = f->find("number");
        auto sw = f->find("is_switch");
        w.Key("number").Int(n != f->end() && n->is_number_integer() ? n->get<int64_t>() : 0);
        w.Key("is_switch").Bool(sw != f->end() && sw->is_boolean() && sw->get<bool>());
      }
    }
    w.Key("known").Bool(known);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

nlohmann::json Api::TicketJson(const Ticket& t, bool full) const {
  JsonWriter w;
  WriteTicket(w, t, full);
  return nlohmann::json::parse(w.str());
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

void Api::Register(HttpRouter& router) {
  // The pages carry no data (the script asks the API, which checks who asks): served to anyone.
  auto page = [](const HttpRequest&) {
    HttpResponse r =
        HttpResponse::Text(200, std::string(web::kDashboardHtml), "text/html; charset=utf-8");
    // Everything the page needs is inline; nothing may load from elsewhere.
    r.headers.emplace_back("Content-Security-Policy",
                           "default-src 'self'; script-src 'unsafe-inline'; style-src "
                           "'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
                           "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("Referrer-Policy", "same-origin");
    r.headers.emplace_back("Cache-Control", "no-cache");
    return r;
  };
  router.Add("GET", "/", page);
  router.Add("GET", "/tickets/{id}", page);
  router.Add("GET", "/tickets/{id}/print", page);  // the printable work order
  router.Add("GET", "/silences", page);
  router.Add("GET", "/login", page);
  gate_.Register(router);
  auto read = [this](HttpResponse (Api::*fn)(const HttpRequest&)) {
    return gate_.Read(
        [this, fn](const HttpRequest& r, const Principal&) { return (this->*fn)(r); });
  };
  auto mutate = [this](Role role, const char* action,
                       HttpResponse (Api::*fn)(const HttpRequest&, const Principal&)) {
    return gate_.Mutate(role, action, [this, fn](const HttpRequest& r, const Principal& p) {
      return (this->*fn)(r, p);
    });
  };
  router.Add("GET", "/api/tickets", read(&Api::ListTickets));
  router.Add("GET", "/api/tickets.csv", read(&Api::ExportTickets));
  router.Add("GET", "/api/tickets/{id}", read(&Api::GetTicket));
  router.Add("GET", "/api/tickets/{id}/counters", read(&Api::TicketCounters));
  router.Add("POST", "/api/tickets/{id}/acknowledge",
             mutate(Role::kTechnician, "ticket.acknowledge", &Api::Acknowledge));
  router.Add("POST", "/api/tickets/{id}/assign",
             mutate(Role::kTechnician, "ticket.assign", &Api::Assign));
  router.Add("POST", "/api/tickets/{id}/comments",
             mutate(Role::kTechnician, "ticket.comment", &Api::Comment));
  router.Add("POST", "/api/tickets/{id}/repaired",
             mutate(Role::kTechnician, "ticket.repaired", &Api::Repaired));
  router.Add("POST", "/api/tickets/{id}/reopen",
             mutate(Role::kEngineer, "ticket.reopen", &Api::Reopen));
  router.Add("POST", "/api/tickets/{id}/wontfix",
             mutate(Role::kEngineer, "ticket.wontfix", &Api::WontFix));
  router.Add("GET", "/api/inputs", read(&Api::Inputs));
  router.Add("GET", "/api/alerts", gate_.Read([this](const HttpRequest&, const Principal&) {
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
  }));
  router.Add(
      "POST", "/api/alerts/{id}/clear",
      gate_.Mutate(Role::kEngineer, "alert.clear",
                   [this](const HttpRequest& r, const Principal& who) {
                     auto id = PathId(r);
                     if (!id.ok()) return HttpResponse::FromStatus(id.status());
                     auto body = ReadObject(r.body, {"by", "note"}, R"({})");
                     if (!body.ok()) return HttpResponse::FromStatus(body.status());
                     Status s = store_.ClearAlert(id.value(), who.name);
                     if (!s.ok()) return HttpResponse::FromStatus(s);
                     return HttpResponse::Json(200, {{"cleared", id.value()}, {"by", who.name}});
                   }));
  RegisterSilenceRoutes(router, store_, clock_, &gate_);
  router.Add("GET", "/api/breaker", gate_.Read([this](const HttpRequest&, const Principal&) {
    auto b = store_.GetBreaker();
    if (!b.ok()) return HttpResponse::FromStatus(b.status());
    return HttpResponse::Json(200, BreakerJson(b.value()));
  }));
  router.Add("POST", "/api/breaker/rearm",
             gate_.Mutate(Role::kEngineer, "breaker.rearm",
                          [this](const HttpRequest& r, const Principal& who) {
                            auto body = ReadObject(r.body, {"by", "note"}, R"({"note": "why"})");
                            if (!body.ok()) return HttpResponse::FromStatus(body.status());
                            std::string note;
                            Status s = StringField(body.value(), "note", &note);
                            if (s.ok()) s = remediator_.RearmBreaker(who.name, note);
                            if (!s.ok()) return HttpResponse::FromStatus(s);
                            auto b = store_.GetBreaker();
                            if (!b.ok()) return HttpResponse::FromStatus(b.status());
                            return HttpResponse::Json(200, BreakerJson(b.value()));
                          }));
  router.Add("GET", "/api/decisions", gate_.Read([this](const HttpRequest& r, const Principal&) {
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
  }));
  router.Add("GET", "/api/rules", gate_.Read([this](const HttpRequest&, const Principal&) {
    return HttpResponse::Json(200, {{"hash", remediator_.rules_hash()}});
  }));
  router.Add("GET", "/healthz", [this](const HttpRequest&) {
    // No database round trip here: a probe must answer at once even while the database host
    // is unreachable (a ping could wait for a connect timeout). The state is the last ping's
    // (by /readyz and /api/inputs).
    std::string db = LastDatabaseState();
    nlohmann::json body{{"status", db == "ok" || db == "unknown" ? "ok" : "degraded"},
                        {"database", db},
                        {"role", remediator_.acting() ? "leader" : "standby"},
                        {"fabric", store_.fabric()},
                        {"inventory_ports", inventory_.size()}};
    // Alive is not ready: a database outage must not make an orchestrator restart a process
    // that will carry on by itself when the database is back (/readyz says 503 meanwhile).
    return HttpResponse::Json(200, body);
  });
  // Ready to do its job: the database answers, UFM answered the last time it was asked (and at
  // least once), and rules are loaded. For load balancers and orchestrators; no login.
  router.Add("GET", "/readyz", [this](const HttpRequest&) {
    TimePoint now = clock_.Now();
    Status db = PingDatabase();
    const InputHealth& in = remediator_.inputs();
    std::string inventory = in.State("inventory", now);
    std::string events = in.State("ufm_events", now);
    // A standby polls only the inventory (for its dashboard); the leader polls events too.
    bool ufm_ok =
        inventory == "ok" && (!remediator_.acting() || events == "ok" || events == "stale");
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
  });
  router.Add("GET", "/metrics", [this](const HttpRequest&) {
    return HttpResponse::Text(200, metrics_.Render(), "text/plain; version=0.0.4");
  });
}

HttpResponse Api::ListTickets(const HttpRequest& req) {
  auto q = ParseTicketQuery(req.query);
  if (!q.ok()) return HttpResponse::FromStatus(q.status());
  q->unparsed_ends = true;  // WriteTicket parses a ticket's filed ends only if it needs them
  auto page = store_.ListTickets(q.value());
  if (!page.ok()) return HttpResponse::FromStatus(page.status());
  // Written straight to text: a page of tickets as a JSON tree cost more than the query.
  JsonWriter w;
  w.Reserve(page->tickets.size() * 1536 + 128);  // a ticket is about 1.4 KB
  w.BeginObject().Key("tickets").BeginArray();
  for (const auto& t : page->tickets) WriteTicket(w, t, false);
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
  nlohmann::json j = TicketJson(t.value());
  j["what_to_do"] = WhatToDo(t.value());
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
