// Covers `ufm-remediator user ...` and `token ...` as administrators and test scripts run them,
// against a real PostgreSQL migrated by `db migrate`: adding users (password from stdin), every
// refusal (short or empty password, unknown role, bad name, an existing user, a missing --config),
// listing, changing a password, disabling (which revokes the user's tokens), and tokens: created
// (printed once, alone on stdout, only its digest stored), listed and revoked.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "api/auth_store.h"
#include "api/password.h"
#include "store/store.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

using CliRun = testing::CommandResult;

class UserCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("user-cli");
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    config_ = dir_ + "/config.yaml";
    testing::WriteFile(config_,
                       "fabric: fab-a\nufm:\n  url: https://127.0.0.1:1\ndatabase:\n"
                       "  url: \"" +
                           db_url_ + "\"\n  schema_dir: \"" + testing::SourceDir() + "/schema\"\n");
    CliRun m = Run({"db", "migrate"});
    ASSERT_EQ(m.exit_code, 0) << m.err;
  }
  void TearDown() override { testing::RemoveTree(dir_); }

  // Runs the binary with `--config` added (unless `with_config` is false) and `input` on stdin.
  CliRun Run(const std::vector<std::string>& args, const std::string& input = "",
             bool with_config = true) {
    std::vector<std::string> argv = {testing::BinaryDir() + "/ufm-remediator"};
    argv.insert(argv.end(), args.begin(), args.end());
    if (with_config) {
      argv.push_back("--config");
      argv.push_back(config_);
    }
    return testing::RunCommand(argv, "", input);
  }

  std::unique_ptr<Store> OpenStore() {
    auto s = Store::Open(db_url_, "fab-a");
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s.value()) : nullptr;
  }

  std::string dir_, db_url_, config_;
};

TEST_F(UserCliTest, AddListPasswdDisable) {
  CliRun add = Run({"user", "add", "tech.one@dc", "--role", "technician"}, "first-password\n");
  ASSERT_EQ(add.exit_code, 0) << add.err;
  EXPECT_EQ(add.out, "");
  EXPECT_EQ(add.err.find("first-password"), std::string::npos);
  ASSERT_EQ(Run({"user", "add", "boss", "--role", "admin"}, "second-password").exit_code, 0);

  auto store = OpenStore();
  ASSERT_TRUE(store);
  AuthStore auth(*store);
  auto u = auth.GetUser("tech.one@dc");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->role, Role::kTechnician);
  EXPECT_EQ(u->password_hash.rfind("$argon2id$", 0), 0u);
  EXPECT_TRUE(VerifyPassword(u->password_hash, "first-password"));
  EXPECT_TRUE(VerifyPassword(auth.GetUser("boss")->password_hash, "second-password"));

  CliRun list = Run({"user", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out.rfind("NAME", 0), 0u) << list.out;
  EXPECT_NE(list.out.find("boss"), std::string::npos);
  EXPECT_NE(list.out.find("tech.one@dc"), std::string::npos);
  EXPECT_NE(list.out.find("technician"), std::string::npos);
  EXPECT_EQ(list.out.find("argon2"), std::string::npos);

  CliRun passwd = Run({"user", "passwd", "tech.one@dc"}, "changed-password\r\n");
  ASSERT_EQ(passwd.exit_code, 0) << passwd.err;
  u = auth.GetUser("tech.one@dc");
  EXPECT_TRUE(VerifyPassword(u->password_hash, "changed-password"));
  EXPECT_EQ(Run({"user", "passwd", "tech.one@dc"}, "short\n").exit_code, 1);
  EXPECT_EQ(Run({"user", "passwd", "nobody"}, "long-enough-1\n").exit_code, 1);

  auto token = auth.CreateToken("tech.one@dc", "");
  ASSERT_TRUE(token.ok());
  CliRun disable = Run({"user", "disable", "tech.one@dc"});
  ASSERT_EQ(disable.exit_code, 0) << disable.err;
  EXPECT_TRUE(auth.GetUser("tech.one@dc")->disabled);
  auto found = auth.FindToken(SecretDigest(token->token), 0);
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found.value().has_value());
  CliRun listed = Run({"user", "list"});
  EXPECT_NE(listed.out.find("yes"), std::string::npos) << listed.out;
  EXPECT_EQ(Run({"user", "disable", "nobody"}).exit_code, 1);
}

TEST_F(UserCliTest, AddRefusals) {
  struct Case {
    std::vector<std::string> args;
    std::string input;
    std::string message;  // a part of stderr
  };
  ASSERT_EQ(Run({"user", "add", "taken", "--role", "viewer"}, "long-enough-1\n").exit_code, 0);
  for (const Case& c : {
           Case{{"user", "add", "a", "--role", "viewer"}, "", "empty"},
           Case{{"user", "add", "a", "--role", "viewer"}, "\n", "empty"},
           Case{{"user", "add", "a", "--role", "viewer"}, "1234567\n", "shorter than 8"},
           Case{{"user", "add", "a", "--role", "root"}, "long-enough-1\n", "unknown role"},
           Case{{"user", "add", "a b", "--role", "viewer"}, "long-enough-1\n", "bad user name"},
           Case{{"user", "add", "a/b", "--role", "viewer"}, "long-enough-1\n", "bad user name"},
           Case{{"user", "add", std::string(65, 'a'), "--role", "viewer"},
                "long-enough-1\n",
                "bad user name"},
           Case{{"user", "add", "taken", "--role", "admin"}, "long-enough-1\n", "already exists"},
       }) {
    CliRun r = Run(c.args, c.input);
    EXPECT_EQ(r.exit_code, 1) << c.args[2] << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args[2] << ": " << r.err;
  }
  EXPECT_EQ(
      Run({"user", "add", std::string(64, 'a'), "--role", "viewer"}, "long-enough-1\n").exit_code,
      0);
  // Usage errors.
  EXPECT_EQ(Run({"user", "add", "a"}, "long-enough-1\n").exit_code, 2);
  EXPECT_EQ(Run({"user", "frobnicate"}).exit_code, 2);
  EXPECT_EQ(Run({"user", "add", "a", "--role", "viewer"}, "long-enough-1\n", false).exit_code, 2);

  auto store = OpenStore();
  ASSERT_TRUE(store);
  auto users = AuthStore(*store).ListUsers();
  ASSERT_TRUE(users.ok());
  EXPECT_EQ(users->size(), 2u);
  AuthStore auth(*store);
  EXPECT_EQ(auth.GetUser("taken")->role, Role::kViewer);
}

TEST_F(UserCliTest, TokenCreateListRevoke) {
  ASSERT_EQ(Run({"user", "add", "ci", "--role", "technician"}, "long-enough-1\n").exit_code, 0);
  CliRun create = Run({"token", "create", "--user", "ci", "--label", "nightly checks"});
  ASSERT_EQ(create.exit_code, 0) << create.err;
  // Only the token, on its own line, so TOKEN=$(...) captures it.
  ASSERT_EQ(create.out.size(), kTokenPrefix.size() + 43 + 1) << create.out;
  EXPECT_EQ(create.out.back(), '\n');
  std::string token = create.out.substr(0, create.out.size() - 1);
  EXPECT_EQ(token.rfind(kTokenPrefix, 0), 0u);
  EXPECT_NE(create.err.find("Bearer"), std::string::npos);
  EXPECT_EQ(create.err.find(token), std::string::npos);

  auto store = OpenStore();
  ASSERT_TRUE(store);
  AuthStore auth(*store);
  auto found = auth.FindToken(SecretDigest(token), 1e9);
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found.value().has_value());
  EXPECT_EQ(found.value()->user, "ci");
  Status s = store->Run([&](pqxx::work& w) {
    EXPECT_EQ(w.exec_params("SELECT 1 FROM api_tokens WHERE token_hash = $1 OR prefix = $1", token)
                  .size(),
              0u);
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok());

  CliRun second = Run({"token", "create", "--user", "ci"});
  ASSERT_EQ(second.exit_code, 0);
  EXPECT_NE(second.out, create.out);

  CliRun list = Run({"token", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("nightly checks"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(token.substr(0, 11)), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find(token), std::string::npos);
  EXPECT_NE(list.out.find("LAST USED"), std::string::npos);

  auto tokens = auth.ListTokens();
  ASSERT_TRUE(tokens.ok());
  ASSERT_EQ(tokens->size(), 2u);
  std::string id = std::to_string(tokens->at(0).id);
  CliRun revoke = Run({"token", "revoke", id});
  ASSERT_EQ(revoke.exit_code, 0) << revoke.err;
  found = auth.FindToken(SecretDigest(token), 1e9);
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found.value().has_value());
  EXPECT_TRUE(auth.ListTokens()->at(0).revoked_at.has_value());

  // Refusals.
  CliRun again = Run({"token", "revoke", id});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already revoked"), std::string::npos) << again.err;
  EXPECT_EQ(Run({"token", "revoke", "999"}).exit_code, 1);
  EXPECT_EQ(Run({"token", "revoke", "abc"}).exit_code, 1);
  CliRun nobody = Run({"token", "create", "--user", "nobody"});
  EXPECT_EQ(nobody.exit_code, 1);
  EXPECT_EQ(nobody.out, "");
  EXPECT_NE(nobody.err.find("no user"), std::string::npos);
  EXPECT_EQ(Run({"token", "create"}).exit_code, 2);
  ASSERT_EQ(Run({"user", "disable", "ci"}).exit_code, 0);
  EXPECT_EQ(Run({"token", "create", "--user", "ci"}).exit_code, 1);
}

TEST_F(UserCliTest, RefusesAnUnmigratedDatabase) {
  std::string other = dir_ + "/other.yaml";
  testing::WriteFile(other, "ufm:\n  url: https://127.0.0.1:1\ndatabase:\n  url: \"" +
                                testing::TestPostgres::Get().CreateDatabase() +
                                "\"\n  schema_dir: \"" + testing::SourceDir() + "/schema\"\n");
  CliRun r = Run({"user", "list", "--config", other}, "", false);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("db migrate"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ufmr
