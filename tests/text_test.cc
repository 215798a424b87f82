// Covers src/base/text.h: ASCII case folding that leaves other bytes alone, and both trims.
#include "base/text.h"

#include <gtest/gtest.h>

namespace ufmr {
namespace {

TEST(TextTest, AsciiLowerFoldsOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLower("Bearer X-Token_9"), "bearer x-token_9");
  EXPECT_EQ(AsciiLower(""), "");
  // UTF-8 bytes are not letters to fold: "Ä" stays as it is.
  EXPECT_EQ(AsciiLower("\xC3\x84Z"), "\xC3\x84z");
}

TEST(TextTest, AsciiUpperFoldsOnlyAsciiLetters) {
  EXPECT_EQ(AsciiUpper("get /ufmRest"), "GET /UFMREST");
  EXPECT_EQ(AsciiUpper("\xC3\xA4z"), "\xC3\xA4Z");
}

TEST(TextTest, TrimBlanksTakesSpacesAndTabsOnly) {
  EXPECT_EQ(TrimBlanks(" \t switch \t"), "switch");
  EXPECT_EQ(TrimBlanks("\r\nline\r\n"), "\r\nline\r\n");
  EXPECT_EQ(TrimBlanks(" a b "), "a b");
  EXPECT_EQ(TrimBlanks("   "), "");
}

TEST(TextTest, TrimSpaceTakesEveryAsciiSpace) {
  EXPECT_EQ(TrimSpace("\r\n\t\v\f value \r\n"), "value");
  EXPECT_EQ(TrimSpace("\n"), "");
  EXPECT_EQ(TrimSpace("a\nb"), "a\nb");
}

}  // namespace
}  // namespace ufmr
