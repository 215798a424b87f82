// RedactDatabasePassword: the password of a libpq connection string (URI or keywords, raw or
// percent-encoded) never survives into a message that quotes the string.
#include "config/db_url.h"

#include <gtest/gtest.h>

namespace ufmr {
namespace {

TEST(DbUrlTest, FindsThePasswordInEachForm) {
  EXPECT_EQ(DatabasePassword("postgresql://app:s3cret@db:5432/x"), "s3cret");
  EXPECT_EQ(DatabasePassword("postgres://app:p%40ss%25w@db/x?sslmode=require"), "p@ss%w");
  EXPECT_EQ(DatabasePassword("postgresql://app@db/x"), "");
  EXPECT_EQ(DatabasePassword("postgresql://db/x"), "");
  // An '@' in the password, not encoded: libpq ends the user info at the first '@'.
  EXPECT_EQ(DatabasePassword("postgresql://app:a@b@db/x"), "a");
  EXPECT_EQ(DatabasePassword("postgresql://app:pa?ss@db/x"), "pa?ss");
  EXPECT_EQ(DatabasePassword("host=db user=app password=kw-secret dbname=x"), "kw-secret");
  EXPECT_EQ(DatabasePassword("host=db password='with space\\'s' dbname=x"), "with space's");
  EXPECT_EQ(DatabasePassword("host=db dbname=x"), "");
  // "password=" inside another keyword's value is not the password.
  EXPECT_EQ(DatabasePassword("host=db options=xpassword=no"), "");
}

TEST(DbUrlTest, RedactsRawAndDecodedForms) {
  const std::string url = "postgresql://app:DbPw%Zq8Rn2Tx@db/x";
  EXPECT_EQ(RedactDatabasePassword("invalid percent-encoded token: \"DbPw%Zq8Rn2Tx\"", url),
            "invalid percent-encoded token: \"***\"");
  const std::string encoded = "postgresql://app:p%40ss@[::1/x";
  EXPECT_EQ(RedactDatabasePassword("bad URI \"postgresql://app:p%40ss@[::1/x\" and p@ss", encoded),
            "bad URI \"postgresql://app:***@[::1/x\" and ***");
  EXPECT_EQ(RedactDatabasePassword("connection refused", url), "connection refused");
  // An unencoded '@': libpq takes "Sec" as the password and "ret@db" as the host, and says so.
  EXPECT_EQ(RedactDatabasePassword("could not translate host name \"ret9@db\"; Sec ret9",
                                   "postgresql://app:Sec@ret9@db/x"),
            "could not translate host name \"***@db\"; *** ***");
  // A password in the query string, raw and decoded.
  EXPECT_EQ(RedactDatabasePassword("invalid token \"q%zzpw\" (q%zzpw)",
                                   "postgresql://db/x?sslmode=require&password=q%zzpw"),
            "invalid token \"***\" (***)");
  EXPECT_EQ(RedactDatabasePassword("p@ss!", "postgresql://db/x?password=p%40ss"), "***!");
  // A '?' inside the user info is still the password.
  EXPECT_EQ(RedactDatabasePassword("bad: pa?ss", "postgresql://app:pa?ss@db/x"), "bad: ***");
  EXPECT_EQ(RedactDatabasePassword("no password here", "postgresql://db/x"), "no password here");
  EXPECT_EQ(RedactDatabasePassword("kw-secret kw-secret", "password=kw-secret host=db"), "*** ***");
}

}  // namespace
}  // namespace ufmr
