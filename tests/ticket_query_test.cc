// Covers src/api/ticket_query.h (ParseTicketQuery, GET /api/tickets' query string): the defaults
// (state from the caller, limit 100, sort priority, no filters), every accepted parameter, unknown
// parameters named in the error, states and sort keys (a leading "-" reverses), limit and offset
// bounds, min_age/max_age as durations (and absurd ones refused), over-long values refused.
#include "api/ticket_query.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace ufmr {
namespace {

using Params = std::map<std::string, std::string>;

Status ErrorOf(const Params& params) {
  auto q = ParseTicketQuery(params);
  EXPECT_FALSE(q.ok()) << "accepted";
  return q.ok() ? Status::Ok() : q.status();
}

TEST(ParseTicketQueryTest, Defaults) {
  auto q = ParseTicketQuery({});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->state, "all");
  EXPECT_EQ(q->limit, 100);
  EXPECT_EQ(q->limit, kDefaultTicketPage);
  EXPECT_EQ(q->offset, 0);
  EXPECT_EQ(q->sort, "priority");
  EXPECT_EQ(q->fabric, "");
  EXPECT_EQ(q->switch_name, "");
  EXPECT_EQ(q->host, "");
  EXPECT_EQ(q->rack, "");
  EXPECT_EQ(q->rule, "");
  EXPECT_EQ(q->assigned_to, "");
  EXPECT_EQ(q->q, "");
  EXPECT_FALSE(q->min_age_s.has_value());
  EXPECT_FALSE(q->max_age_s.has_value());
}

TEST(ParseTicketQueryTest, TheCallersDefaultStateAppliesWhenNoneIsNamed) {
  auto q = ParseTicketQuery({}, "open");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->state, "open");
  auto named = ParseTicketQuery({{"state", "closed"}}, "open");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->state, "closed");
}

TEST(ParseTicketQueryTest, EveryParameter) {
  auto q = ParseTicketQuery({{"state", "port_disabled"},
                             {"fabric", "fab-a"},
                             {"switch", "T3-E21-N-U47"},
                             {"host", "gpu-017"},
                             {"rack", "T3-E21-N"},
                             {"rule", "symbol_errors"},
                             {"assigned", "tech.one"},
                             {"q", "MT2241XZ0ABC"},
                             {"min_age", "2h"},
                             {"max_age", "7d"},
                             {"sort", "-age"},
                             {"limit", "25"},
                             {"offset", "50"}});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->state, "port_disabled");
  EXPECT_EQ(q->fabric, "fab-a");
  EXPECT_EQ(q->switch_name, "T3-E21-N-U47");
  EXPECT_EQ(q->host, "gpu-017");
  EXPECT_EQ(q->rack, "T3-E21-N");
  EXPECT_EQ(q->rule, "symbol_errors");
  EXPECT_EQ(q->assigned_to, "tech.one");
  EXPECT_EQ(q->q, "MT2241XZ0ABC");  // as given: the store lower-cases it
  ASSERT_TRUE(q->min_age_s.has_value());
  EXPECT_DOUBLE_EQ(*q->min_age_s, 7200);
  ASSERT_TRUE(q->max_age_s.has_value());
  EXPECT_DOUBLE_EQ(*q->max_age_s, 7 * 86400);
  EXPECT_EQ(q->sort, "-age");
  EXPECT_EQ(q->limit, 25);
  EXPECT_EQ(q->offset, 50);
}

TEST(ParseTicketQueryTest, UnknownParameterIsRefusedByName) {
  Status s = ErrorOf({{"state", "open"}, {"colour", "red"}});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("'colour'"), std::string::npos) << s.message();
}

TEST(ParseTicketQueryTest, NamesAreCaseSensitive) {
  Status s = ErrorOf({{"State", "open"}});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("'State'"), std::string::npos) << s.message();
}

class AcceptedStateTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AcceptedStateTest, IsKept) {
  auto q = ParseTicketQuery({{"state", GetParam()}});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->state, GetParam());
}

INSTANTIATE_TEST_SUITE_P(States, AcceptedStateTest,
                         ::testing::Values("all", "open", "port_disabled", "ticket_only",
                                           "acknowledged", "repair_reported", "verifying", "closed",
                                           "escalated"));

class BadStateTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadStateTest, IsRefused) {
  Status s = ErrorOf({{"state", GetParam()}});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("state"), std::string::npos) << s.message();
}

INSTANTIATE_TEST_SUITE_P(States, BadStateTest,
                         ::testing::Values("", "bogus", "OPEN", "Closed", "port disabled"));

class AcceptedSortTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AcceptedSortTest, AndItsReverse) {
  for (const std::string& sort : {GetParam(), "-" + GetParam()}) {
    auto q = ParseTicketQuery({{"sort", sort}});
    ASSERT_TRUE(q.ok()) << sort << ": " << q.status().ToString();
    EXPECT_EQ(q->sort, sort);
  }
}

INSTANTIATE_TEST_SUITE_P(Sorts, AcceptedSortTest,
                         ::testing::Values("priority", "age", "created", "updated", "id", "state",
                                           "rule"));

class BadSortTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadSortTest, IsRefused) {
  Status s = ErrorOf({{"sort", GetParam()}});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown sort '" + GetParam() + "'"), std::string::npos)
      << s.message();
}

INSTANTIATE_TEST_SUITE_P(Sorts, BadSortTest,
                         ::testing::Values("bogus", "-bogus", "", "-", "--priority", "+priority",
                                           "Priority", "priority "));

TEST(ParseTicketQueryTest, LimitBounds) {
  for (const char* ok : {"1", "5000", "0100"}) {
    auto q = ParseTicketQuery({{"limit", ok}});
    ASSERT_TRUE(q.ok()) << ok << ": " << q.status().ToString();
    EXPECT_EQ(q->limit, std::stoi(ok));
  }
  EXPECT_EQ(kMaxTicketPage, 5000);
  for (const char* bad : {"0", "5001", "abc", "", "-1", "1.5", " 10", "10 ", "99999999999999"}) {
    Status s = ErrorOf({{"limit", bad}});
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("limit"), std::string::npos) << bad << ": " << s.message();
  }
}

TEST(ParseTicketQueryTest, OffsetBounds) {
  auto zero = ParseTicketQuery({{"offset", "0"}});
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->offset, 0);
  auto big = ParseTicketQuery({{"offset", "1000000000"}});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->offset, 1000000000);
  for (const char* bad : {"-1", "x", "", "1000000001"}) {
    Status s = ErrorOf({{"offset", bad}});
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("offset"), std::string::npos) << bad << ": " << s.message();
  }
}

TEST(ParseTicketQueryTest, AgesAreDurations) {
  auto q = ParseTicketQuery({{"min_age", "30m"}, {"max_age", "90"}});
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_DOUBLE_EQ(*q->min_age_s, 1800);
  EXPECT_DOUBLE_EQ(*q->max_age_s, 90);  // a bare number is seconds
  auto zero = ParseTicketQuery({{"min_age", "0s"}});
  ASSERT_TRUE(zero.ok());
  EXPECT_DOUBLE_EQ(*zero->min_age_s, 0);
}

class BadAgeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadAgeTest, IsRefused) {
  for (const char* name : {"min_age", "max_age"}) {
    Status s = ErrorOf({{name, GetParam()}});
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << name << "=" << GetParam();
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
  }
}

// Ages no ticket can have would only reach the database as an out-of-range interval.
INSTANTIATE_TEST_SUITE_P(Ages, BadAgeTest,
                         ::testing::Values("", "abc", "-2h", "2w", "2 h", "nan", "inf", "1e308d",
                                           "1e20"));

TEST(ParseTicketQueryTest, OverLongValuesAreRefused) {
  const std::string at_limit(200, 'x');
  auto ok = ParseTicketQuery({{"q", at_limit}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->q, at_limit);
  for (const char* name : {"q", "host", "switch", "state", "sort"}) {
    Status s = ErrorOf({{name, std::string(201, 'x')}});
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << name;
    EXPECT_NE(s.message().find("longer than 200"), std::string::npos) << s.message();
    EXPECT_EQ(s.message().rfind(name, 0), 0u) << "names the parameter: " << s.message();
  }
}

}  // namespace
}  // namespace ufmr

namespace ufmr {
namespace {

TEST(TicketQueryTextTest, NulAndInvalidUtf8AreRefused) {
  // The database would cut a value at a NUL (a search for "ab\0" would become a suffix match) and
  // refuses bad UTF-8 (a 503): both are the caller's mistake, said as such.
  for (const std::string& v :
       {std::string("ab\0cd", 5), std::string("\xff"), std::string("a\xc3")}) {
    auto q = ParseTicketQuery({{"q", v}});
    EXPECT_FALSE(q.ok());
    EXPECT_EQ(q.status().code(), Status::Code::kInvalidArgument);
  }
  EXPECT_TRUE(ParseTicketQuery({{"q", "caf\xc3\xa9"}}).ok());
}

}  // namespace
}  // namespace ufmr
