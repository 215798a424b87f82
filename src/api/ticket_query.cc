#include "api/ticket_query.h"

#include "base/duration.h"
#include "base/utf8.h"
#include "store/ticket.h"

namespace ufmr {

namespace {

constexpr size_t kMaxValue = 200;
// No ticket is older than a century; a longer age (or an infinite one, "1e308d") would only reach
// the database as an interval out of range.
constexpr double kMaxAgeS = 36500.0 * 86400;

Status Count(const std::string& name, const std::string& v, int64_t min, int64_t max,
             int64_t* out) {
  if (v.empty() || v.size() > 12 || v.find_first_not_of("0123456789") != std::string::npos) {
    return Status::InvalidArgument(name + " must be a whole number, got '" + v + "'");
  }
  int64_t n = std::stoll(v);
  if (n < min || n > max) {
    return Status::InvalidArgument(name + " must be between " + std::to_string(min) + " and " +
                                   std::to_string(max) + ", got " + v);
  }
  *out = n;
  return Status::Ok();
}

Status Age(const std::string& name, const std::string& v, std::optional<double>* out) {
  auto d = ParseDuration(v);
  if (!d.ok() || !(d.value() >= 0 && d.value() <= kMaxAgeS)) {
    return Status::InvalidArgument(name + " must be a duration like 30m, 2h or 7d (at most " +
                                   "36500d), got '" + v + "'");
  }
  *out = d.value();
  return Status::Ok();
}

}  // namespace

Result<TicketQuery> ParseTicketQuery(const std::map<std::string, std::string>& params,
                                     const std::string& default_state) {
  TicketQuery q;
  q.state = default_state;
  q.limit = kDefaultTicketPage;
  std::map<std::string, std::string*> text = {
      {"fabric", &q.fabric}, {"switch", &q.switch_name},   {"host", &q.host}, {"rack", &q.rack},
      {"rule", &q.rule},     {"assigned", &q.assigned_to}, {"q", &q.q}};
  for (const auto& [name, value] : params) {
    std::string clean;
    if (SanitizeUtf8(value, &clean) || SanitizeUtf8(name, &clean)) {
      // A NUL would cut the value short in the database, and bad UTF-8 makes it refuse the query.
      return Status::InvalidArgument("parameter " + (name.size() > 40 ? name.substr(0, 40) : name) +
                                     " is not valid UTF-8 text (or holds a NUL)");
    }
    if (value.size() > kMaxValue) {
      return Status::InvalidArgument(name + " is longer than " + std::to_string(kMaxValue) +
                                     " characters");
    }
    Status s = Status::Ok();
    if (auto it = text.find(name); it != text.end()) {
      *it->second = value;
    } else if (name == "state") {
      if (value != "all" && value != "open" && !IsKnownTicketState(value)) {
        s = Status::InvalidArgument("unknown state '" + value +
                                    "' (open, all, or a ticket state such as port_disabled)");
      }
      q.state = value;
    } else if (name == "sort") {
      std::string key = !value.empty() && value[0] == '-' ? value.substr(1) : value;
      if (!IsKnownTicketSort(key)) {
        s = Status::InvalidArgument("unknown sort '" + value +
                                    "' (priority, age, created, updated, id, state or rule; a "
                                    "leading - reverses)");
      }
      q.sort = value;
    } else if (name == "limit") {
      int64_t n = 0;
      s = Count("limit", value, 1, kMaxTicketPage, &n);
      q.limit = static_cast<int>(n);
    } else if (name == "offset") {
      s = Count("offset", value, 0, 1000000000, &q.offset);
    } else if (name == "min_age") {
      s = Age("min_age", value, &q.min_age_s);
    } else if (name == "max_age") {
      s = Age("max_age", value, &q.max_age_s);
    } else {
      s = Status::InvalidArgument(
          "unknown parameter '" + name +
          "' (state, fabric, switch, host, rack, rule, assigned, q, min_age, max_age, sort, "
          "limit, offset)");
    }
    if (!s.ok()) return s;
  }
  return q;
}

}  // namespace ufmr
