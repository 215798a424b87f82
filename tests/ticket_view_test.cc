// Covers src/api/ticket_view.h: WhatToDo for each ticket state and guard (a port held by the
// service named with its switch and label from the ticket's ends, the last link of a host, an
// escalation with its attempts, verifying, closed as repaired or won't fix, a storm), the rule's
// repair hint carried from the explanation; CsvCell quoting (comma, quote, CR/LF) and formula
// defusing (= + - @ get a leading '); TicketCsvHeader and TicketCsvRow parsed as RFC 4180 CSV
// (quoted commas, quotes and newlines) with one cell per header column.
#include "api/ticket_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/clock.h"

namespace ufmr {
namespace {

using Cells = std::vector<std::string>;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A ticket on a switch-host link, the switch end held by the service.
Ticket Held() {
  Ticket t;
  t.id = 42;
  t.fabric = "fab-a";
  t.port_a = "9c0591030090e000_33";
  t.port_b = "fc6a1c0300244e00_8";
  t.link_key = t.port_a + "|" + t.port_b;
  t.state = ticket_state::kPortDisabled;
  t.rule = "symbol_errors";
  t.reason = "symbol errors 120/min";
  t.action_port = t.port_a;
  t.disabled_by_us = true;
  t.ends =
      nlohmann::json::array({{{"name", t.port_a},
                              {"system_name", "T3-E21-N-U47"},
                              {"label", "1/17/1"},
                              {"cable_serial", "MT2241XZ0ABC"}},
                             {{"name", t.port_b}, {"system_name", "gpu-017"}, {"label", "8"}}});
  t.created_at = 1'800'000'000;
  t.updated_at = 1'800'000'060;
  return t;
}

TEST(WhatToDoTest, APortHeldByTheServiceIsNamedWithItsSwitchAndLabel) {
  std::string w = WhatToDo(Held());
  EXPECT_TRUE(Has(w, "The service has disabled 9c0591030090e000_33 (T3-E21-N-U47 port 1/17/1)"))
      << w;
  EXPECT_TRUE(Has(w, "safe to work on")) << w;
  EXPECT_TRUE(Has(w, "Then report the repair")) << w;
  EXPECT_FALSE(Has(w, "or is about to")) << w;
}

TEST(WhatToDoTest, TheHostEndIsNamedWhenItIsTheOneHeld) {
  Ticket t = Held();
  t.action_port = t.port_b;
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "disabled fc6a1c0300244e00_8 (gpu-017 port 8)")) << w;
}

TEST(WhatToDoTest, AnIsolatedPortSaysIsolated) {
  Ticket t = Held();
  t.method = "isolate";
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "The service has isolated 9c0591030090e000_33")) << w;
}

TEST(WhatToDoTest, AnOpenTicketWithAPendingActionIsAboutToBeHeld) {
  Ticket t = Held();
  t.state = ticket_state::kOpen;
  t.disabled_by_us = false;
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "disabled 9c0591030090e000_33 (T3-E21-N-U47 port 1/17/1) (or is about to)"))
      << w;
}

TEST(WhatToDoTest, AHeldPortUnknownToTheEndsIsNamedAlone) {
  Ticket t = Held();
  t.ends = nlohmann::json::array({{{"name", t.port_a}}});
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "disabled 9c0591030090e000_33, so")) << w;
}

TEST(WhatToDoTest, AHeldPortWithALabelButNoSystemNameReadsCleanly) {
  Ticket t = Held();
  t.ends = nlohmann::json::array({{{"name", t.port_a}, {"label", "1/17/1"}}});
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "disabled 9c0591030090e000_33 (port 1/17/1), so")) << w;
}

TEST(WhatToDoTest, AcknowledgedAndHeldStillSaysSafeToWorkOn) {
  Ticket t = Held();
  t.state = ticket_state::kAcknowledged;
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "The service has disabled 9c0591030090e000_33")) << w;
}

TEST(WhatToDoTest, TheLastLinkSaysDrainTheHost) {
  Ticket t = Held();
  t.state = ticket_state::kTicketOnly;
  t.disabled_by_us = false;
  t.action_port = "";
  t.guard = "last_link";
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "last working link")) << w;
  EXPECT_TRUE(Has(w, "drain the host")) << w;
  EXPECT_FALSE(Has(w, "safe to work on")) << w;
}

TEST(WhatToDoTest, ALinkLeftInServiceNamesTheGuard) {
  Ticket t = Held();
  t.state = ticket_state::kTicketOnly;
  t.disabled_by_us = false;
  t.action_port = "";
  t.guard = "max_disabled";
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "still in service (the service did not take it out: max_disabled)")) << w;
  t.guard = "";
  w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "still in service (the service did not take it out)")) << w;
}

TEST(WhatToDoTest, EscalatedNamesTheAttempts) {
  Ticket t = Held();
  t.state = ticket_state::kEscalated;
  t.attempts = 3;
  std::string w = WhatToDo(t);
  EXPECT_EQ(w.rfind("3 repairs did not hold", 0), 0u) << w;
  EXPECT_TRUE(Has(w, "not the cable again")) << w;
  EXPECT_TRUE(Has(w, "stays disabled")) << w;
  t.disabled_by_us = false;
  EXPECT_FALSE(Has(WhatToDo(t), "stays disabled"));
}

TEST(WhatToDoTest, WhileTheHostDrainsTheCableIsNotTouched) {
  Ticket t = Held();
  t.disabled_by_us = false;
  t.host_name = "gpu-017";
  t.state = ticket_state::kDraining;
  std::string w = WhatToDo(t, true);
  EXPECT_EQ(w.rfind("The service is draining gpu-017 in the job scheduler", 0), 0u) << w;
  EXPECT_TRUE(Has(w, "Do not touch the cable yet")) << w;
  EXPECT_FALSE(Has(w, "safe to work on")) << w;
  // Past the drain deadline: the jobs are what stands in the way, not the cable.
  t.state = ticket_state::kEscalated;
  w = WhatToDo(t, true);
  EXPECT_TRUE(Has(w, "outlasted the drain deadline")) << w;
  EXPECT_FALSE(Has(w, "repairs did not hold")) << w;
  // An escalation after failed repairs, with no drain under way, says so as before.
  t.attempts = 3;
  EXPECT_EQ(WhatToDo(t, false).rfind("3 repairs did not hold", 0), 0u);
  t.state = ticket_state::kDrained;
  w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "gpu-017 is drained")) << w;
  EXPECT_TRUE(Has(w, "wait until the ticket says port_disabled")) << w;
  // The scheduler refused the drain: the host is drained by hand.
  t.state = ticket_state::kTicketOnly;
  t.guard = "drain_failed";
  w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "could not drain gpu-017")) << w;
  EXPECT_TRUE(Has(w, "drain the host by hand")) << w;
}

TEST(WhatToDoTest, RepairReportedWaitsForTheService) {
  Ticket t = Held();
  t.state = ticket_state::kRepairReported;
  std::string w = WhatToDo(t);
  EXPECT_EQ(w.rfind("Nothing now", 0), 0u) << w;
  EXPECT_TRUE(Has(w, "bringing the port back")) << w;
}

TEST(WhatToDoTest, VerifyingNamesTheEndOfTheSoak) {
  Ticket t = Held();
  t.state = ticket_state::kVerifying;
  t.disabled_by_us = false;
  t.soak_until = 1'800'003'600;
  std::string w = WhatToDo(t);
  EXPECT_EQ(w.rfind("Nothing now", 0), 0u) << w;
  EXPECT_TRUE(Has(w, "watched until " + FormatIsoTime(FromEpochSeconds(1'800'003'600)))) << w;
}

TEST(WhatToDoTest, ClosedRepairedOrWontFix) {
  Ticket t = Held();
  t.state = ticket_state::kClosed;
  t.disabled_by_us = false;
  t.resolution = resolution::kRepaired;
  EXPECT_EQ(WhatToDo(t), "Nothing: the link is repaired and verified.");
  t.resolution = resolution::kWontFix;
  EXPECT_EQ(WhatToDo(t), "Nothing: closed as won't fix.");
}

TEST(WhatToDoTest, AStormLooksForACommonCause) {
  Ticket t;
  t.link_key = "storm";
  t.port_a = "storm";
  t.state = ticket_state::kTicketOnly;
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "Many links failed at once")) << w;
  EXPECT_TRUE(Has(w, "re-arm the circuit breaker")) << w;
}

TEST(WhatToDoTest, TheRulesHintIsCarried) {
  Ticket t = Held();
  t.explanation =
      "Symbol errors rose 120/min over 5 min on the switch end. What to do: reseat the cable at "
      "both ends; if the errors return, replace it.";
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w,
                  "safe to work on. reseat the cable at both ends; if the errors return, replace "
                  "it. Then report the repair"))
      << w;
  EXPECT_FALSE(Has(w, "Symbol errors rose")) << "only the hint, not the evidence: " << w;

  t.state = ticket_state::kTicketOnly;
  t.disabled_by_us = false;
  t.guard = "last_link";
  w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "touching the cable. reseat the cable at both ends")) << w;

  t.guard = "";
  w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "owner. reseat the cable")) << w;
}

TEST(WhatToDoTest, WithoutAHintNothingDangles) {
  Ticket t = Held();
  t.explanation = "Symbol errors rose.";
  std::string w = WhatToDo(t);
  EXPECT_TRUE(Has(w, "safe to work on. Then report the repair")) << w;
  EXPECT_FALSE(Has(w, "  ")) << w;
}

// --- CSV ---

// Splits RFC 4180 text into records of cells (CRLF between records, "" for a quote inside a
// quoted cell). Fails the test on malformed input.
std::vector<Cells> ParseCsv(const std::string& text) {
  std::vector<Cells> rows;
  Cells row;
  std::string cell;
  bool quoted = false;
  bool was_quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cell += c;
      }
      continue;
    }
    if (c == '"') {
      EXPECT_TRUE(cell.empty() && !was_quoted) << "a quote inside an unquoted cell at " << i;
      quoted = was_quoted = true;
    } else if (c == ',') {
      row.push_back(cell);
      cell.clear();
      was_quoted = false;
    } else if (c == '\r') {
      EXPECT_TRUE(i + 1 < text.size() && text[i + 1] == '\n') << "a bare CR at " << i;
      row.push_back(cell);
      cell.clear();
      was_quoted = false;
      rows.push_back(row);
      row.clear();
      ++i;
    } else {
      EXPECT_FALSE(was_quoted) << "text after a closing quote at " << i;
      EXPECT_NE(c, '\n') << "a bare LF at " << i;
      cell += c;
    }
  }
  EXPECT_FALSE(quoted) << "an unterminated quote";
  EXPECT_TRUE(cell.empty() && row.empty()) << "the last record does not end with CRLF";
  return rows;
}

struct CellCase {
  std::string label;
  std::string in;
  std::string out;
};

class CsvCellTest : public ::testing::TestWithParam<CellCase> {};

TEST_P(CsvCellTest, QuotesAndDefuses) { EXPECT_EQ(CsvCell(GetParam().in), GetParam().out); }

INSTANTIATE_TEST_SUITE_P(
    Cases, CsvCellTest,
    ::testing::Values(CellCase{"Plain", "gpu-017", "gpu-017"}, CellCase{"Empty", "", ""},
                      CellCase{"Comma", "a,b", "\"a,b\""},
                      CellCase{"Quote", "say \"hi\"", "\"say \"\"hi\"\"\""},
                      CellCase{"Newline", "line1\nline2", "\"line1\nline2\""},
                      CellCase{"CarriageReturn", "a\r\nb", "\"a\r\nb\""},
                      CellCase{"Equals", "=1+1", "'=1+1"}, CellCase{"Plus", "+1", "'+1"},
                      CellCase{"Minus", "-5", "'-5"}, CellCase{"At", "@SUM(A1:A2)", "'@SUM(A1:A2)"},
                      CellCase{"Tab", "\tx", "'\tx"},
                      CellCase{"FormulaWithComma", "=HYPERLINK(\"x\",\"y\")",
                               "\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\""},
                      CellCase{"OperatorInside", "a=b-c", "a=b-c"}),
    [](const ::testing::TestParamInfo<CellCase>& param) { return param.param.label; });

TEST(TicketCsvTest, TheHeaderNamesItsColumns) {
  auto rows = ParseCsv(TicketCsvHeader());
  ASSERT_EQ(rows.size(), 1u);
  const Cells& h = rows[0];
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h.front(), "id");
  EXPECT_EQ(h.back(), "age_seconds");
  for (const char* column : {"state", "priority", "rack", "switch", "host", "cable_serial",
                             "assigned_to", "resolution", "closed_at"}) {
    EXPECT_NE(std::find(h.begin(), h.end(), column), h.end()) << column;
  }
}

// The cell of `row` under the header's `column`.
std::string Column(const Cells& header, const Cells& row, const std::string& column) {
  auto it = std::find(header.begin(), header.end(), column);
  EXPECT_NE(it, header.end()) << column;
  size_t i = static_cast<size_t>(it - header.begin());
  EXPECT_LT(i, row.size()) << column;
  return i < row.size() ? row[i] : "";
}

TEST(TicketCsvTest, ARowHasOneCellPerColumnEvenWithCommasQuotesAndNewlines) {
  Ticket t = Held();
  t.reason = "symbol errors, \"bursty\"\nover 5 min";
  t.rack = "T3-E21-N";
  t.switch_name = "T3-E21-N-U47";
  t.host_name = "gpu-017";
  t.assigned_to = "tech.one";
  t.severity = "critical";
  t.priority = 1;
  Cells header = ParseCsv(TicketCsvHeader())[0];
  auto rows = ParseCsv(TicketCsvRow(t, 1'800'000'600));
  ASSERT_EQ(rows.size(), 1u);
  const Cells& row = rows[0];
  ASSERT_EQ(row.size(), header.size());
  EXPECT_EQ(Column(header, row, "id"), "42");
  EXPECT_EQ(Column(header, row, "fabric"), "fab-a");
  EXPECT_EQ(Column(header, row, "state"), "port_disabled");
  EXPECT_EQ(Column(header, row, "priority"), "1");
  EXPECT_EQ(Column(header, row, "severity"), "critical");
  EXPECT_EQ(Column(header, row, "reason"), t.reason);
  EXPECT_EQ(Column(header, row, "rack"), "T3-E21-N");
  EXPECT_EQ(Column(header, row, "switch"), "T3-E21-N-U47");
  EXPECT_EQ(Column(header, row, "host"), "gpu-017");
  EXPECT_EQ(Column(header, row, "port_a"), t.port_a);
  EXPECT_EQ(Column(header, row, "port_a_label"), "1/17/1");
  EXPECT_EQ(Column(header, row, "port_b"), t.port_b);
  EXPECT_EQ(Column(header, row, "port_b_label"), "8");
  EXPECT_EQ(Column(header, row, "cable_serial"), "MT2241XZ0ABC");
  EXPECT_EQ(Column(header, row, "action_port"), t.port_a);
  EXPECT_EQ(Column(header, row, "assigned_to"), "tech.one");
  EXPECT_EQ(Column(header, row, "created_at"), FormatIsoTime(FromEpochSeconds(t.created_at)));
  EXPECT_EQ(Column(header, row, "closed_at"), "");
  EXPECT_EQ(Column(header, row, "age_seconds"), "600");
}

TEST(TicketCsvTest, AClosedTicketsAgeEndsAtItsClosing) {
  Ticket t = Held();
  t.state = ticket_state::kClosed;
  t.closed_at = t.created_at + 3600;
  t.resolution = resolution::kWontFix;
  Cells header = ParseCsv(TicketCsvHeader())[0];
  Cells row = ParseCsv(TicketCsvRow(t, t.created_at + 86400))[0];
  ASSERT_EQ(row.size(), header.size());
  EXPECT_EQ(Column(header, row, "age_seconds"), "3600");
  EXPECT_EQ(Column(header, row, "resolution"), "wont_fix");
  EXPECT_EQ(Column(header, row, "closed_at"), FormatIsoTime(FromEpochSeconds(*t.closed_at)));
}

TEST(TicketCsvTest, TheCableSerialComesFromEitherEnd) {
  Ticket t = Held();
  t.ends[0].erase("cable_serial");
  t.ends[1]["cable_serial"] = "MT9999";
  Cells header = ParseCsv(TicketCsvHeader())[0];
  Cells row = ParseCsv(TicketCsvRow(t, t.created_at))[0];
  EXPECT_EQ(Column(header, row, "cable_serial"), "MT9999");
}

TEST(TicketCsvTest, FormulasInTicketFieldsAreDefused) {
  Ticket t = Held();
  t.reason = "=cmd|' /C calc'!A0";
  t.assigned_to = "@admin";
  t.host_name = "-gpu";
  t.ends = nlohmann::json::array();  // no labels: empty cells
  Cells header = ParseCsv(TicketCsvHeader())[0];
  Cells row = ParseCsv(TicketCsvRow(t, t.created_at))[0];
  ASSERT_EQ(row.size(), header.size());
  EXPECT_EQ(Column(header, row, "reason"), "'" + t.reason);
  EXPECT_EQ(Column(header, row, "assigned_to"), "'@admin");
  EXPECT_EQ(Column(header, row, "host"), "'-gpu");
  EXPECT_EQ(Column(header, row, "port_a_label"), "");
  for (const auto& cell : row) {
    ASSERT_FALSE(!cell.empty() &&
                 (cell[0] == '=' || cell[0] == '+' || cell[0] == '-' || cell[0] == '@'))
        << cell;
  }
}

}  // namespace
}  // namespace ufmr
