// Covers the notify: section of the config (config/notify_config.h) and the route tree
// (notify/route.h), without receivers: routes read from YAML inherit what they leave out;
// without a route every receiver hears of everything; a child takes what all its matchers hold
// for and stops the walk unless it says continue; group keys follow group_by; an email receiver
// needs its sender and recipients and takes its password from a file; and each mistake is a
// one-line error naming its key. Also the words of a notification (notify/notice.h).
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"
#include "notify/email.h"
#include "notify/notice.h"
#include "notify/route.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

const char* kHead =
    "fabric: f\nufm:\n  url: https://u\ndatabase:\n  url: postgresql://x@h/d\nnotify:\n"
    "  receivers:\n    - {name: all, type: webhook, url: 'http://h/a'}\n"
    "    - {name: pager, type: slack, url: 'https://h/p'}\n";

Result<Config> Load(const std::string& notify_rest) {
  return LoadConfigText(std::string(kHead) + notify_rest, "c.yaml");
}

std::vector<std::string> Receivers(const RouteTree& t, const Labels& labels) {
  std::vector<std::string> out;
  for (const RouteMatch& m : t.Match(labels)) out.push_back(m.receiver + " " + m.group_key);
  return out;
}

TEST(NotifyRouteTest, WithoutARouteEveryReceiverHearsOfEverything) {
  auto c = Load("");
  ASSERT_TRUE(c.ok()) << c.status().message();
  RouteTree t(c->notify.route);
  EXPECT_EQ(Receivers(t, {{"kind", "ticket_opened"}}),
            (std::vector<std::string>{"all 0.0", "pager 0.1"}));
  EXPECT_EQ(c->notify.route.routes[0].group_wait_s, 30);
  EXPECT_EQ(c->notify.route.routes[0].repeat_interval_s, 4 * 3600);
}

TEST(NotifyRouteTest, ChildrenInheritAndTheFirstThatTakesItEndsTheWalkUnlessContinue) {
  auto c = Load(
      "  route:\n    receiver: all\n    group_by: [rule]\n    group_wait: 10s\n"
      "    repeat_interval: 1h\n    routes:\n"
      "      - {match: {severity: critical}, receiver: pager, continue: true, group_by: [switch]}\n"
      "      - {match_re: {switch: 'spine-.*'}, group_wait: 0s}\n"
      "      - {match: {kind: input_failing}, receiver: pager}\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const auto& r = c->notify.route.routes;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].receiver, "all");
  EXPECT_EQ(r[1].group_by, std::vector<std::string>{"rule"});
  EXPECT_EQ(r[1].group_wait_s, 0);
  EXPECT_EQ(r[1].repeat_interval_s, 3600);
  EXPECT_EQ(r[0].group_wait_s, 10);
  RouteTree t(c->notify.route);
  // critical on a spine: the pager (continue), then the spine route.
  EXPECT_EQ(Receivers(t, {{"severity", "critical"}, {"switch", "spine-3"}, {"rule", "down"}}),
            (std::vector<std::string>{"pager 0.0|switch=spine-3", "all 0.1|rule=down"}));
  // match_re holds for the whole value only.
  EXPECT_EQ(Receivers(t, {{"severity", "major"}, {"switch", "leaf-spine-3"}, {"rule", "ber"}}),
            (std::vector<std::string>{"all 0|rule=ber"}));
  // The input route stops the walk; a label it lacks groups as "".
  EXPECT_EQ(Receivers(t, {{"kind", "input_failing"}}),
            (std::vector<std::string>{"pager 0.2|rule="}));
  auto m = t.Match({{"severity", "critical"}, {"switch", "leaf-1"}});
  ASSERT_EQ(m.size(), 1u);  // the pager only: a child took it, so the root's receiver does not
  EXPECT_EQ(m[0].group_labels.at("switch"), "leaf-1");
}

TEST(NotifyRouteTest, EmailReceiverTakesItsPasswordFromAFile) {
  const std::string dir = testing::MakeTempDir("notify-route");
  testing::WriteFile(dir + "/pw", "s3cret\n");
  auto c = LoadConfigText(std::string(kHead) +
                              "    - {name: mail, type: email, url: 'smtp://mail:587', from: a@b, "
                              "to: [c@d, e@f], username: ops, password_file: " +
                              dir + "/pw}\n",
                          "c.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const auto& mail = c->notify.receivers[2];
  EXPECT_EQ(mail.password, "s3cret");
  EXPECT_EQ(mail.to, (std::vector<std::string>{"c@d", "e@f"}));
  EXPECT_TRUE(mail.starttls);
  testing::RemoveTree(dir);
}

TEST(NotifyRouteTest, MistakesNameTheirKey) {
  struct Case {
    std::string yaml, error;
  } cases[] = {
      {"  route: {receiver: nobody}\n", "notify.route.receiver: no receiver is named 'nobody'"},
      {"  route: {receiver: all, match: {colour: red}}\n",
       "notify.route.match.colour: unknown label"},
      {"  route: {receiver: all, match_re: {rule: '(('}}\n",
       "notify.route.match_re.rule: not an RE2 pattern"},
      {"  route: {receiver: all, group_by: [rule, size]}\n",
       "notify.route.group_by: unknown label 'size'"},
      {"  route: {receiver: all, routes: [{receiver: all, wait: 3}]}\n",
       "notify.route.routes[0].wait: unknown key"},
      {"  route: {receiver: all, repeat_interval: 10s}\n",
       "notify.route.repeat_interval: must be at least"},
      {"  route: [all]\n", "notify.route: expected a mapping"},
      {"    - {name: m, type: email, url: 'smtp://h'}\n",
       "notify.receivers[2].from: is required for email"},
      {"    - {name: m, type: email, url: 'smtp://h', from: a@b}\n",
       "notify.receivers[2].to: is required for email"},
      {"    - {name: m, type: webhook, url: 'http://h', to: [a@b]}\n",
       "notify.receivers[2].to: is for email receivers only"},
      {"    - {name: m, type: email, url: 'smtp://h', from: a, to: b, password_env: X}\n",
       "notify.receivers[2].username: is required with a password"},
      {"    - {name: m, type: email, url: 'http://h', from: a, to: b}\n",
       "must start with smtp:// or smtps://"},
      {"  retry_max_s: 0\n", "notify.retry_max_s: must be at least"},
      {"  route: {receiver: all, match: {severity: critical}}\n",
       "notify.route: the root route takes everything"},
      {"    - {name: m, type: email, url: 'smtp://h', from: a@b, to: 'c@d>, e@f'}\n",
       "notify.receivers[2].to: 'c@d>, e@f' is not a plain address"},
      {"    - {name: m, type: email, url: 'smtp://h', from: a@b, to: c@d, starttls: false, "
       "username: u}\n",
       "notify.receivers[2].starttls: false with a username would send the password in the clear"},
  };
  for (const Case& k : cases) {
    auto c = Load(k.yaml);
    ASSERT_FALSE(c.ok()) << k.yaml;
    EXPECT_NE(c.status().message().find(k.error), std::string::npos)
        << k.yaml << " -> " << c.status().message();
  }
}

TEST(NotifyRouteTest, NoticeSaysWhatWhereWhatWasDoneAndWhatToDo) {
  NoticeSource s;
  s.kind = "opened";
  s.fabric = "f";
  s.at = FromEpochSeconds(1.7e9);
  Ticket t;
  t.id = 12;
  t.link_key = "a|b";
  t.port_a = "e41d_1";
  t.port_b = "fc6a_7";
  t.action_port = "fc6a_7";
  t.rule = "ber_high";
  t.severity = "critical";
  t.guard = "last_link";
  t.explanation = "Symbol errors rose by 4,000 in 5 minutes.";
  t.switch_name = "leaf-7";
  t.host_name = "gpu-7";
  t.ends = nlohmann::json::array({{{"name", "fc6a_7"}, {"label", "1/7"}, {"is_switch", true}}});
  s.ticket = t;
  s.decision = {
      {"decision", "blocked"}, {"guard", "last_link"}, {"reason", "the host's last link"}};
  Notification n = NoticeOf(s, "http://d:8080");
  EXPECT_EQ(n.kind, "ticket_opened");
  EXPECT_EQ(n.severity, "critical");
  EXPECT_EQ(n.title,
            "Link fault on switch leaf-7 port 1/7, to host gpu-7: not cut (ticket #12, "
            "ber_high)");
  EXPECT_NE(n.text.find("No port was cut: the last_link guard held the service back (the host's "
                        "last link)."),
            std::string::npos)
      << n.text;
  EXPECT_EQ(n.url, "http://d:8080/tickets/12");
  EXPECT_EQ(n.labels.at("host"), "gpu-7");
  EXPECT_TRUE(NoticeKindResolves(n.kind));

  t.link_key = "storm";
  s.ticket = t;
  s.message = "breaker tripped: 60 findings in 60 s";
  n = NoticeOf(s, "");
  EXPECT_EQ(n.kind, "breaker_tripped");
  EXPECT_EQ(n.severity, "critical");
  EXPECT_EQ(n.url, "");
  EXPECT_EQ(n.labels.count("rule"), 0u);

  s.kind = "soak_passed";
  t.link_key = "a|b";
  s.ticket = t;
  n = NoticeOf(s, "");
  EXPECT_EQ(n.kind, "repaired");
  EXPECT_FALSE(NoticeKindResolves(n.kind));
}

TEST(NotifyRouteTest, EmailTextHasOneHeaderPerLineAndTheKeyAsMessageId) {
  Config::Notify::Receiver r;
  r.from = "svc@example.com";
  r.to = {"a@example.com", "b@example.com"};
  Message m;
  m.idempotency_key = "k-1";
  m.fabric = "f";
  m.receiver = "mail";
  Notification n;
  n.title = "Port down\r\nBcc: evil@example.com";  // a title cannot add a header
  n.text = "line one\nline two";
  n.at = FromEpochSeconds(1.7e9);
  m.notifications = {n};
  const std::string text = EmailText(r, m, FromEpochSeconds(1.7e9));
  EXPECT_NE(text.find("\r\nSubject: [ufm-remediator] Port down  Bcc: evil@example.com\r\n"),
            std::string::npos)
      << text;
  const std::string head = text.substr(0, text.find("\r\n\r\n"));
  EXPECT_EQ(head.find("\r\nBcc:"), std::string::npos) << head;
  EXPECT_NE(text.find("\r\nMessage-ID: <k-1@ufm-remediator>\r\n"), std::string::npos);
  EXPECT_NE(text.find("To: a@example.com, b@example.com\r\n"), std::string::npos);
  EXPECT_NE(text.find("line one\r\nline two\r\n"), std::string::npos);
  EXPECT_EQ(text.find("\n\n"), std::string::npos) << "every line ends in CRLF";
  EXPECT_EQ(text.find("\nBcc:"), std::string::npos) << "nor a line of the body";
  // Non-ASCII: encoded words of at most 75 characters, on folded lines, no character split.
  n.title = "Câble défectueux entre le commutateur ib-leaf-01 et l'hôte gpu-017 (baie r03)";
  m.notifications = {n};
  const std::string mail = EmailText(r, m, FromEpochSeconds(1.7e9));
  const size_t from = mail.find("Subject: ");
  const std::string subject = mail.substr(from, mail.find("\r\nDate:") - from);
  EXPECT_EQ(subject.rfind("Subject: =?UTF-8?B?", 0), 0u) << subject;
  std::vector<std::string> words;  // one per folded line
  std::string rest = subject.substr(9);
  for (size_t fold; (fold = rest.find("\r\n ")) != std::string::npos;
       rest = rest.substr(fold + 3)) {
    words.push_back(rest.substr(0, fold));
  }
  words.push_back(rest);
  EXPECT_GE(words.size(), 2u) << subject;
  for (const std::string& w : words) {
    EXPECT_EQ(w.rfind("=?UTF-8?B?", 0), 0u) << w;
    EXPECT_EQ(w.substr(w.size() - 2), "?=") << w;
    EXPECT_LE(w.size(), 75u) << w;
  }
  EXPECT_NE(subject.find("?=\r\n =?UTF-8?B?"), std::string::npos) << "folded" << subject;
}

TEST(NotifyRouteTest, ALongSlackMessageSaysWhatItLeavesOut) {
  Message m;
  for (int i = 0; i < 400; ++i) {
    Notification n;
    n.title = "Link fault " + std::to_string(i);
    n.text = std::string(200, 'x');
    m.notifications.push_back(n);
  }
  const std::string text = SlackBody(m)["text"];
  EXPECT_LT(text.size(), 40000u);
  EXPECT_NE(text.find("*Link fault 0*"), std::string::npos);
  EXPECT_EQ(text.find("*Link fault 399*"), std::string::npos);
  EXPECT_NE(text.find(" more notifications: see the dashboard_"), std::string::npos);
}

}  // namespace
}  // namespace ufmr
