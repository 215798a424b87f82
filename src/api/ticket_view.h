// How a ticket reads to the people who work it: what to do next (from its state, the guard that
// held the service back, and the rule's repair hint), and the ticket list as CSV (RFC 4180, with
// cells that a spreadsheet would run as formulas defused). Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "store/ticket.h"

namespace ufmr {

// Plain words for the technician: is the link safe to touch, what to replace, what to report.
// `host_draining`: the job scheduler drains the ticket's host for it (a drain pending or under
// way), so the link is still in service and waits for the host's jobs.
std::string WhatToDo(const Ticket& t, bool host_draining = false);

// The CSV export's header line and one line per ticket (each ends with CRLF).
std::string TicketCsvHeader();
std::string TicketCsvRow(const Ticket& t, double now_epoch_s);
// One CSV cell: quoted when needed; a leading = + - @ (a formula to spreadsheets) gets a '.
std::string CsvCell(const std::string& value);

}  // namespace ufmr
