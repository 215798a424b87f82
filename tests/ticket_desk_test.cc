// TicketDesk against a real PostgreSQL (tests/support TestPostgres, schema/ migrated): Assign
// (user names checked, "" unassigns, refused on closed tickets, an "assigned" event only when it
// changes), Comment (text required and bounded, a "comment" event), Reopen (closed to ticket_only
// with the resolution cleared; escalated to port_disabled or ticket_only with a fresh count of
// attempts; any other state, a storm ticket, or a link with another open ticket: Conflict), WontFix
// (closes with resolution wont_fix and the note; refused while the service holds the port, has a
// pending or submitted action, is bringing it back, or the ticket is closed or a storm), and
// tickets of another fabric (Conflict naming it) or none at all (NotFound). A refusal changes
// nothing and adds no event.
#include "api/ticket_desk.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "store/store.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

using Code = Status::Code;

class TicketDeskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    auto a = Store::Open(db_url_, "fab-a");
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    store_ = std::move(a.value());
    ASSERT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
    auto b = Store::Open(db_url_, "fab-b");
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    other_ = std::move(b.value());
    desk_ = std::make_unique<TicketDesk>(*store_, clock_);
  }

  // Files a ticket in `state` (with the fields the Store only writes on update), returns its id.
  int64_t File(const std::string& state, bool disabled_by_us = false,
               const std::string& link = "a_1|b_1", Store* store = nullptr) {
    Store& s = store ? *store : *store_;
    Ticket t;
    t.link_key = link;
    t.port_a = link == "storm" ? "storm" : link.substr(0, link.find('|'));
    t.port_b = link == "storm" ? "" : link.substr(link.find('|') + 1);
    t.state = state;
    t.rule = "symbol_errors";
    t.reason = "symbol errors 120/min";
    t.action_port = t.port_a;
    t.disabled_by_us = disabled_by_us;
    t.severity = "major";
    auto tx = s.Begin();
    EXPECT_TRUE(tx.ok()) << tx.status().ToString();
    if (!tx.ok()) return -1;
    t.id = tx.value()->InsertTicket(t);
    if (state == ticket_state::kClosed) {
      t.resolution = resolution::kRepaired;
      t.resolution_note = "held through the soak";
      t.closed_at = ToEpochSeconds(clock_.Now());
      tx.value()->UpdateTicket(t);
    }
    if (state == ticket_state::kEscalated) {
      t.attempts = 3;
      tx.value()->UpdateTicket(t);
    }
    tx.value()->Commit();
    return t.id;
  }

  int64_t AddAction(int64_t ticket_id, const std::string& action, const std::string& state) {
    auto tx = store_->Begin();
    EXPECT_TRUE(tx.ok());
    if (!tx.ok()) return -1;
    PortAction a;
    a.ticket_id = ticket_id;
    a.port = "a_1";
    a.action = action;
    a.state = state;
    a.reason = "test";
    int64_t id = tx.value()->InsertAction(a);
    tx.value()->Commit();
    return id;
  }

  Ticket Get(int64_t id) {
    auto t = store_->GetTicket(id);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? t.value() : Ticket{};
  }

  std::vector<TicketEvent> Events(int64_t id) {
    auto e = store_->Events(id);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? e.value() : std::vector<TicketEvent>{};
  }

  // Expects `r` refused with `code`, the ticket unchanged and no event added.
  void ExpectRefused(const Result<Ticket>& r, Code code, int64_t id, const Ticket& before,
                     size_t events_before, const std::string& message_part = "") {
    ASSERT_FALSE(r.ok()) << "accepted";
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    if (!message_part.empty()) {
      EXPECT_NE(r.status().message().find(message_part), std::string::npos) << r.status().message();
    }
    Ticket after = Get(id);
    EXPECT_EQ(after.state, before.state);
    EXPECT_EQ(after.assigned_to, before.assigned_to);
    EXPECT_EQ(after.resolution, before.resolution);
    EXPECT_EQ(after.closed_at.has_value(), before.closed_at.has_value());
    EXPECT_EQ(after.attempts, before.attempts);
    EXPECT_EQ(Events(id).size(), events_before);
  }

  FakeClock clock_{
      std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now())};
  std::string db_url_;
  std::unique_ptr<Store> store_, other_;
  std::unique_ptr<TicketDesk> desk_;
};

// --- Assign ---

TEST_F(TicketDeskTest, AssignSetsTheNameAndAddsAnEvent) {
  int64_t id = File(ticket_state::kPortDisabled, true);
  auto r = desk_->Assign(id, "lead", "tech.one");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->assigned_to, "tech.one");
  EXPECT_EQ(Get(id).assigned_to, "tech.one");
  EXPECT_EQ(Get(id).state, ticket_state::kPortDisabled);
  auto events = Events(id);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "assigned");
  EXPECT_EQ(events[0].actor, "lead");
  EXPECT_EQ(events[0].message, "assigned to tech.one");
  EXPECT_EQ(events[0].details["to"], "tech.one");
  EXPECT_EQ(events[0].details["was"], "");

  // The same name again changes nothing and says nothing.
  ASSERT_TRUE(desk_->Assign(id, "lead", "tech.one").ok());
  EXPECT_EQ(Events(id).size(), 1u);

  // Reassigned, then unassigned with "".
  ASSERT_TRUE(desk_->Assign(id, "lead", "ops@site-2").ok());
  auto un = desk_->Assign(id, "lead", "");
  ASSERT_TRUE(un.ok()) << un.status().ToString();
  EXPECT_EQ(un->assigned_to, "");
  EXPECT_EQ(Get(id).assigned_to, "");
  events = Events(id);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].kind, "assigned");
  EXPECT_EQ(events[2].message, "unassigned (was ops@site-2)");
  EXPECT_EQ(events[2].details["was"], "ops@site-2");
}

TEST_F(TicketDeskTest, AssignRefusesNamesThatAreNotUserNames) {
  int64_t id = File(ticket_state::kTicketOnly);
  Ticket before = Get(id);
  for (const std::string& bad :
       {std::string("two words"), std::string("x;drop"), std::string(65, 'a'),
        std::string("caf\xc3\xa9"), std::string("<b>"), std::string("a/b")}) {
    ExpectRefused(desk_->Assign(id, "lead", bad), Code::kInvalidArgument, id, before, 0, "\"to\"");
  }
  EXPECT_TRUE(desk_->Assign(id, "lead", std::string(64, 'a')).ok());
  EXPECT_TRUE(TicketDesk::IsValidName("A.b_c-d@e9"));
  EXPECT_FALSE(TicketDesk::IsValidName(""));
}

TEST_F(TicketDeskTest, AssignIsRefusedOnAClosedTicket) {
  int64_t id = File(ticket_state::kClosed);
  ExpectRefused(desk_->Assign(id, "lead", "tech.one"), Code::kConflict, id, Get(id), 0,
                "reopen it first");
}

// --- Comment ---

TEST_F(TicketDeskTest, CommentAddsAnEventAndChangesNothingElse) {
  int64_t id = File(ticket_state::kAcknowledged);
  auto r = desk_->Comment(id, "tech.one", "Cable ordered, arrives Tuesday.");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->state, ticket_state::kAcknowledged);
  auto events = Events(id);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "comment");
  EXPECT_EQ(events[0].actor, "tech.one");
  EXPECT_EQ(events[0].message, "Cable ordered, arrives Tuesday.");
  EXPECT_EQ(Get(id).state, ticket_state::kAcknowledged);
}

TEST_F(TicketDeskTest, CommentTextIsRequiredAndBounded) {
  int64_t id = File(ticket_state::kTicketOnly);
  Ticket before = Get(id);
  ExpectRefused(desk_->Comment(id, "tech.one", ""), Code::kInvalidArgument, id, before, 0,
                "required");
  ExpectRefused(desk_->Comment(id, "tech.one", std::string(4001, 'x')), Code::kInvalidArgument, id,
                before, 0, "longer than 4000");
  ASSERT_TRUE(desk_->Comment(id, "tech.one", std::string(4000, 'x')).ok());
  EXPECT_EQ(Events(id).size(), 1u);
}

// --- Reopen ---

TEST_F(TicketDeskTest, ReopenAClosedTicket) {
  int64_t id = File(ticket_state::kClosed);
  ASSERT_EQ(Get(id).resolution, resolution::kRepaired);
  ASSERT_TRUE(Get(id).closed_at.has_value());
  auto r = desk_->Reopen(id, "tech.one", "errors are back");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Ticket t = Get(id);
  EXPECT_EQ(t.state, ticket_state::kTicketOnly);
  EXPECT_EQ(t.resolution, "");
  EXPECT_EQ(t.resolution_note, "");
  EXPECT_FALSE(t.closed_at.has_value());
  EXPECT_FALSE(t.disabled_by_us);
  auto events = Events(id);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "reopened");
  EXPECT_EQ(events[0].actor, "tech.one");
  EXPECT_NE(events[0].message.find("errors are back"), std::string::npos) << events[0].message;
  EXPECT_EQ(events[0].details["was"], "repaired");
}

TEST_F(TicketDeskTest, ReopenAnEscalatedTicketStartsTheAttemptsAgain) {
  int64_t held = File(ticket_state::kEscalated, true, "a_1|b_1");
  ASSERT_EQ(Get(held).attempts, 3);
  auto r = desk_->Reopen(held, "eng", "HCA replaced");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Ticket t = Get(held);
  EXPECT_EQ(t.state, ticket_state::kPortDisabled);
  EXPECT_EQ(t.attempts, 0);
  EXPECT_TRUE(t.disabled_by_us);
  auto events = Events(held);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "reopened");
  EXPECT_EQ(events[0].details["attempts"], 3);

  int64_t free = File(ticket_state::kEscalated, false, "c_1|d_1");
  ASSERT_TRUE(desk_->Reopen(free, "eng", "HCA replaced").ok());
  EXPECT_EQ(Get(free).state, ticket_state::kTicketOnly);
  EXPECT_EQ(Get(free).attempts, 0);
}

class ReopenRefusedTest : public TicketDeskTest,
                          public ::testing::WithParamInterface<const char*> {};

TEST_P(ReopenRefusedTest, InAnyOtherState) {
  int64_t id = File(GetParam(), std::string(GetParam()) == ticket_state::kPortDisabled);
  ExpectRefused(desk_->Reopen(id, "tech.one", "why not"), Code::kConflict, id, Get(id), 0,
                "only closed or escalated");
}

INSTANTIATE_TEST_SUITE_P(States, ReopenRefusedTest,
                         ::testing::Values(ticket_state::kOpen, ticket_state::kPortDisabled,
                                           ticket_state::kTicketOnly, ticket_state::kAcknowledged,
                                           ticket_state::kRepairReported,
                                           ticket_state::kVerifying));

TEST_F(TicketDeskTest, ReopenNeedsAReason) {
  int64_t id = File(ticket_state::kClosed);
  ExpectRefused(desk_->Reopen(id, "tech.one", ""), Code::kInvalidArgument, id, Get(id), 0);
}

TEST_F(TicketDeskTest, AStormTicketIsNotReopened) {
  int64_t id = File(ticket_state::kClosed, false, "storm");
  ExpectRefused(desk_->Reopen(id, "tech.one", "again"), Code::kConflict, id, Get(id), 0, "storm");
}

TEST_F(TicketDeskTest, ReopenWhileAnotherTicketIsOpenOnTheLinkIsAConflict) {
  int64_t old_id = File(ticket_state::kClosed, false, "a_1|b_1");
  int64_t new_id = File(ticket_state::kPortDisabled, true, "a_1|b_1");
  ExpectRefused(desk_->Reopen(old_id, "tech.one", "same link"), Code::kConflict, old_id,
                Get(old_id), 0, "another ticket is open");
  EXPECT_EQ(Get(new_id).state, ticket_state::kPortDisabled);
  // The Store is still usable: its pooled connection was not left in a failed transaction.
  ASSERT_TRUE(desk_->Comment(old_id, "tech.one", "see the newer ticket").ok());
  ASSERT_TRUE(desk_->Assign(new_id, "lead", "tech.one").ok());
  // A closed ticket on another fabric's same link does not stand in the way.
  int64_t b_closed = File(ticket_state::kClosed, false, "x_1|y_1", other_.get());
  TicketDesk other_desk(*other_, clock_);
  EXPECT_TRUE(other_desk.Reopen(b_closed, "tech.one", "again").ok());
}

// --- WontFix ---

TEST_F(TicketDeskTest, WontFixClosesWithTheNote) {
  int64_t id = File(ticket_state::kTicketOnly);
  ASSERT_TRUE(desk_->Assign(id, "lead", "tech.one").ok());
  auto r = desk_->WontFix(id, "eng", "host is being decommissioned");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Ticket t = Get(id);
  EXPECT_EQ(t.state, ticket_state::kClosed);
  EXPECT_EQ(t.resolution, resolution::kWontFix);
  EXPECT_EQ(t.resolution_note, "host is being decommissioned");
  ASSERT_TRUE(t.closed_at.has_value());
  EXPECT_NEAR(*t.closed_at, ToEpochSeconds(clock_.Now()), 1e-3) << "by the desk's clock";
  EXPECT_FALSE(t.soak_until.has_value());
  auto events = Events(id);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].kind, "wont_fix");
  EXPECT_EQ(events[1].actor, "eng");
  EXPECT_EQ(events[1].details["reason"], "host is being decommissioned");
  // Closed now: a second won't-fix, an assignment are refused; a reopen works.
  ExpectRefused(desk_->WontFix(id, "eng", "again"), Code::kConflict, id, t, 2, "already closed");
  ExpectRefused(desk_->Assign(id, "lead", "tech.two"), Code::kConflict, id, t, 2);
  ASSERT_TRUE(desk_->Reopen(id, "eng", "host stays after all").ok());
  EXPECT_EQ(Get(id).resolution, "");
}

TEST_F(TicketDeskTest, WontFixAnAcknowledgedTicketWithFinishedActions) {
  int64_t id = File(ticket_state::kAcknowledged);
  AddAction(id, "disable", action_state::kFailed);
  AddAction(id, "disable", action_state::kSkipped);
  AddAction(id, "enable", action_state::kConfirmed);
  ASSERT_TRUE(desk_->WontFix(id, "eng", "spare link").ok());
  EXPECT_EQ(Get(id).state, ticket_state::kClosed);
}

TEST_F(TicketDeskTest, WontFixIsRefusedWhileTheServiceHoldsThePort) {
  int64_t id = File(ticket_state::kPortDisabled, true);
  ExpectRefused(desk_->WontFix(id, "eng", "not worth it"), Code::kConflict, id, Get(id), 0,
                "holds port a_1");
  int64_t esc = File(ticket_state::kEscalated, true, "c_1|d_1");
  ExpectRefused(desk_->WontFix(esc, "eng", "not worth it"), Code::kConflict, esc, Get(esc), 0);
}

class WontFixPendingActionTest : public TicketDeskTest,
                                 public ::testing::WithParamInterface<const char*> {};

TEST_P(WontFixPendingActionTest, IsRefused) {
  int64_t id = File(ticket_state::kOpen);
  AddAction(id, "disable", GetParam());
  ExpectRefused(desk_->WontFix(id, "eng", "not worth it"), Code::kConflict, id, Get(id), 0);
}

INSTANTIATE_TEST_SUITE_P(States, WontFixPendingActionTest,
                         ::testing::Values(action_state::kPending, action_state::kSubmitted));

TEST_F(TicketDeskTest, WontFixIsRefusedWhileThePortIsBroughtBack) {
  for (const char* state : {ticket_state::kRepairReported, ticket_state::kVerifying}) {
    int64_t id = File(state, false, std::string(state) + "_1|z_1");
    ExpectRefused(desk_->WontFix(id, "eng", "meh"), Code::kConflict, id, Get(id), 0, state);
  }
}

TEST_F(TicketDeskTest, WontFixIsRefusedForAStormTicket) {
  int64_t id = File(ticket_state::kTicketOnly, false, "storm");
  ExpectRefused(desk_->WontFix(id, "eng", "meh"), Code::kConflict, id, Get(id), 0, "breaker");
}

TEST_F(TicketDeskTest, WontFixNeedsAReason) {
  int64_t id = File(ticket_state::kTicketOnly);
  ExpectRefused(desk_->WontFix(id, "eng", ""), Code::kInvalidArgument, id, Get(id), 0);
  ExpectRefused(desk_->WontFix(id, "eng", std::string(4001, 'r')), Code::kInvalidArgument, id,
                Get(id), 0);
}

// --- Other fabrics, unknown ids ---

TEST_F(TicketDeskTest, AnotherFabricsTicketIsAConflictNamingIt) {
  int64_t id = File(ticket_state::kClosed, false, "a_1|b_1", other_.get());
  Ticket before = Get(id);
  ExpectRefused(desk_->Assign(id, "lead", "tech.one"), Code::kConflict, id, before, 0, "'fab-b'");
  ExpectRefused(desk_->Comment(id, "lead", "hello"), Code::kConflict, id, before, 0, "'fab-b'");
  ExpectRefused(desk_->Reopen(id, "lead", "again"), Code::kConflict, id, before, 0, "'fab-b'");
  ExpectRefused(desk_->WontFix(id, "lead", "no"), Code::kConflict, id, before, 0, "'fab-b'");
}

TEST_F(TicketDeskTest, AnUnknownIdIsNotFound) {
  File(ticket_state::kTicketOnly);
  for (auto r : {desk_->Assign(999, "lead", "tech.one"), desk_->Comment(999, "lead", "hello"),
                 desk_->Reopen(999, "lead", "again"), desk_->WontFix(999, "lead", "no")}) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kNotFound) << r.status().ToString();
    EXPECT_NE(r.status().message().find("999"), std::string::npos);
  }
}

}  // namespace
}  // namespace ufmr
