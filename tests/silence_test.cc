// Covers src/decide/silence.h without a database: Silence::ActiveAt at the window's edges and after
// being ended early; ToJson's fields; ValidateSilence's accepted and rejected silences (table
// driven, each rejection naming its field); ParseIsoTime against FormatIsoTime and its rejections;
// SilenceSet::Match by port, switch and host pattern (full match, every set pattern must match,
// empty names never match, the first active silence wins) and a set skipping uncompilable ones.
// Time is a fixed TimePoint; nothing sleeps.
#include "decide/silence.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace ufmr {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

const TimePoint kT0 = TimePoint(seconds(1'800'000'000));  // 2027-01-15T08:00:00Z

Silence Make(std::string port, std::string sw, std::string host, int64_t id = 1) {
  Silence s;
  s.id = id;
  s.port = std::move(port);
  s.switch_ = std::move(sw);
  s.host = std::move(host);
  s.reason = "cable work in row 4";
  s.created_by = "tech";
  s.created_at = kT0;
  s.expires_at = kT0 + hours(2);
  return s;
}

// ---- ActiveAt ----

struct ActiveCase {
  const char* name;
  TimePoint at;
  std::optional<TimePoint> expired_at;
  bool active;
};

class ActiveAtTest : public ::testing::TestWithParam<ActiveCase> {};

TEST_P(ActiveAtTest, WindowIsHalfOpenAndEndingEarlyEndsIt) {
  const ActiveCase& c = GetParam();
  Silence s = Make("", "ib-leaf-01", "");
  s.expired_at = c.expired_at;
  EXPECT_EQ(s.ActiveAt(c.at), c.active) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ActiveAtTest,
    ::testing::Values(ActiveCase{"before_created", kT0 - milliseconds(1), std::nullopt, false},
                      ActiveCase{"at_created", kT0, std::nullopt, true},
                      ActiveCase{"inside", kT0 + hours(1), std::nullopt, true},
                      ActiveCase{"just_before_expiry", kT0 + hours(2) - milliseconds(1),
                                 std::nullopt, true},
                      ActiveCase{"at_expiry", kT0 + hours(2), std::nullopt, false},
                      ActiveCase{"after_expiry", kT0 + hours(3), std::nullopt, false},
                      ActiveCase{"ended_early", kT0 + minutes(30), kT0 + minutes(10), false}),
    [](const ::testing::TestParamInfo<ActiveCase>& p) { return std::string(p.param.name); });

// ---- ToJson ----

TEST(SilenceJsonTest, HasEveryFieldWithIsoTimesAndActiveAtTheGivenTime) {
  Silence s = Make("fc6a1c0300000001_[0-9]+", "", "gpu-node-0[0-9]+", 42);
  nlohmann::json j = s.ToJson(kT0 + minutes(1));
  EXPECT_EQ(j["id"], 42);
  EXPECT_EQ(j["port"], "fc6a1c0300000001_[0-9]+");
  EXPECT_EQ(j["switch"], "");
  EXPECT_EQ(j["host"], "gpu-node-0[0-9]+");
  EXPECT_EQ(j["reason"], "cable work in row 4");
  EXPECT_EQ(j["created_by"], "tech");
  EXPECT_EQ(j["created_at"], "2027-01-15T08:00:00.000Z");
  EXPECT_EQ(j["expires_at"], "2027-01-15T10:00:00.000Z");
  EXPECT_TRUE(j["expired_at"].is_null());
  EXPECT_TRUE(j["expired_by"].is_null());
  EXPECT_EQ(j["active"], true);
  EXPECT_EQ(s.ToJson(kT0 + hours(2))["active"], false);

  s.expired_at = kT0 + minutes(5);
  s.expired_by = "lead";
  s.created_by.clear();
  j = s.ToJson(kT0 + minutes(1));
  EXPECT_EQ(j["expired_at"], "2027-01-15T08:05:00.000Z");
  EXPECT_EQ(j["expired_by"], "lead");
  EXPECT_TRUE(j["created_by"].is_null());
  EXPECT_EQ(j["active"], false);
}

// ---- ValidateSilence ----

TEST(ValidateSilenceTest, AcceptsAnyOneOrAllPatterns) {
  EXPECT_TRUE(ValidateSilence(Make("fc6a1c0300000001_1", "", "")).ok());
  EXPECT_TRUE(ValidateSilence(Make("", "ib-leaf-0[12]", "")).ok());
  EXPECT_TRUE(ValidateSilence(Make("", "", "gpu-node-.*")).ok());
  EXPECT_TRUE(ValidateSilence(Make(".*_1", "ib-leaf-01", "gpu-node-001")).ok());
  Silence no_author = Make("", "ib-leaf-01", "");
  no_author.created_by.clear();
  EXPECT_TRUE(ValidateSilence(no_author).ok());
}

struct InvalidCase {
  const char* name;
  Silence silence;
  const char* message_part;  // the rejection must say this
};

Silence With(Silence s, void (*change)(Silence&)) {
  change(s);
  return s;
}

class ValidateSilenceInvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(ValidateSilenceInvalidTest, IsInvalidArgumentNamingTheProblem) {
  const InvalidCase& c = GetParam();
  Status s = ValidateSilence(c.silence);
  ASSERT_FALSE(s.ok()) << c.name;
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << c.name;
  EXPECT_NE(s.message().find(c.message_part), std::string::npos)
      << c.name << ": '" << s.message() << "' lacks '" << c.message_part << "'";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ValidateSilenceInvalidTest,
    ::testing::Values(
        InvalidCase{"no_pattern", Make("", "", ""), "at least one of"},
        InvalidCase{"bad_port_pattern", Make("fc6a(", "", ""), "\"port\" is not a valid RE2"},
        InvalidCase{"bad_switch_pattern", Make("", "ib-leaf-[", ""),
                    "\"switch\" is not a valid RE2"},
        InvalidCase{"bad_host_pattern", Make("", "", "gpu-node-*+"), "\"host\" is not a valid RE2"},
        InvalidCase{"backreference_is_not_re2", Make("", "", "(a)\\1"), "\"host\""},
        InvalidCase{"pattern_too_long", Make(std::string(1001, 'a'), "", ""), "longer than 1000"},
        InvalidCase{"no_reason",
                    With(Make("", "ib-leaf-01", ""), [](Silence& s) { s.reason = ""; }),
                    "\"reason\" is required"},
        InvalidCase{
            "reason_too_long",
            With(Make("", "ib-leaf-01", ""), [](Silence& s) { s.reason = std::string(4001, 'x'); }),
            "\"reason\" is longer"},
        InvalidCase{"author_too_long",
                    With(Make("", "ib-leaf-01", ""),
                         [](Silence& s) { s.created_by = std::string(201, 'x'); }),
                    "\"by\" is longer"},
        InvalidCase{"expires_at_created",
                    With(Make("", "ib-leaf-01", ""), [](Silence& s) { s.expires_at = kT0; }),
                    "must be after created_at"},
        InvalidCase{
            "expires_before_created",
            With(Make("", "ib-leaf-01", ""), [](Silence& s) { s.expires_at = kT0 - hours(1); }),
            "must be after created_at"}),
    [](const ::testing::TestParamInfo<InvalidCase>& p) { return std::string(p.param.name); });

// ---- ParseIsoTime ----

struct IsoCase {
  const char* text;
  TimePoint want;
};

class ParseIsoTimeTest : public ::testing::TestWithParam<IsoCase> {};

TEST_P(ParseIsoTimeTest, Parses) {
  auto t = ParseIsoTime(GetParam().text);
  ASSERT_TRUE(t.ok()) << GetParam().text << ": " << t.status().message();
  EXPECT_EQ(FormatIsoTime(t.value()), FormatIsoTime(GetParam().want)) << GetParam().text;
  EXPECT_EQ(t.value(), GetParam().want) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Forms, ParseIsoTimeTest,
    ::testing::Values(
        IsoCase{"2027-01-15T08:00:00Z", kT0}, IsoCase{"2027-01-15T08:00:00.000Z", kT0},
        IsoCase{"2027-01-15T08:00:00.25Z", kT0 + milliseconds(250)},
        IsoCase{"2027-01-15t08:00:00z", kT0}, IsoCase{"2027-01-15 08:00:00Z", kT0},
        IsoCase{"2027-01-15T09:30:00+01:30", kT0}, IsoCase{"2027-01-15T03:00:00-0500", kT0},
        IsoCase{"2027-01-15T08:00:00.123456789Z", kT0 + std::chrono::nanoseconds(123456789)},
        IsoCase{"2024-02-29T00:00:00Z", TimePoint(seconds(1'709'164'800))},
        IsoCase{"1970-01-01T00:00:00Z", TimePoint()}));

TEST(ParseIsoTimeTest, RoundTripsFormatIsoTime) {
  for (TimePoint t : {kT0, kT0 + milliseconds(1), kT0 + hours(24 * 400) + milliseconds(999)}) {
    auto back = ParseIsoTime(FormatIsoTime(t));
    ASSERT_TRUE(back.ok()) << FormatIsoTime(t);
    EXPECT_EQ(back.value(), t);
  }
}

class ParseIsoTimeInvalidTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ParseIsoTimeInvalidTest, IsInvalidArgument) {
  auto t = ParseIsoTime(GetParam());
  ASSERT_FALSE(t.ok()) << GetParam() << " parsed as " << FormatIsoTime(t.value());
  EXPECT_EQ(t.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(t.status().message().find("not an ISO 8601 time"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Rejected, ParseIsoTimeInvalidTest,
                         ::testing::Values("", "2027-01-15", "2027-01-15T08:00:00",  // no zone
                                           "2027-01-15T08:00Z", "2027-13-01T00:00:00Z",
                                           "2027-02-29T00:00:00Z", "2027-01-15T24:00:00Z",
                                           "2027-01-15T08:60:00Z", "2027-01-15T08:00:60Z",
                                           "2027-01-15T08:00:00.Z", "2027-01-15T08:00:00+1",
                                           "2027-01-15T08:00:00Z ", "tomorrow", "2h",
                                           "27-01-15T08:00:00Z",
                                           // past what a TimePoint holds (fuzzing found it)
                                           "6022-11-15T15:00:00Z", "9999-12-31T23:59:59Z",
                                           "1969-12-31T23:59:59Z", "0000-01-01T00:00:00Z"));

// ---- SilenceSet ----

SilenceSubject Link() {
  // A leaf switch port facing a host port, as the loop would describe a link.
  return SilenceSubject{
      {"fc6a1c0300000001_1", "e41d2d0300000001_1"}, {"ib-leaf-01"}, {"gpu-node-001"}};
}

struct MatchCase {
  const char* name;
  Silence silence;
  bool matches;
};

class SilenceSetMatchTest : public ::testing::TestWithParam<MatchCase> {};

TEST_P(SilenceSetMatchTest, MatchesWhenEverySetPatternFullMatchesOneName) {
  const MatchCase& c = GetParam();
  SilenceSet set({c.silence});
  ASSERT_EQ(set.size(), 1u);
  const Silence* m = set.Match(Link(), kT0 + minutes(1));
  EXPECT_EQ(m != nullptr, c.matches) << c.name;
  if (m) {
    EXPECT_EQ(m->id, c.silence.id);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SilenceSetMatchTest,
    ::testing::Values(
        MatchCase{"port_exact_switch_end", Make("fc6a1c0300000001_1", "", ""), true},
        MatchCase{"port_exact_host_end", Make("e41d2d0300000001_1", "", ""), true},
        MatchCase{"port_other", Make("fc6a1c0300000001_2", "", ""), false},
        MatchCase{"port_is_full_match_not_substring", Make("fc6a1c0300000001", "", ""), false},
        MatchCase{"port_prefix_pattern", Make("fc6a1c0300000001_.*", "", ""), true},
        MatchCase{"switch_exact", Make("", "ib-leaf-01", ""), true},
        MatchCase{"switch_class", Make("", "ib-leaf-0[1-4]", ""), true},
        MatchCase{"switch_substring_only", Make("", "leaf-01", ""), false},
        MatchCase{"switch_other", Make("", "ib-spine-01", ""), false},
        MatchCase{"host_alternation", Make("", "", "gpu-node-00[13]"), true},
        MatchCase{"host_other", Make("", "", "gpu-node-002"), false},
        MatchCase{"host_case_sensitive", Make("", "", "GPU-NODE-001"), false},
        MatchCase{"host_case_insensitive_flag", Make("", "", "(?i)GPU-NODE-001"), true},
        MatchCase{"all_three_match", Make(".*_1", "ib-leaf-01", "gpu-node-001"), true},
        MatchCase{"switch_matches_host_does_not", Make("", "ib-leaf-01", "gpu-node-002"), false},
        MatchCase{"port_matches_switch_does_not", Make(".*_1", "ib-leaf-02", ""), false}),
    [](const ::testing::TestParamInfo<MatchCase>& p) { return std::string(p.param.name); });

TEST(SilenceSetTest, OnlyActiveSilencesMatch) {
  Silence s = Make("", "ib-leaf-01", "");
  SilenceSet set({s});
  EXPECT_EQ(set.Match(Link(), kT0 - seconds(1)), nullptr);  // not yet
  EXPECT_NE(set.Match(Link(), kT0), nullptr);
  EXPECT_EQ(set.Match(Link(), kT0 + hours(2)), nullptr);  // over

  s.expired_at = kT0 + minutes(1);
  SilenceSet ended({s});
  EXPECT_EQ(ended.Match(Link(), kT0 + minutes(30)), nullptr);
}

TEST(SilenceSetTest, FirstActiveSilenceInOrderWins) {
  Silence over = Make("", "ib-leaf-01", "", 1);
  over.expires_at = kT0 + minutes(1);
  Silence host = Make("", "", "gpu-node-.*", 2);
  Silence sw = Make("", "ib-leaf-.*", "", 3);
  SilenceSet set({over, host, sw});
  ASSERT_EQ(set.size(), 3u);
  const Silence* m = set.Match(Link(), kT0 + minutes(5));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->id, 2);
  EXPECT_EQ(m->reason, "cable work in row 4");
  m = set.Match(Link(), kT0);  // the first is still active then
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->id, 1);
}

TEST(SilenceSetTest, EmptyOrMissingNamesNeverMatch) {
  // ".*" would full-match "", but an unknown end is not "any host".
  SilenceSet set({Make("", "", ".*")});
  SilenceSubject no_host{{"fc6a1c0300000001_1"}, {"ib-leaf-01"}, {}};
  EXPECT_EQ(set.Match(no_host, kT0), nullptr);
  SilenceSubject empty_host{{"fc6a1c0300000001_1"}, {"ib-leaf-01"}, {""}};
  EXPECT_EQ(set.Match(empty_host, kT0), nullptr);
  EXPECT_NE(set.Match(Link(), kT0), nullptr);
}

TEST(SilenceSetTest, SkipsSilencesThatDoNotCompileOrSetNoPattern) {
  SilenceSet set({Make("", "ib-leaf-(", "", 1), Make("", "", "", 2), Make("", "", "gpu-.*", 3)});
  EXPECT_EQ(set.size(), 1u);
  const Silence* m = set.Match(Link(), kT0);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->id, 3);
}

TEST(SilenceSetTest, EmptySetMatchesNothing) {
  SilenceSet set;
  EXPECT_EQ(set.size(), 0u);
  EXPECT_EQ(set.Match(Link(), kT0), nullptr);
}

TEST(SilenceSetTest, CopiesShareCompiledPatternsAndKeepWorking) {
  SilenceSet copy;
  {
    SilenceSet original({Make("", "ib-leaf-01", "", 7)});
    copy = original;
  }
  const Silence* m = copy.Match(Link(), kT0);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->id, 7);
}

}  // namespace
}  // namespace ufmr
