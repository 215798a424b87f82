#include "api/silence_routes.h"

#include <algorithm>
#include <functional>
#include <string>

#include "api/request_body.h"
#include "decide/silence.h"

namespace ufmr {

namespace {

using ReadHandler = std::function<HttpResponse(const HttpRequest&)>;
using MutateHandler = std::function<HttpResponse(const HttpRequest&, const std::string& by)>;

// A read behind the gate, if there is one.
HttpHandler Read(const AuthGate* gate, ReadHandler h) {
  if (!gate) return h;
  return gate->Read([h](const HttpRequest& r, const Principal&) { return h(r); });
}

// A change by an engineer behind the gate: the person is the logged-in user. Without a gate
// (tests), the body's "by".
HttpHandler Mutate(const AuthGate* gate, const char* action, MutateHandler h) {
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
}

HttpResponse ListSilences(Store& store, const Clock& clock, const HttpRequest& r) {
  std::string all = r.Query("all", "0");
  if (all != "0" && all != "1" && all != "false" && all != "true") {
    return HttpResponse::Error(400, "all must be 1 or 0, got '" + all + "'");
  }
  auto silences = store.ListSilences(all == "1" || all == "true", 500);
  if (!silences.ok()) return HttpResponse::FromStatus(silences.status());
  TimePoint now = clock.Now();
  nlohmann::json list = nlohmann::json::array();
  for (const auto& s : silences.value()) list.push_back(s.ToJson(now));
  return HttpResponse::Json(200, {{"silences", list}});
}

HttpResponse CreateSilence(Store& store, const Clock& clock, const HttpRequest& r,
                           const std::string& by) {
  auto s = ReadNewSilence(r.body, clock.Now());
  if (!s.ok()) return HttpResponse::FromStatus(s.status());
  if (!by.empty()) s->created_by = by;
  auto added = store.AddSilence(s.value());
  if (!added.ok()) return HttpResponse::FromStatus(added.status());
  // The database has just recorded it in force from its now() (created_at); a clock here a few
  // milliseconds behind that must not report it inactive.
  return HttpResponse::Json(201, added->ToJson(std::max(clock.Now(), added->created_at)));
}

HttpResponse ExpireSilence(Store& store, const Clock& clock, const HttpRequest& r,
                           const std::string& who) {
  auto id = PathId(r);
  if (!id.ok()) return HttpResponse::FromStatus(id.status());
  auto body = ReadObject(r.body, {"by"}, R"({})");
  if (!body.ok()) return HttpResponse::FromStatus(body.status());
  std::string by = who, given;
  Status typed = StringField(body.value(), "by", &given);
  if (!typed.ok()) return HttpResponse::FromStatus(typed);
  if (by.size() > kMaxSilenceActorLength) {
    return HttpResponse::Error(
        400, "\"by\" is longer than " + std::to_string(kMaxSilenceActorLength) + " characters");
  }
  Status st = store.ExpireSilence(id.value(), by);
  if (!st.ok()) return HttpResponse::FromStatus(st);
  auto s = store.GetSilence(id.value());
  if (!s.ok()) return HttpResponse::FromStatus(s.status());
  return HttpResponse::Json(200, s->ToJson(clock.Now()));
}

}  // namespace

void RegisterSilenceRoutes(HttpRouter& router, Store& store_ref, const Clock& clock_ref,
                           const AuthGate* gate) {
  // The handlers outlive this call: hold the objects, not the parameters.
  Store* store = &store_ref;
  const Clock* clock = &clock_ref;
  router.Add("GET", "/api/silences", Read(gate, [store, clock](const HttpRequest& r) {
               return ListSilences(*store, *clock, r);
             }));
  router.Add(
      "POST", "/api/silences",
      Mutate(gate, "silence.create", [store, clock](const HttpRequest& r, const std::string& by) {
        return CreateSilence(*store, *clock, r, by);
      }));
  router.Add(
      "POST", "/api/silences/{id}/expire",
      Mutate(gate, "silence.expire", [store, clock](const HttpRequest& r, const std::string& who) {
        return ExpireSilence(*store, *clock, r, who);
      }));
}

}  // namespace ufmr
