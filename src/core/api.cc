#include "core/api.h"

#include <algorithm>
#include <chrono>
#include <string_view>

#include "core/duration.h"
#include "core/silence.h"

namespace ufmr {

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

// Reads {"by": ..., "note": ...}; "by" is required so every human step has a name on it.
Status ReadActor(const HttpRequest& req, std::string* by, std::string* note) {
  auto body = nlohmann::json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return Status::InvalidArgument("body must be a JSON object like {\"by\": \"name\"}");
  }
  if (!body.contains("by") || !body["by"].is_string() || body["by"].get<std::string>().empty()) {
    return Status::InvalidArgument("\"by\" (who is reporting) is required");
  }
  *by = body["by"].get<std::string>();
  if (by->size() > 200) return Status::InvalidArgument("\"by\" is longer than 200 characters");
  if (body.contains("note")) {
    if (!body["note"].is_string()) return Status::InvalidArgument("\"note\" must be a string");
    *note = body["note"].get<std::string>();
    if (note->size() > 4000)
      return Status::InvalidArgument("\"note\" is longer than 4000 characters");
  }
  return Status::Ok();
}

// A silence lasts at most this long, so a forgotten one ends by itself.
constexpr double kMaxSilenceSeconds = 30 * 86400;

// Reads a JSON object body in which only `allowed` keys may appear ("" counts as {}).
Result<nlohmann::json> ReadObject(const HttpRequest& req,
                                  std::initializer_list<std::string_view> allowed,
                                  const std::string& example) {
  auto body = nlohmann::json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return Status::InvalidArgument("body must be a JSON object like " + example);
  }
  for (const auto& [key, value] : body.items()) {
    bool known = false;
    std::string expected;
    for (std::string_view a : allowed) {
      known = known || key == a;
      expected += (expected.empty() ? "" : ", ") + std::string(a);
    }
    if (!known) {
      return Status::InvalidArgument("unknown field \"" + key + "\" (expected " + expected + ")");
    }
  }
  return body;
}

// body[key] as a string; "" if absent.
Status StringField(const nlohmann::json& body, const char* key, std::string* out) {
  if (!body.contains(key)) return Status::Ok();
  if (!body[key].is_string()) {
    return Status::InvalidArgument("\"" + std::string(key) + "\" must be a string");
  }
  *out = body[key].get<std::string>();
  return Status::Ok();
}

// The body of POST /api/silences as a Silence created at `now`.
Result<Silence> ReadNewSilence(const HttpRequest& req, TimePoint now) {
  auto parsed = ReadObject(
      req, {"port", "switch", "host", "reason", "duration", "expires_at", "by"},
      R"({"host": "gpu-node-0[0-9]+", "reason": "...", "duration": "2h", "by": "name"})");
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& body = parsed.value();
  Silence s;
  std::string duration, expires_at;
  for (auto [key, out] : {std::pair<const char*, std::string*>{"port", &s.port},
                          {"switch", &s.switch_},
                          {"host", &s.host},
                          {"reason", &s.reason},
                          {"by", &s.created_by},
                          {"duration", &duration},
                          {"expires_at", &expires_at}}) {
    Status st = StringField(body, key, out);
    if (!st.ok()) return st;
  }
  s.created_at = now;
  if (!duration.empty() && !expires_at.empty()) {
    return Status::InvalidArgument("give \"duration\" or \"expires_at\", not both");
  }
  double seconds = 0;
  if (!duration.empty()) {
    auto d = ParseDuration(duration);
    if (!d.ok()) return Status::InvalidArgument("\"duration\": " + d.status().message());
    seconds = d.value();
    if (seconds <= 0) return Status::InvalidArgument("\"duration\" must be more than 0");
    if (seconds > kMaxSilenceSeconds) {
      return Status::InvalidArgument("\"duration\" " + duration + " is longer than " +
                                     FormatDuration(kMaxSilenceSeconds));
    }
    s.expires_at = now + std::chrono::duration_cast<TimePoint::duration>(Seconds(seconds));
  } else if (!expires_at.empty()) {
    auto t = ParseIsoTime(expires_at);
    if (!t.ok()) return Status::InvalidArgument("\"expires_at\": " + t.status().message());
    s.expires_at = t.value();
    seconds = Seconds(s.expires_at - now).count();
    if (seconds <= 0) {
      return Status::InvalidArgument("\"expires_at\" " + expires_at + " is not in the future");
    }
    if (seconds > kMaxSilenceSeconds) {
      return Status::InvalidArgument("\"expires_at\" " + expires_at + " is more than " +
                                     FormatDuration(kMaxSilenceSeconds) + " from now");
    }
  } else {
    return Status::InvalidArgument(
        "\"duration\" (e.g. \"2h\") or \"expires_at\" (ISO 8601) is required");
  }
  Status valid = ValidateSilence(s);
  if (!valid.ok()) return valid;
  return s;
}

}  // namespace

void RegisterSilenceRoutes(HttpRouter& router, Store& store_ref, const Clock& clock_ref) {
  // The handlers outlive this call: hold the objects, not the parameters.
  Store* store = &store_ref;
  const Clock* clock = &clock_ref;
  router.Add("GET", "/api/silences", [store, clock](const HttpRequest& r) {
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
  });
  router.Add("POST", "/api/silences", [store, clock](const HttpRequest& r) {
    auto s = ReadNewSilence(r, clock->Now());
    if (!s.ok()) return HttpResponse::FromStatus(s.status());
    auto added = store->AddSilence(s.value());
    if (!added.ok()) return HttpResponse::FromStatus(added.status());
    // The database has just recorded it in force from its now() (created_at); a clock here a few
    // milliseconds behind that must not report it inactive.
    return HttpResponse::Json(201, added->ToJson(std::max(clock->Now(), added->created_at)));
  });
  router.Add("POST", "/api/silences/{id}/expire", [store, clock](const HttpRequest& r) {
    auto id = PathId(r);
    if (!id.ok()) return HttpResponse::FromStatus(id.status());
    auto body = ReadObject(r, {"by"}, R"({"by": "name"})");
    if (!body.ok()) return HttpResponse::FromStatus(body.status());
    std::string by;
    Status st = StringField(body.value(), "by", &by);
    if (st.ok() && by.size() > kMaxSilenceActorLength) {
      st = Status::InvalidArgument("\"by\" is longer than " +
                                   std::to_string(kMaxSilenceActorLength) + " characters");
    }
    if (!st.ok()) return HttpResponse::FromStatus(st);
    st = store->ExpireSilence(id.value(), by);
    if (!st.ok()) return HttpResponse::FromStatus(st);
    auto s = store->GetSilence(id.value());
    if (!s.ok()) return HttpResponse::FromStatus(s.status());
    return HttpResponse::Json(200, s->ToJson(clock->Now()));
  });
}

Api::Api(Store& store, Inventory& inventory, Metrics& metrics, Remediator& remediator,
         const Clock& clock)
    : store_(store),
      inventory_(inventory),
      metrics_(metrics),
      remediator_(remediator),
      clock_(clock) {}

nlohmann::json Api::TicketJson(const Ticket& t) const {
  nlohmann::json ports = nlohmann::json::array();
  for (const auto& p : {t.port_a, t.port_b}) {
    if (p.empty()) continue;
    auto info = inventory_.Get(p);
    ports.push_back(info ? info->ToJson() : nlohmann::json{{"name", p}});
  }
  double end = t.closed_at ? *t.closed_at : ToEpochSeconds(clock_.Now());
  return {{"id", t.id},
          {"fabric", t.fabric},
          {"state", t.state},
          {"reason", t.reason},
          {"rule", t.rule},
          {"attempts", t.attempts},
          {"action_port", t.action_port},
          {"disabled_by_us", t.disabled_by_us},
          {"acknowledged_by",
           t.acknowledged_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.acknowledged_by)},
          {"link", t.link_key},
          {"created_at", FormatIsoTime(FromEpochSeconds(t.created_at))},
          {"updated_at", FormatIsoTime(FromEpochSeconds(t.updated_at))},
          {"closed_at", OptTime(t.closed_at)},
          {"soak_until", OptTime(t.soak_until)},
          {"age_seconds", std::max(0.0, end - t.created_at)},
          {"method", t.method},
          {"guard", t.guard},
          {"explanation", t.explanation},
          {"repair_kind", t.repair_kind},
          {"repeat_count", t.repeat_count},
          {"repeat_offender", t.link_key != "storm" && t.repeat_count >= repeat_threshold_},
          {"storm", t.link_key == "storm"},
          {"ports", ports}};
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
  auto page = [](const HttpRequest&) {
    return HttpResponse::Text(200, std::string(web::kDashboardHtml), "text/html; charset=utf-8");
  };
  router.Add("GET", "/", page);
  router.Add("GET", "/tickets/{id}", page);
  router.Add("GET", "/api/tickets", [this](const HttpRequest& r) { return ListTickets(r); });
  router.Add("GET", "/api/tickets/{id}", [this](const HttpRequest& r) { return GetTicket(r); });
  router.Add("POST", "/api/tickets/{id}/repaired",
             [this](const HttpRequest& r) { return Repaired(r); });
  router.Add("POST", "/api/tickets/{id}/acknowledge",
             [this](const HttpRequest& r) { return Acknowledge(r); });
  router.Add("GET", "/api/alerts", [this](const HttpRequest&) {
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
  });
  router.Add("POST", "/api/alerts/{id}/clear", [this](const HttpRequest& r) {
    auto id = PathId(r);
    if (!id.ok()) return HttpResponse::FromStatus(id.status());
    std::string by, note;
    Status s = ReadActor(r, &by, &note);
    if (!s.ok()) return HttpResponse::FromStatus(s);
    s = store_.ClearAlert(id.value(), by);
    if (!s.ok()) return HttpResponse::FromStatus(s);
    return HttpResponse::Json(200, {{"cleared", id.value()}, {"by", by}});
  });
  RegisterSilenceRoutes(router, store_, clock_);
  router.Add("GET", "/api/breaker", [this](const HttpRequest&) {
    auto b = store_.GetBreaker();
    if (!b.ok()) return HttpResponse::FromStatus(b.status());
    return HttpResponse::Json(200, BreakerJson(b.value()));
  });
  router.Add("POST", "/api/breaker/rearm", [this](const HttpRequest& r) {
    std::string by, note;
    Status s = ReadActor(r, &by, &note);
    if (!s.ok()) return HttpResponse::FromStatus(s);
    s = remediator_.RearmBreaker(by, note);
    if (!s.ok()) return HttpResponse::FromStatus(s);
    auto b = store_.GetBreaker();
    if (!b.ok()) return HttpResponse::FromStatus(b.status());
    return HttpResponse::Json(200, BreakerJson(b.value()));
  });
  router.Add("GET", "/api/decisions", [this](const HttpRequest& r) {
    int limit = 200;
    std::string l = r.Query("limit");
    if (!l.empty()) {
      if (l.size() > 6 || l.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(l) < 1) {
        return HttpResponse::Error(400, "limit must be a positive integer");
      }
      limit = std::min(std::stoi(l), 5000);
    }
    auto decisions = store_.RecentDecisions(limit, r.Query("rule"));
    if (!decisions.ok()) return HttpResponse::FromStatus(decisions.status());
    return HttpResponse::Json(200, {{"decisions", decisions.value()}});
  });
  router.Add("GET", "/api/rules", [this](const HttpRequest&) {
    return HttpResponse::Json(200, {{"hash", remediator_.rules_hash()}});
  });
  router.Add("GET", "/healthz", [this](const HttpRequest&) {
    Status db = store_.Ping();
    nlohmann::json body{{"status", db.ok() ? "ok" : "degraded"},
                        {"database", db.ok() ? "ok" : db.message()},
                        {"inventory_ports", inventory_.size()}};
    return HttpResponse::Json(db.ok() ? 200 : 503, body);
  });
  router.Add("GET", "/metrics", [this](const HttpRequest&) {
    return HttpResponse::Text(200, metrics_.Render(), "text/plain; version=0.0.4");
  });
}

HttpResponse Api::ListTickets(const HttpRequest& req) {
  std::string state = req.Query("state", "all");
  if (state != "all" && state != "open" && !IsKnownTicketState(state)) {
    return HttpResponse::Error(400, "unknown state '" + state + "'");
  }
  int limit = 500;
  std::string l = req.Query("limit");
  if (!l.empty()) {
    if (l.size() > 6 || l.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(l) < 1) {
      return HttpResponse::Error(400, "limit must be a positive integer");
    }
    limit = std::min(std::stoi(l), 5000);
  }
  auto tickets = store_.ListTickets(state, limit);
  if (!tickets.ok()) return HttpResponse::FromStatus(tickets.status());
  nlohmann::json list = nlohmann::json::array();
  for (const auto& t : tickets.value()) list.push_back(TicketJson(t));
  return HttpResponse::Json(200, {{"tickets", list}});
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
  j["events"] = nlohmann::json::array();
  for (const auto& e : events.value()) {
    j["events"].push_back({{"at", FormatIsoTime(FromEpochSeconds(e.at))},
                           {"kind", e.kind},
                           {"actor", e.actor},
                           {"message", e.message},
                           {"details", e.details}});
  }
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
                            {"error", a.error}});
  }
  return HttpResponse::Json(200, j);
}

HttpResponse Api::Repaired(const HttpRequest& req) {
  auto id = PathId(req);
  if (!id.ok()) return HttpResponse::FromStatus(id.status());
  std::string by, note;
  Status s = ReadActor(req, &by, &note);
  if (!s.ok()) return HttpResponse::FromStatus(s);
  auto body = nlohmann::json::parse(req.body, nullptr, false);
  if (!body.contains("kind") || !body["kind"].is_string()) {
    return HttpResponse::Error(400,
                               "\"kind\" (what was done) is required: reseat, cable_replaced, "
                               "transceiver_replaced, switch_port_replaced, hca_replaced or other");
  }
  auto t = remediator_.ReportRepair(id.value(), by, body["kind"].get<std::string>(), note);
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  return HttpResponse::Json(200, TicketJson(t.value()));
}

HttpResponse Api::Acknowledge(const HttpRequest& req) {
  auto id = PathId(req);
  if (!id.ok()) return HttpResponse::FromStatus(id.status());
  std::string by, note;
  Status s = ReadActor(req, &by, &note);
  if (!s.ok()) return HttpResponse::FromStatus(s);
  auto t = remediator_.Acknowledge(id.value(), by);
  if (!t.ok()) return HttpResponse::FromStatus(t.status());
  return HttpResponse::Json(200, TicketJson(t.value()));
}

}  // namespace ufmr
