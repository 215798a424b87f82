// libFuzzer target: what a client sends the HTTP API. The first byte picks the reader, the rest
// is the request body (or query string) as received:
//   0  ParseBodyJson, then serialized as the audit log does: never deeper than kMaxBodyDepth
//   1  ReadObject with a ticket action's fields: an object of only those keys, no NUL in text
//   2  ReadNewSilence: a silence that ends after now and within kMaxSilenceSeconds, and is valid
//   3  ParseQueryString + ParseTicketQuery (GET /api/tickets): a page within its limits
// Never a crash, a hang or unbounded memory; any violated property traps.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/request_body.h"
#include "api/ticket_query.h"
#include "base/clock.h"
#include "decide/silence.h"
#include "http/http_server.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const ufmr::TimePoint now = ufmr::FromEpochSeconds(1.7e9);
  switch (data[0] % 4) {
    case 0: {
      nlohmann::json j = ufmr::ParseBodyJson(body);
      if (j.is_discarded()) break;
      Check(ufmr::JsonDepth(body, ufmr::kMaxBodyDepth) <= ufmr::kMaxBodyDepth);
      (void)j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      break;
    }
    case 1: {
      auto r = ufmr::ReadObject(body, {"kind", "note", "by"}, R"({"kind": "reseat"})");
      if (!r.ok()) break;
      Check(r.value().is_object());
      for (const auto& [key, value] : r.value().items()) {
        Check(key == "kind" || key == "note" || key == "by");
        if (value.is_string()) {
          Check(value.get_ref<const std::string&>().find('\0') == std::string::npos);
        }
      }
      std::string kind;
      (void)ufmr::StringField(r.value(), "kind", &kind);
      break;
    }
    case 2: {
      auto s = ufmr::ReadNewSilence(body, now);
      if (!s.ok()) break;
      const double seconds = ufmr::Seconds(s.value().expires_at - now).count();
      Check(seconds > 0 && seconds <= ufmr::kMaxSilenceSeconds + 1);
      Check(ufmr::ValidateSilence(s.value()).ok());
      break;
    }
    case 3: {
      auto q = ufmr::ParseTicketQuery(ufmr::ParseQueryString(std::string(body)));
      if (!q.ok()) break;
      Check(q.value().limit >= 1 && q.value().limit <= ufmr::kMaxTicketPage);
      Check(q.value().offset >= 0);
      break;
    }
  }
  return 0;
}
