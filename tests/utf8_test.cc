// UTF-8 hygiene: invalid sequences and NULs become U+FFFD, valid text passes untouched, and a UFM
// answer with one broken byte still yields all its events and ports.
#include "core/utf8.h"

#include <gtest/gtest.h>

#include "core/inventory.h"
#include "core/ufm_event.h"

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

TEST(Utf8Test, OneBrokenByteDoesNotCostTheOtherEvents) {
  std::string body =
      std::string(
          R"([{"id": 1, "event_type": "329", "type": "Link", "description": "Link went down )") +
      "\xFF" +
      R"("}, {"id": 2, "event_type": "328", "type": "Link", "description": "Link went up"}])";
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

}  // namespace
}  // namespace ufmr
