// Password hashing and secrets (password.h): hashes are argon2id in the PHC format and salted
// (two hashes of one password differ), verification accepts the password and nothing else (nor a
// malformed hash), the password policy, and tokens and session secrets: unique, URL-safe, the
// token prefix, and stored digests that are SHA-256 hex, stable and not the secret.
#include "api/password.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace ufmr {
namespace {

TEST(PasswordTest, HashIsArgon2idAndSalted) {
  auto a = HashPassword("correct horse battery");
  auto b = HashPassword("correct horse battery");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->rfind("$argon2id$", 0), 0u) << a.value();
  EXPECT_NE(a.value(), b.value());
  EXPECT_EQ(a->find("correct horse"), std::string::npos);
}

TEST(PasswordTest, VerifyAcceptsThePasswordOnly) {
  auto h = HashPassword("s3cret-pass");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(VerifyPassword(h.value(), "s3cret-pass"));
  EXPECT_FALSE(VerifyPassword(h.value(), "s3cret-pasS"));
  EXPECT_FALSE(VerifyPassword(h.value(), ""));
  EXPECT_FALSE(VerifyPassword(h.value(), std::string("s3cret-pass\0x", 13)));
  EXPECT_FALSE(VerifyPassword("", "s3cret-pass"));
  EXPECT_FALSE(VerifyPassword("$argon2id$garbage", "s3cret-pass"));
}

TEST(PasswordTest, Policy) {
  struct Case {
    std::string password;
    bool ok;
  };
  for (const Case& c : {Case{"", false}, Case{"1234567", false}, Case{"12345678", true},
                        Case{std::string(kMaxPasswordLength, 'x'), true},
                        Case{std::string(kMaxPasswordLength + 1, 'x'), false}}) {
    Status s = CheckPasswordPolicy(c.password);
    EXPECT_EQ(s.ok(), c.ok) << c.password.size() << " chars: " << s.ToString();
    if (!s.ok()) {
      EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
    }
  }
}

TEST(PasswordTest, TokensAreUniqueUrlSafeAndPrefixed) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    std::string t = NewApiToken();
    EXPECT_EQ(t.rfind(kTokenPrefix, 0), 0u);
    EXPECT_EQ(t.size(), kTokenPrefix.size() + 43);
    EXPECT_EQ(
        t.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", 5),
        std::string::npos)
        << t;
    EXPECT_TRUE(seen.insert(t).second);
    EXPECT_TRUE(seen.insert(RandomSecret()).second);
  }
}

TEST(PasswordTest, DigestIsSha256Hex) {
  // The SHA-256 of "abc" (FIPS 180-2).
  EXPECT_EQ(SecretDigest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string t = NewApiToken();
  std::string d = SecretDigest(t);
  EXPECT_EQ(d.size(), 64u);
  EXPECT_EQ(d, SecretDigest(t));
  EXPECT_NE(d, SecretDigest(NewApiToken()));
  EXPECT_EQ(d.find(t.substr(5, 8)), std::string::npos);
}

TEST(PasswordTest, SecretsEqual) {
  EXPECT_TRUE(SecretsEqual("abc", "abc"));
  EXPECT_FALSE(SecretsEqual("abc", "abd"));
  EXPECT_FALSE(SecretsEqual("abc", "abcd"));
  EXPECT_FALSE(SecretsEqual("", "abc"));
  EXPECT_TRUE(SecretsEqual("", ""));
}

}  // namespace
}  // namespace ufmr
