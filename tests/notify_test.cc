// Covers `ufm-remediator notify test` against real receivers on loopback (an HTTP server that
// records what it is sent): a generic webhook gets the documented JSON (version, idempotency key
// also as a header, the test notification with its link and labels), a Slack-compatible one gets
// {"text": ...} in Slack's markup; --receiver picks one; a receiver that answers 500 is reported
// as worth retrying and one that answers 400 as refused; one that hangs is given up after its
// timeout; a URL from url_env is never printed; and the config's receivers are checked, each
// error naming its key.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "http/http_server.h"
#include "support/http_receiver.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

using nlohmann::json;
using testing::CommandResult;

using Receiver = testing::HttpReceiver;

class NotifyTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("notify"); }
  void TearDown() override { testing::RemoveTree(dir_); }

  // A config with these receivers (YAML list items, indented under notify.receivers).
  std::string Config(const std::string& receivers) {
    const std::string path = dir_ + "/config.yaml";
    testing::WriteFile(path,
                       "fabric: fab-n\nufm:\n  url: https://127.0.0.1:1\ndatabase:\n"
                       "  url: postgresql://nobody@127.0.0.1:1/none\nnotify:\n"
                       "  dashboard_url: http://dash.example:8080/\n  receivers:\n" +
                           receivers);
    return path;
  }

  CommandResult Run(const std::vector<std::string>& args, const std::string& env = "") {
    std::vector<std::string> argv = {testing::BinaryDir() + "/ufm-remediator"};
    argv.insert(argv.end(), args.begin(), args.end());
    return testing::RunCommand(argv, env);
  }

  std::string dir_;
};

TEST_F(NotifyTest, WebhookAndSlackReceiversGetTheTestMessageInTheirShapes) {
  Receiver hook, slack;
  const std::string config = Config(
      "    - {name: ops-hook, type: webhook, url: \"" + hook.Url("/hook") +
      "\"}\n    - {name: netops, type: slack, url: " + slack.Url("/services/T0/B0/x") + "}\n");
  CommandResult r = Run({"notify", "test", "--config", config});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ops-hook (webhook): delivered, HTTP 200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("netops (slack): delivered, HTTP 200"), std::string::npos) << r.out;

  const std::vector<HttpRequest> hooked = hook.Requests();  // a copy: h refers into it
  ASSERT_EQ(hooked.size(), 1u);
  const HttpRequest& h = hooked[0];
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.path, "/hook");
  EXPECT_EQ(h.Header("content-type"), "application/json");
  json body = json::parse(h.body);
  EXPECT_EQ(body["version"], 1);
  EXPECT_EQ(body["source"], "ufm-remediator");
  EXPECT_EQ(body["fabric"], "fab-n");
  EXPECT_EQ(body["receiver"], "ops-hook");
  EXPECT_FALSE(body["idempotency_key"].get<std::string>().empty());
  EXPECT_EQ(h.Header("idempotency-key"), body["idempotency_key"]);
  ASSERT_EQ(body["notifications"].size(), 1u);
  const json& n = body["notifications"][0];
  EXPECT_EQ(n["kind"], "test");
  EXPECT_EQ(n["severity"], "info");
  EXPECT_EQ(n["url"], "http://dash.example:8080/");
  EXPECT_EQ(n["labels"]["fabric"], "fab-n");
  EXPECT_NE(n["title"].get<std::string>().find("Test message"), std::string::npos);
  EXPECT_FALSE(n["text"].get<std::string>().empty());
  EXPECT_EQ(n["at"].get<std::string>().size(), 24u) << n["at"];  // 2026-12-04T10:00:00.000Z

  ASSERT_EQ(slack.Requests().size(), 1u);
  json text = json::parse(slack.Requests()[0].body);
  ASSERT_TRUE(text["text"].is_string()) << text;
  EXPECT_EQ(text["text"].get<std::string>().rfind("*Test message from ufm-remediator", 0), 0u)
      << text;
  EXPECT_NE(text["text"].get<std::string>().find("<http://dash.example:8080/|Dashboard>"),
            std::string::npos)
      << text;
  // Each message its own key.
  EXPECT_NE(slack.Requests()[0].Header("idempotency-key"), h.Header("idempotency-key"));
}

TEST_F(NotifyTest, ReceiverPicksOneAndAnUnknownNameIsAUsageError) {
  Receiver a, b;
  const std::string config = Config("    - {name: a, type: webhook, url: " + a.Url("/") +
                                    "}\n    - {name: b, type: webhook, url: " + b.Url("/") + "}\n");
  CommandResult r = Run({"notify", "test", "--config", config, "--receiver", "b"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(a.Requests().size(), 0u);
  EXPECT_EQ(b.Requests().size(), 1u);

  CommandResult unknown = Run({"notify", "test", "--config", config, "--receiver", "c"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err,
            "ufm-remediator notify test: no receiver named 'c' (there are: a, b) (see "
            "'ufm-remediator notify test --help')\n");
}

TEST_F(NotifyTest, FailuresSayWhetherTheyAreWorthRetrying) {
  Receiver down(500), refusing(400);
  const std::string config =
      Config("    - {name: down, type: webhook, url: " + down.Url("/") +
             "}\n    - {name: refusing, type: slack, url: " + refusing.Url("/") + "}\n");
  CommandResult r = Run({"notify", "test", "--config", config});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("down (webhook): NOT delivered: HTTP 500: no_service (the service would "
                       "retry)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("refusing (slack): NOT delivered: HTTP 400: no_service (refused: not "
                       "retried)"),
            std::string::npos)
      << r.out;
}

TEST_F(NotifyTest, AHungReceiverIsGivenUpAfterItsTimeoutAndItsSecretUrlIsNotShown) {
  Receiver hung(200, std::chrono::milliseconds(4000));
  const std::string url = hung.Url("/services/SECRET-PATH");
  const std::string config =
      Config("    - {name: hung, type: slack, url_env: HOOK_URL_FOR_TEST, timeout_s: 1}\n");
  const auto start = std::chrono::steady_clock::now();
  CommandResult r = Run({"notify", "test", "--config", config}, "HOOK_URL_FOR_TEST='" + url + "'");
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("hung (slack): NOT delivered:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(the service would retry)"), std::string::npos) << r.out;
  EXPECT_LT(took, std::chrono::milliseconds(3900)) << "waited for the answer, not the timeout";
  EXPECT_EQ((r.out + r.err).find("SECRET-PATH"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(hung.Requests().size(), 1u);
}

TEST_F(NotifyTest, ReceiversInTheConfigAreCheckedAndErrorsNameTheKey) {
  struct Case {
    std::string receivers, says;
  };
  const std::vector<Case> cases = {
      {"    - {name: a, type: sms, url: \"http://x/\"}\n", "notify.receivers[0].type: must be"},
      {"    - {name: a, type: webhook}\n", "notify.receivers[0].url: give exactly one of url"},
      {"    - {name: a, type: webhook, url: \"http://x/\", url_env: X}\n",
       "notify.receivers[0].url: give exactly one"},
      {"    - {type: webhook, url: \"http://x/\"}\n", "notify.receivers[0].name: is required"},
      {"    - {name: a, type: webhook, url: \"http://x/\"}\n    - {name: a, type: slack, url: "
       "http://y/}\n",
       "notify.receivers[1].name: 'a' twice"},
      {"    - {name: a, type: webhook, url: \"http://x/\", colour: red}\n",
       "notify.receivers[0].colour: unknown key"},
      {"    - {name: a, type: webhook, url: \"ftp://x/\"}\n", "the URL must start with http://"},
      {"    - {name: a, type: webhook, url_file: /nonexistent/hook-url}\n",
       "notify.receivers[0].url_file: cannot read /nonexistent/hook-url"},
      {"    - {name: a, type: webhook, url_env: UNSET_HOOK_VARIABLE}\n",
       "url_env: variable UNSET_HOOK_VARIABLE is not set"},
      {"    - {name: a, type: webhook, url: \"http://x/\", timeout_s: 0}\n",
       "notify.receivers[0].timeout_s: must be at least"},
      {"    name: a\n", "notify.receivers: expected a list of receivers"},
  };
  for (const auto& c : cases) {
    CommandResult r = Run({"config", "check", Config(c.receivers)});
    EXPECT_EQ(r.exit_code, 1) << c.receivers << r.out;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.receivers << " -> " << r.err;
  }
  // A URL from a file: its first line.
  Receiver hook;
  testing::WriteFile(dir_ + "/hook-url", hook.Url("/from-file") + "\n");
  CommandResult r =
      Run({"notify", "test", "--config",
           Config("    - {name: f, type: webhook, url_file: " + dir_ + "/hook-url}\n")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_EQ(hook.Requests().size(), 1u);
  EXPECT_EQ(hook.Requests()[0].path, "/from-file");
  // config check names the receivers, never their URLs.
  CommandResult check =
      Run({"config", "check",
           Config("    - {name: f, type: webhook, url_file: " + dir_ + "/hook-url}\n")});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("notify:    f (webhook); links to http://dash.example:8080/"),
            std::string::npos)
      << check.out;
  EXPECT_EQ(check.out.find("/from-file"), std::string::npos) << check.out;
  // None configured: said, exit 1.
  CommandResult none = Run({"notify", "test", "--config", Config("    []\n")});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("has no receivers"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace ufmr
