// UTF-8 hygiene: invalid sequences and NULs become U+FFFD, valid text passes untouched, and a UFM
// answer with one broken byte still yields all its events and ports; ForLog escapes control
// characters so request text cannot forge a log line.
#include "base/utf8.h"

#include <gtest/gtest.h>

#include "ufm/inventory.h"
#include "ufm/ufm_event.h"

namespace ufmr {
namespace {

TEST(Utf8Test, ValidTextIsUnchanged) {
  std::string out;
  for (std::string s : {"", "plain", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9F\x98\x80"}) {
    EXPECT_FALSE(SanitizeUtf8(s, &out)) << s;
    EXPECT_EQ(out, s);
  }
}

TEST(Utf8Test, InvalidBytesAndNulsAreReplaced) {
  struct Case {
    std::string in, out;
  };
  const std::string r = "\xEF\xBF\xBD";
  for (const Case& c : std::vector<Case>{
           {"a\xFF"
            "b",
            "a" + r + "b"},
           {std::string("a\0b", 3), "a" + r + "b"},
           {"\xC3", r},                  // truncated sequence
           {"\xE2\x82", r + r},          // truncated three-byte sequence
           {"\xED\xA0\x80", r + r + r},  // a UTF-16 surrogate is not UTF-8
           {"\xC0\xAF", r + r},          // overlong
       }) {
    std::string out;
    EXPECT_TRUE(SanitizeUtf8(c.in, &out));
    EXPECT_EQ(out, c.out);
  }
}

// The 8-bytes-at-a-time ASCII scan finds a NUL, a stray byte or a broken sequence at every
// position and alignment, and steps over valid multi-byte text.
TEST(Utf8Test, FirstInvalidIsFoundAtEveryAlignment) {
  const std::string ascii(40, 'x');
  EXPECT_EQ(FirstInvalidUtf8(ascii), std::string_view::npos);
  EXPECT_EQ(FirstInvalidUtf8(""), std::string_view::npos);
  for (size_t at = 0; at < 33; ++at) {
    for (const std::string& bad : {std::string(1, '\0'), std::string("\xFF"), std::string("\xC3"),
                                   std::string("\xE2\x82x")}) {
      std::string s = ascii;
      s.replace(at, bad.size(), bad);
      EXPECT_EQ(FirstInvalidUtf8(s), at) << "at " << at << " bad " << bad.size();
      EXPECT_EQ(FirstInvalidUtf8(s, at + bad.size()), std::string_view::npos);
    }
    std::string ok = ascii;
    ok.replace(at, 4, "\xF0\x9F\x98\x80");
    EXPECT_EQ(FirstInvalidUtf8(ok), std::string_view::npos) << at;
  }
}

// Sanitizing by runs gives exactly what a byte-by-byte copy gives, on random bytes.
TEST(Utf8Test, SanitizeMatchesAByteByByteCopy) {
  auto reference = [](std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
      size_t len = Utf8SequenceLength(s, i);
      out += len ? std::string(s.substr(i, len)) : std::string("\xEF\xBF\xBD");
      i += len ? len : 1;
    }
    return out;
  };
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1103515245u + 12345u; };
  for (int n = 0; n < 2000; ++n) {
    std::string s;
    const size_t len = next() % 64;
    for (size_t i = 0; i < len; ++i) {
      const uint32_t r = next() >> 16;
      s += static_cast<char>(r % 4 == 0 ? (r >> 8) & 0xFF : 'a' + r % 26);  // mostly ASCII
    }
    std::string out;
    const bool replaced = SanitizeUtf8(s, &out);
    EXPECT_EQ(out, reference(s));
    EXPECT_EQ(replaced, out != s);
    EXPECT_EQ(FirstInvalidUtf8(s) == std::string_view::npos, !replaced);
  }
}

TEST(Utf8Test, OneBrokenByteDoesNotCostTheOtherEvents) {
  std::string body =
      std::string(
          R"([{"id": 1, "event_type": "329", "type": "Link", "description": "Link went down )") +
      "\xFF" +
      R"("}, {"id": 2, "event_type": "328", "type": "Link", "description": "Link is up"}])";
  auto events = ParseUfmEvents(body);
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->events.size(), 2u);
  EXPECT_EQ(events->events[0].description, "Link went down \xEF\xBF\xBD");
}

TEST(Utf8Test, OneBrokenByteDoesNotCostThePorts) {
  int skipped = -1;
  auto ports = ParsePorts(
      std::string(R"([{"name": "a_1", "system_name": "sw)") + "\xC3" + R"("}, {"name": "b_1"}])",
      &skipped);
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  EXPECT_EQ(ports->size(), 2u);
  EXPECT_EQ(skipped, 0);
}

TEST(ForLogTest, NoLineCanBeForged) {
  EXPECT_EQ(ForLog("ann"), "ann");
  EXPECT_EQ(ForLog("Jos\xc3\xa9"), "Jos\xc3\xa9");  // valid UTF-8 stays as it is
  EXPECT_EQ(ForLog("x\n2026-11-30 info login: admin (admin)"),
            "x\\x0a2026-11-30 info login: admin (admin)");
  EXPECT_EQ(ForLog("a\r\tb\\c\x7f"), "a\\x0d\\x09b\\x5cc\\x7f");
  EXPECT_EQ(ForLog(std::string("a\0b", 3)),
            "a\xef\xbf\xbd"
            "b");  // NUL as U+FFFD
  EXPECT_EQ(ForLog("\xff"), "\xef\xbf\xbd");
  EXPECT_EQ(ForLog(std::string(100, 'n')), std::string(64, 'n') + "...");
  // Cut on a character boundary: 63 bytes, then a 2-byte character that would cross 64.
  EXPECT_EQ(ForLog(std::string(63, 'n') + "\xc3\xa9z"), std::string(63, 'n') + "...");
}

}  // namespace
}  // namespace ufmr
