// TicketJsonWriter: a ticket as the API's JSON, one shape for the ticket list and the ticket
// page: its fields, its location, a repeat-offender flag, and each end (port) as the inventory
// knows it now, else as it was when the ticket was filed. Written straight to text (a page of
// tickets as a JSON tree cost more than the query). Holds references only; thread-safe as long
// as the inventory and the clock are (they are).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/json_writer.h"
#include "store/ticket.h"
#include "ufm/inventory.h"

namespace ufmr {

class TicketJsonWriter {
 public:
  // `repeat_threshold`: the earlier tickets on a link that flag it a repeat offender.
  TicketJsonWriter(const Inventory& inventory, const Clock& clock, int repeat_threshold)
      : inventory_(inventory), clock_(clock), repeat_threshold_(repeat_threshold) {}

  // `full` false: a list item (without the explanation, which the ticket page shows).
  void Write(JsonWriter& w, const Ticket& t, bool full) const;
  // The same, parsed.
  nlohmann::json Json(const Ticket& t, bool full) const;

 private:
  // The ticket's filed ends (Ticket::ends, or Ticket::ends_text parsed once, on first use).
  class FiledEnds;

  void WriteFields(JsonWriter& w, const Ticket& t, bool full) const;
  void WritePort(JsonWriter& w, const std::string& name, FiledEnds& filed) const;

  const Inventory& inventory_;
  const Clock& clock_;
  const int repeat_threshold_;
};

}  // namespace ufmr
