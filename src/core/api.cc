#include "core/api.h"

#include <string_view>

namespace ufmr {

namespace web {
extern const std::string_view kDashboardHtml;
}  // namespace web

namespace {

nlohmann::json OptTime(const std::optional<double>& t) {
  if (!t) return nullptr;
  return FormatIsoTime(FromEpochSeconds(*t));
}

// The {id} of a ticket or an alert.
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

}  // namespace

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
          {"ports", ports}};
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
  auto t = remediator_.ReportRepair(id.value(), by, note);
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
