// The ticket list against a real PostgreSQL (tests/support TestPostgres, schema/ migrated), with
// tickets of two fabrics (two Stores on one database): Store::ListTickets(const TicketQuery&)'s
// filters (state open/all/one, fabric, switch and host case-insensitive, rack, rule, assigned, q as
// a case-insensitive substring of the search text including a cable serial, min_age/max_age on
// tickets aged by SQL), every sort and its reverse, paging (the total counts every match, also past
// the last page) and the priority the schema derives (escalated or critical 1, major 2, minor 3,
// the rest 4). Also the counter history (Tx::OpenTicketPorts, AddCounterSample,
// PruneCounterSamples, Store::CounterSamples: per fabric, oldest first, bounded in time, thinned
// evenly) and placing old tickets (Tx::UnplacedTickets, SetPlace).
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "api/ticket_query.h"
#include "store/store.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

using Names = std::vector<std::string>;

double NowEpoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct Spec {
  std::string name;  // the test's handle: the link key's first port and the reason
  std::string state;
  std::string severity;
  std::string rule;
  std::string switch_name;
  std::string rack;
  std::string host;
  std::string search_extra;  // e.g. a cable serial, added to the search text
  std::string age;           // created this long ago (a PostgreSQL interval)
  std::string updated;       // updated this long ago
  std::string assigned;
};

class TicketListStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    auto a = Store::Open(db_url_, "fab-a");
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    a_ = std::move(a.value());
    ASSERT_TRUE(a_->Migrate(testing::SourceDir() + "/schema").ok());
    auto b = Store::Open(db_url_, "fab-b");
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    b_ = std::move(b.value());
  }

  // Files a ticket through the Store as the service would, then ages and assigns it with SQL.
  int64_t File(Store& store, const Spec& s) {
    Ticket t;
    t.link_key = s.name + "_1|peer-of-" + s.name;
    t.port_a = s.name + "_1";
    t.port_b = "peer-of-" + s.name;
    t.state = s.state;
    t.rule = s.rule;
    t.reason = s.name;
    t.severity = s.severity;
    t.switch_name = s.switch_name;
    t.rack = s.rack;
    t.host_name = s.host;
    t.ends = nlohmann::json::array({{{"name", t.port_a}, {"system_name", s.switch_name}},
                                    {{"name", t.port_b}, {"system_name", s.host}}});
    std::string search = t.link_key + " " + s.switch_name + " " + s.host + " " + s.search_extra;
    for (char& c : search) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    t.search_text = search;
    auto tx = store.Begin();
    EXPECT_TRUE(tx.ok()) << tx.status().ToString();
    if (!tx.ok()) return -1;
    int64_t id = tx.value()->InsertTicket(t);
    tx.value()->Commit();
    Sql("UPDATE tickets SET created_at = now() - $2::interval, updated_at = now() - "
        "$3::interval, assigned_to = NULLIF($4, '') WHERE id = $1",
        {std::to_string(id), s.age.empty() ? "0 s" : s.age, s.updated.empty() ? "0 s" : s.updated,
         s.assigned});
    ids_[s.name] = id;
    return id;
  }

  void Sql(const std::string& sql, const std::vector<std::string>& params) {
    Status st = a_->Run([&](pqxx::work& w) {
      w.exec_params(sql, pqxx::prepare::make_dynamic_params(params));
      return Status::Ok();
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  // Seven tickets: five of fab-a, two of fab-b.
  void Seed() {
    File(*a_, {"a1", "port_disabled", "major", "symbol_errors", "T3-E21-N-U47", "T3-E21-N",
               "gpu-001", "MT2241XZ0ABC 1/17/1", "10 days", "1 min", "tech.one"});
    File(*a_, {"a2", "ticket_only", "minor", "link_flaps", "T3-E21-N-U48", "T3-E21-N", "gpu-002",
               "", "3 hours", "2 min", ""});
    File(*a_, {"a3", "closed", "critical", "symbol_errors", "T3-E22-N-U47", "T3-E22-N", "gpu-003",
               "", "1 hour", "3 min", "tech.two"});
    File(*a_, {"a4", "escalated", "minor", "link_flaps", "T3-E22-N-U47", "T3-E22-N", "gpu-004", "",
               "5 days", "4 min", ""});
    File(*a_, {"a5", "acknowledged", "info", "symbol_errors", "spine-01", "", "gpu-005", "",
               "30 min", "5 min", "tech.one"});
    File(*b_, {"b1", "port_disabled", "major", "symbol_errors", "T3-E21-N-U47", "T3-E21-N",
               "gpu-101", "", "50 hours", "6 min", ""});
    File(*b_,
         {"b2", "closed", "warning", "ber", "leaf-b", "", "gpu-102", "", "20 days", "7 min", ""});
  }

  // The handles of the page's tickets, in order.
  Names List(const TicketQuery& q, int64_t* total = nullptr) {
    auto page = a_->ListTickets(q);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) return {"<error>"};
    if (total) *total = page->total;
    Names out;
    for (const auto& t : page->tickets) out.push_back(t.reason);
    return out;
  }

  Names ListBy(const std::map<std::string, std::string>& params) {
    auto q = ParseTicketQuery(params);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    if (!q.ok()) return {"<refused>"};
    return List(q.value());
  }

  std::string db_url_;
  std::unique_ptr<Store> a_, b_;
  std::map<std::string, int64_t> ids_;
};

TEST_F(TicketListStoreTest, StateFilter) {
  Seed();
  EXPECT_EQ(ListBy({{"sort", "id"}}), (Names{"a1", "a2", "a3", "a4", "a5", "b1", "b2"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"state", "all"}}),
            (Names{"a1", "a2", "a3", "a4", "a5", "b1", "b2"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"state", "open"}}), (Names{"a1", "a2", "a4", "a5", "b1"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"state", "port_disabled"}}), (Names{"a1", "b1"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"state", "closed"}}), (Names{"a3", "b2"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"state", "verifying"}}), Names{});
}

// Several tickets read in one statement (a storm's notifications): those that exist, by id, each
// as GetTicket reads it, whatever its fabric; an id with no ticket is left out; none asked, none.
TEST_F(TicketListStoreTest, GetTicketsReadsThoseThatExist) {
  Seed();
  auto none = a_->GetTickets({});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());
  const int64_t missing = ids_["b2"] + 1000;
  auto got = a_->GetTickets({ids_["b1"], missing, ids_["a2"], ids_["a2"]});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ(got.value()[0].id, ids_["a2"]);
  EXPECT_EQ(got.value()[1].id, ids_["b1"]);  // another fabric's, as GetTicket reads it
  for (const Ticket& t : got.value()) {
    auto one = a_->GetTicket(t.id);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    EXPECT_EQ(t.reason, one->reason);
    EXPECT_EQ(t.state, one->state);
    EXPECT_EQ(t.link_key, one->link_key);
    EXPECT_EQ(t.fabric, one->fabric);
    EXPECT_EQ(t.ends, one->ends);
  }
}

TEST_F(TicketListStoreTest, FabricFilter) {
  Seed();
  EXPECT_EQ(ListBy({{"sort", "id"}, {"fabric", "fab-a"}}), (Names{"a1", "a2", "a3", "a4", "a5"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"fabric", "fab-b"}}), (Names{"b1", "b2"}));
  EXPECT_EQ(ListBy({{"fabric", "fab-c"}}), Names{});
  // The fabric-scoped list of the older API: this Store's fabric, newest first.
  auto older = b_->ListTickets("all", 10);
  ASSERT_TRUE(older.ok()) << older.status().ToString();
  ASSERT_EQ(older->size(), 2u);
  EXPECT_EQ(older.value()[0].reason, "b2");
  EXPECT_EQ(older.value()[1].reason, "b1");
}

TEST_F(TicketListStoreTest, PlaceFilters) {
  Seed();
  EXPECT_EQ(ListBy({{"sort", "id"}, {"switch", "t3-e21-n-u47"}}), (Names{"a1", "b1"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"switch", "T3-E21-N-U47"}, {"fabric", "fab-a"}}),
            (Names{"a1"}));
  EXPECT_EQ(ListBy({{"switch", "T3-E21-N"}}), Names{}) << "the whole name, not a prefix";
  EXPECT_EQ(ListBy({{"sort", "id"}, {"host", "GPU-002"}}), (Names{"a2"}));
  EXPECT_EQ(ListBy({{"host", "gpu-00"}}), Names{});
  EXPECT_EQ(ListBy({{"sort", "id"}, {"rack", "T3-E22-N"}}), (Names{"a3", "a4"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"rack", "T3-E21-N"}}), (Names{"a1", "a2", "b1"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"rack", "T3-E21-N"}, {"state", "ticket_only"}}),
            (Names{"a2"}));
}

TEST_F(TicketListStoreTest, RuleAndAssignedFilters) {
  Seed();
  EXPECT_EQ(ListBy({{"sort", "id"}, {"rule", "link_flaps"}}), (Names{"a2", "a4"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"rule", "symbol_errors"}, {"fabric", "fab-b"}}),
            (Names{"b1"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"assigned", "tech.one"}}), (Names{"a1", "a5"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"assigned", "tech.two"}}), (Names{"a3"}));
  EXPECT_EQ(ListBy({{"assigned", "nobody"}}), Names{});
}

TEST_F(TicketListStoreTest, SearchIsACaseInsensitiveSubstring) {
  Seed();
  EXPECT_EQ(ListBy({{"q", "MT2241XZ0ABC"}}), (Names{"a1"})) << "the cable serial";
  EXPECT_EQ(ListBy({{"q", "xz0a"}}), (Names{"a1"}));
  EXPECT_EQ(ListBy({{"q", "1/17/1"}}), (Names{"a1"})) << "a label";
  EXPECT_EQ(ListBy({{"sort", "id"}, {"q", "GPU-00"}}), (Names{"a1", "a2", "a3", "a4", "a5"}));
  EXPECT_EQ(ListBy({{"q", "a4_1"}}), (Names{"a4"})) << "a port name";
  EXPECT_EQ(ListBy({{"q", "%"}}), Names{}) << "no LIKE wildcards";
  EXPECT_EQ(ListBy({{"q", "_"}}).size(), 7u) << "a literal underscore, in every port name";
  EXPECT_EQ(ListBy({{"q", "no-such-thing"}}), Names{});
}

TEST_F(TicketListStoreTest, AgeFilters) {
  Seed();
  // Created: a1 10 d, a2 3 h, a3 1 h, a4 5 d, a5 30 min, b1 50 h, b2 20 d ago.
  EXPECT_EQ(ListBy({{"sort", "id"}, {"min_age", "2d"}}), (Names{"a1", "a4", "b1", "b2"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"max_age", "4h"}}), (Names{"a2", "a3", "a5"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"min_age", "2h"}, {"max_age", "1d"}}), (Names{"a2"}));
  EXPECT_EQ(ListBy({{"sort", "id"}, {"min_age", "7d"}, {"state", "open"}}), (Names{"a1"}));
  EXPECT_EQ(ListBy({{"min_age", "30d"}}), Names{});
  EXPECT_EQ(ListBy({{"max_age", "36500d"}}).size(), 7u) << "the longest age the API accepts";
}

struct SortCase {
  std::string sort;
  Names order;
};

class TicketListSortTest : public TicketListStoreTest,
                           public ::testing::WithParamInterface<SortCase> {};

TEST_P(TicketListSortTest, Orders) {
  Seed();
  EXPECT_EQ(ListBy({{"sort", GetParam().sort}}), GetParam().order);
}

// Priorities: a3 and a4 1, a1 and b1 2, a2 3, a5 and b2 4; created a3 < ... as in AgeFilters;
// updated a1 1 min ago ... b2 7 min ago.
INSTANTIATE_TEST_SUITE_P(
    Sorts, TicketListSortTest,
    ::testing::Values(SortCase{"priority", {"a4", "a3", "a1", "b1", "a2", "b2", "a5"}},
                      SortCase{"-priority", {"b2", "a5", "a2", "a1", "b1", "a4", "a3"}},
                      SortCase{"age", {"b2", "a1", "a4", "b1", "a2", "a3", "a5"}},
                      SortCase{"-age", {"a5", "a3", "a2", "b1", "a4", "a1", "b2"}},
                      SortCase{"created", {"b2", "a1", "a4", "b1", "a2", "a3", "a5"}},
                      SortCase{"-created", {"a5", "a3", "a2", "b1", "a4", "a1", "b2"}},
                      SortCase{"updated", {"b2", "b1", "a5", "a4", "a3", "a2", "a1"}},
                      SortCase{"-updated", {"a1", "a2", "a3", "a4", "a5", "b1", "b2"}},
                      SortCase{"id", {"a1", "a2", "a3", "a4", "a5", "b1", "b2"}},
                      SortCase{"-id", {"b2", "b1", "a5", "a4", "a3", "a2", "a1"}},
                      SortCase{"state", {"a5", "a3", "b2", "a4", "a1", "b1", "a2"}},
                      SortCase{"-state", {"a2", "a1", "b1", "a4", "a3", "b2", "a5"}},
                      SortCase{"rule", {"b2", "a4", "a2", "a3", "a1", "b1", "a5"}},
                      SortCase{"-rule", {"a3", "a1", "b1", "a5", "a4", "a2", "b2"}}),
    [](const ::testing::TestParamInfo<SortCase>& param) {
      std::string name = param.param.sort;
      if (name[0] == '-') name = "Reverse_" + name.substr(1);
      return name;
    });

TEST_F(TicketListStoreTest, AnUnknownSortIsRefused) {
  TicketQuery q;
  q.sort = "-bogus";
  auto page = a_->ListTickets(q);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), Status::Code::kInvalidArgument);
}

TEST_F(TicketListStoreTest, PagingKeepsTheTotal) {
  Seed();
  TicketQuery q;
  q.sort = "id";
  q.limit = 3;
  int64_t total = -1;
  EXPECT_EQ(List(q, &total), (Names{"a1", "a2", "a3"}));
  EXPECT_EQ(total, 7);
  q.offset = 3;
  EXPECT_EQ(List(q, &total), (Names{"a4", "a5", "b1"}));
  EXPECT_EQ(total, 7);
  q.offset = 6;
  EXPECT_EQ(List(q, &total), (Names{"b2"}));
  EXPECT_EQ(total, 7);
  q.offset = 7;
  EXPECT_EQ(List(q, &total), Names{});
  EXPECT_EQ(total, 7) << "past the last page the total still counts every match";
  q.offset = 1000;
  q.state = "open";
  q.fabric = "fab-a";
  EXPECT_EQ(List(q, &total), Names{});
  EXPECT_EQ(total, 4);

  TicketQuery open;
  open.state = "open";
  open.sort = "id";
  open.limit = 2;
  EXPECT_EQ(List(open, &total), (Names{"a1", "a2"}));
  EXPECT_EQ(total, 5);

  TicketQuery none;
  none.rule = "no-such-rule";
  EXPECT_EQ(List(none, &total), Names{});
  EXPECT_EQ(total, 0);
}

TEST_F(TicketListStoreTest, PriorityFromStateAndSeverity) {
  Seed();
  File(*a_, {"a6", "ticket_only", "warning", "r", "", "", "", "", "", "", ""});
  File(*a_, {"a7", "ticket_only", "bogus", "r", "", "", "", "", "", "", ""});  // filed as major
  File(*a_, {"a8", "closed", "critical", "r", "", "", "", "", "", "", ""});
  TicketQuery q;
  q.limit = 100;
  auto page = a_->ListTickets(q);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  std::map<std::string, int> priority;
  std::map<std::string, std::string> severity;
  for (const auto& t : page->tickets) {
    priority[t.reason] = t.priority;
    severity[t.reason] = t.severity;
  }
  EXPECT_EQ(priority, (std::map<std::string, int>{{"a1", 2},
                                                  {"a2", 3},
                                                  {"a3", 1},
                                                  {"a4", 1},
                                                  {"a5", 4},
                                                  {"a6", 4},
                                                  {"a7", 2},
                                                  {"a8", 1},
                                                  {"b1", 2},
                                                  {"b2", 4}}));
  EXPECT_EQ(severity["a4"], "minor") << "escalation raises the priority, not the severity";
  EXPECT_EQ(severity["a7"], "major");
}

TEST_F(TicketListStoreTest, TheListCarriesWhereTheLinkIs) {
  Seed();
  auto page = a_->ListTickets(ParseTicketQuery({{"q", "mt2241"}}).value());
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->tickets.size(), 1u);
  const Ticket& t = page->tickets[0];
  EXPECT_EQ(t.id, ids_["a1"]);
  EXPECT_EQ(t.fabric, "fab-a");
  EXPECT_EQ(t.switch_name, "T3-E21-N-U47");
  EXPECT_EQ(t.rack, "T3-E21-N");
  EXPECT_EQ(t.host_name, "gpu-001");
  EXPECT_EQ(t.assigned_to, "tech.one");
  ASSERT_EQ(t.ends.size(), 2u);
  EXPECT_EQ(t.ends[0]["system_name"], "T3-E21-N-U47");
  EXPECT_NEAR(t.created_at, NowEpoch() - 10 * 86400, 60);
}

// --- Counter history ---

TEST_F(TicketListStoreTest, OpenTicketPortsAreThisFabricsNotClosedNotStorm) {
  Seed();  // a1 a2 a4 a5 open in fab-a; a3 closed; b1 open in fab-b
  {
    auto tx = a_->Begin();
    ASSERT_TRUE(tx.ok());
    Ticket storm;
    storm.link_key = "storm";
    storm.port_a = "storm";
    storm.state = "ticket_only";
    storm.rule = "breaker";
    storm.reason = "storm";
    tx.value()->InsertTicket(storm);
    Ticket single;  // a node-scoped ticket: one port, no peer
    single.link_key = "zz_9";
    single.port_a = "zz_9";
    single.state = "ticket_only";
    single.rule = "r";
    single.reason = "single";
    tx.value()->InsertTicket(single);
    tx.value()->Commit();
  }
  auto tx = a_->Begin();
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ(tx.value()->OpenTicketPorts(),
            (Names{"a1_1", "a2_1", "a4_1", "a5_1", "peer-of-a1", "peer-of-a2", "peer-of-a4",
                   "peer-of-a5", "zz_9"}));
  auto txb = b_->Begin();
  ASSERT_TRUE(txb.ok());
  EXPECT_EQ(txb.value()->OpenTicketPorts(), (Names{"b1_1", "peer-of-b1"}));
}

TEST_F(TicketListStoreTest, CounterSamplesPerFabricOldestFirst) {
  const double t0 = 1'800'000'000.25;
  {
    auto tx = a_->Begin();
    ASSERT_TRUE(tx.ok());
    for (int i = 0; i < 5; ++i) {
      tx.value()->AddCounterSample("p_1", t0 + 60 * i, {{"SymbolErrorCounterExtended", 10 * i}});
    }
    tx.value()->AddCounterSample("p_2", t0 + 30, {{"LinkDownedCounter", 1}});
    tx.value()->AddCounterSample("p_1", t0, {{"SymbolErrorCounterExtended", 999}});  // again
    tx.value()->Commit();
  }
  {
    auto tx = b_->Begin();
    ASSERT_TRUE(tx.ok());
    tx.value()->AddCounterSample("p_1", t0 + 10, {{"SymbolErrorCounterExtended", 7}});
    tx.value()->Commit();
  }

  auto all = a_->CounterSamples("fab-a", {"p_1", "p_2"}, 0, std::nullopt, 100);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 6u);
  std::vector<double> at;
  for (const auto& s : all.value()) at.push_back(s.at - t0);
  EXPECT_EQ(all.value()[0].port, "p_1");
  EXPECT_NEAR(all.value()[0].at, t0, 1e-5);
  EXPECT_EQ(all.value()[0].counters["SymbolErrorCounterExtended"], 0)
      << "the same port and time again is not recorded twice";
  EXPECT_EQ(all.value()[1].port, "p_2");
  EXPECT_NEAR(all.value()[1].at, t0 + 30, 1e-5);
  EXPECT_EQ(all.value()[1].counters, nlohmann::json({{"LinkDownedCounter", 1}}));
  for (size_t i = 1; i < all->size(); ++i) {
    EXPECT_LE(all.value()[i - 1].at, all.value()[i].at) << "oldest first";
  }

  auto thin = a_->CounterSamples("fab-a", {"p_1"}, 0, std::nullopt, 2);
  ASSERT_TRUE(thin.ok());
  ASSERT_EQ(thin->size(), 2u) << "thinned to the limit, keeping the first and the last";
  EXPECT_NEAR(thin.value()[0].at, t0, 1e-5);
  EXPECT_NEAR(thin.value()[1].at, t0 + 240, 1e-5);
  EXPECT_EQ(thin.value()[1].counters["SymbolErrorCounterExtended"], 40);
  auto three = a_->CounterSamples("fab-a", {"p_1"}, 0, std::nullopt, 3);
  ASSERT_TRUE(three.ok());
  ASSERT_EQ(three->size(), 3u) << "every other sample of five";
  EXPECT_NEAR(three.value()[1].at, t0 + 120, 1e-5);
  auto until = a_->CounterSamples("fab-a", {"p_1"}, 0, t0 + 60, 100);
  ASSERT_TRUE(until.ok());
  EXPECT_EQ(until->size(), 2u) << "up to the time";

  auto since = a_->CounterSamples("fab-a", {"p_1"}, t0 + 120, std::nullopt, 100);
  ASSERT_TRUE(since.ok());
  EXPECT_EQ(since->size(), 3u) << "at or after the time";

  auto other = a_->CounterSamples("fab-b", {"p_1", "p_2"}, 0, std::nullopt, 100);
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(other->size(), 1u);
  EXPECT_EQ(other.value()[0].counters["SymbolErrorCounterExtended"], 7);

  auto none = a_->CounterSamples("fab-a", {"p_3"}, 0, std::nullopt, 100);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto no_ports = a_->CounterSamples("fab-a", {}, 0, std::nullopt, 100);
  ASSERT_TRUE(no_ports.ok());
  EXPECT_TRUE(no_ports->empty());
}

TEST_F(TicketListStoreTest, CounterSamplesOfPortNamesThatNeedQuoting) {
  const std::string odd = "we\"ird\\port,{x}";
  {
    auto tx = a_->Begin();
    ASSERT_TRUE(tx.ok());
    tx.value()->AddCounterSample(odd, 1'800'000'000, {{"c", 1}});
    tx.value()->AddCounterSample("plain_1", 1'800'000'000, {{"c", 2}});
    tx.value()->Commit();
  }
  auto got = a_->CounterSamples("fab-a", {odd}, 0, std::nullopt, 10);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ(got.value()[0].port, odd);
}

TEST_F(TicketListStoreTest, PruneDropsOlderSamplesOfThisFabricOnly) {
  const double t0 = 1'800'000'000;
  for (Store* s : {a_.get(), b_.get()}) {
    auto tx = s->Begin();
    ASSERT_TRUE(tx.ok());
    for (int i = 0; i < 4; ++i) tx.value()->AddCounterSample("p_1", t0 + 60 * i, {{"c", i}});
    tx.value()->Commit();
  }
  {
    auto tx = a_->Begin();
    ASSERT_TRUE(tx.ok());
    EXPECT_EQ(tx.value()->PruneCounterSamples(t0 + 120), 2) << "before, not at, the time";
    tx.value()->Commit();
  }
  auto a = a_->CounterSamples("fab-a", {"p_1"}, 0, std::nullopt, 100);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->size(), 2u);
  EXPECT_NEAR(a.value()[0].at, t0 + 120, 1e-5);
  auto b = a_->CounterSamples("fab-b", {"p_1"}, 0, std::nullopt, 100);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->size(), 4u);
  auto tx = a_->Begin();
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ(tx.value()->PruneCounterSamples(t0 + 120), 0);
}

// --- Placing tickets filed before the place was kept ---

TEST_F(TicketListStoreTest, UnplacedTicketsAndSetPlace) {
  auto file = [&](Store& store, const std::string& name, const std::string& state,
                  bool placed) -> int64_t {
    auto tx = store.Begin();
    EXPECT_TRUE(tx.ok());
    Ticket t;
    t.link_key = name == "storm" ? "storm" : name + "_1|" + name + "_2";
    t.port_a = name + "_1";
    t.port_b = name + "_2";
    t.state = state;
    t.rule = "r";
    t.reason = name;
    if (placed) t.ends = nlohmann::json::array({{{"name", t.port_a}}});
    int64_t id = tx.value()->InsertTicket(t);
    tx.value()->Commit();
    return id;
  };
  int64_t u1 = file(*a_, "u1", "port_disabled", false);
  file(*a_, "closed", "closed", false);
  file(*a_, "storm", "ticket_only", false);
  file(*a_, "placed", "ticket_only", true);
  int64_t u2 = file(*a_, "u2", "acknowledged", false);
  int64_t u3 = file(*a_, "u3", "escalated", false);
  file(*b_, "other", "ticket_only", false);

  auto tx = a_->Begin();
  ASSERT_TRUE(tx.ok());
  auto unplaced = tx.value()->UnplacedTickets(10);
  std::vector<int64_t> ids;
  for (const auto& t : unplaced) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<int64_t>{u1, u2, u3}));
  ASSERT_EQ(tx.value()->UnplacedTickets(2).size(), 2u);

  Ticket t = unplaced[0];
  t.switch_name = "T3-E21-N-U47";
  t.rack = "T3-E21-N";
  t.host_name = "gpu-001";
  t.ends = nlohmann::json::array({{{"name", "u1_1"}, {"label", "1/1/1"}}, {{"name", "u1_2"}}});
  t.search_text = "u1_1|u1_2 t3-e21-n-u47 gpu-001";
  t.state = "closed";  // SetPlace writes the place, nothing else
  tx.value()->SetPlace(t);
  tx.value()->Commit();

  auto got = a_->GetTicket(u1);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->switch_name, "T3-E21-N-U47");
  EXPECT_EQ(got->rack, "T3-E21-N");
  EXPECT_EQ(got->host_name, "gpu-001");
  EXPECT_EQ(got->ends, t.ends);
  EXPECT_EQ(got->search_text, t.search_text);
  EXPECT_EQ(got->state, "port_disabled");

  auto again = a_->Begin();
  ASSERT_TRUE(again.ok());
  ids.clear();
  for (const auto& u : again.value()->UnplacedTickets(10)) ids.push_back(u.id);
  EXPECT_EQ(ids, (std::vector<int64_t>{u2, u3}));
}

// A transaction's decisions are written together when it commits: all of them, in the order they
// were made, with their fields and ticket; none when it rolls back. Text that is not UTF-8 is
// recorded with U+FFFD rather than failing the pass.
TEST_F(TicketListStoreTest, DecisionsAreWrittenInOrderAtCommitAndNotOnRollback) {
  auto decision = [](const std::string& rule, const std::string& reason) {
    return nlohmann::json{{"time", "2026-11-30T10:00:00.000Z"},
                          {"rule", rule},
                          {"decision", "finding"},
                          {"guard", "log_only"},
                          {"entity", "node:gpu-1"},
                          {"port", ""},
                          {"peer", ""},
                          {"reason", reason},
                          {"rules_hash", "abc"}};
  };
  {
    auto tx = a_->Begin();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    tx.value()->AddDecision(decision("rolled_back", "never written"), std::nullopt);
  }  // no commit
  const int64_t ticket =
      File(*a_, Spec{"dec1", "open", "major", "link_down", "", "", "", "", "", "", ""});
  {
    auto tx = a_->Begin();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    for (int i = 0; i < 300; ++i) {
      tx.value()->AddDecision(decision("node_many_links_down", "n" + std::to_string(i)),
                              i == 7 ? std::optional<int64_t>(ticket) : std::nullopt);
    }
    tx.value()->AddDecision(decision("bad_text", std::string("caf\xe9 \"quoted\"")), std::nullopt);
    tx.value()->Commit();
  }
  auto recent = a_->RecentDecisions(1000, "");
  ASSERT_TRUE(recent.ok()) << recent.status().ToString();
  const nlohmann::json& got = recent.value();
  ASSERT_EQ(got.size(), 301u) << recent->dump();
  // Newest first: the last one made, then the 300 in reverse.
  EXPECT_EQ(got[0]["rule"], "bad_text");
  EXPECT_EQ(got[0]["reason"], "caf\ufffd \"quoted\"") << got[0].dump();
  for (int i = 0; i < 300; ++i) {
    const auto& d = got[static_cast<size_t>(300 - i)];
    ASSERT_EQ(d["reason"], "n" + std::to_string(i)) << d.dump();
    EXPECT_EQ(d["rule"], "node_many_links_down");
    EXPECT_EQ(d["guard"], "log_only");
    EXPECT_EQ(d["entity"], "node:gpu-1");
    if (i == 7) {
      EXPECT_EQ(d["ticket_id"], ticket);
    } else {
      EXPECT_TRUE(d["ticket_id"].is_null()) << d.dump();
    }
    if (i > 0) {  // later decisions have later ids
      EXPECT_GT(d["id"].get<int64_t>(), got[static_cast<size_t>(301 - i)]["id"].get<int64_t>());
    }
  }
  auto rolled_back = a_->RecentDecisions(10, "rolled_back");
  ASSERT_TRUE(rolled_back.ok());
  EXPECT_TRUE(rolled_back.value().empty());
}

}  // namespace
}  // namespace ufmr
