// Covers the notifier (src/notify/notifier.h) against a real PostgreSQL and real receivers on
// loopback: an HTTP receiver (tests/support/http_receiver.h) and an SMTP mailbox with STARTTLS and
// authentication (scripts/mail-sink.py, Debian's python3-aiosmtpd). A burst of tickets is one
// message, sent once, after group_wait; a receiver that is down gets every message when it comes
// back, each under the key it was first tried with; a restart with messages pending sends each
// once; a refusal is not retried and is listed as failing; a silence keeps a ticket from being
// told; routes give each receiver its share (match, continue, group_by); what stays unresolved
// is repeated until its ticket closes; an input failing and healthy again is told once each; an
// email arrives over STARTTLS with authentication, its Message-ID made of the message's key, and
// refused credentials are not retried.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "config/config.h"
#include "notify/notifier.h"
#include "store/store.h"
#include "support/http_receiver.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class NotifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open(testing::TestPostgres::Get().CreateDatabase(), "fab-t");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
    ASSERT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
    config_.fabric = "fab-t";
    config_.notify.dashboard_url = "https://remediator.example/";
    config_.notify.retry_max_s = 1;
  }

  // One receiver of `type` at `url`, and a root route to it with short timings.
  void OneReceiver(const std::string& url, const std::string& type = "webhook") {
    Config::Notify::Receiver r;
    r.name = "hook";
    r.type = type;
    r.url = url;
    r.timeout_s = 2;
    config_.notify.receivers = {r};
    config_.notify.route = Config::Notify::Route();
    config_.notify.route.receiver = "hook";
    Fast(&config_.notify.route);
  }
  static void Fast(Config::Notify::Route* r) {
    r->group_wait_s = 1;
    r->group_interval_s = 1;
    r->repeat_interval_s = 3600;
  }

  std::unique_ptr<Notifier> Make(
      std::function<DeliveryResult(const Config::Notify::Receiver&, const Message&)> send = {}) {
    Notifier::Parts p{config_, *store_, metrics_, inputs_, {}, std::move(send)};
    p.input_hold_s = 0;
    return std::make_unique<Notifier>(std::move(p));
  }

  // A ticket opened by `rule` on switch `sw` port 1/<n>, in one transaction with its timeline
  // event and decision, as the record stage writes them.
  int64_t Open(int n, const std::string& rule = "link_down", const std::string& severity = "major",
               const std::string& sw = "leaf-01") {
    auto tx = store_->Begin();
    EXPECT_TRUE(tx.ok());
    int64_t id = OpenIn(*tx.value(), n, rule, severity, sw);
    tx.value()->Commit();
    return id;
  }
  int64_t OpenIn(Store::Tx& tx, int n, const std::string& rule, const std::string& severity,
                 const std::string& sw) {
    Ticket t;
    const std::string port = "fc6a1c0300000001_" + std::to_string(n);
    const std::string host = "e41d2d0300000" + std::to_string(100 + n) + "_1";
    t.port_a = host;
    t.port_b = port;
    t.link_key = host + "|" + port;
    t.state = ticket_state::kOpen;
    t.rule = rule;
    t.reason = "link went down 3 times in 10m";
    t.explanation = "The link went down 3 times in 10 minutes.";
    t.action_port = port;
    t.severity = severity;
    t.switch_name = sw;
    t.rack = "r03";
    t.host_name = "gpu-" + std::to_string(n);
    t.ends =
        json::array({{{"name", port}, {"label", "1/" + std::to_string(n)}, {"is_switch", true}},
                     {{"name", host}, {"label", "HCA-1"}, {"is_switch", false}}});
    t.id = tx.InsertTicket(t);
    tx.AddDecision({{"time", FormatIsoTime(std::chrono::system_clock::now())},
                    {"entity", t.link_key},
                    {"rules_hash", "h"},
                    {"decision", "disable"},
                    {"rule", rule},
                    {"repair_hint", "reseat or replace the cable"},
                    {"reason", t.reason}},
                   t.id);
    tx.AddEvent(t.id, "opened", kServiceActor, "rule " + rule + ": " + t.reason);
    return t.id;
  }

  void Close(int64_t id) {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    auto t = tx.value()->TicketById(id);
    ASSERT_TRUE(t.has_value());
    t->state = ticket_state::kClosed;
    t->closed_at = 1;
    tx.value()->UpdateTicket(*t);
    tx.value()->Commit();
  }

  // Rounds of the notifier until `done` holds, or `timeout`.
  bool RoundsUntil(Notifier& n, const std::function<bool()>& done, milliseconds timeout) {
    return testing::WaitUntil(
        [&] {
          n.RunOnce();
          return done();
        },
        timeout, milliseconds(100));
  }
  void RoundsFor(Notifier& n, milliseconds d) {
    RoundsUntil(
        n, [] { return false; }, d);
  }

  double Metric(const std::string& name) { return metrics_.Get(name); }

  Config config_;
  std::unique_ptr<Store> store_;
  Metrics metrics_;
  std::function<json()> inputs_;
};

json Body(const HttpRequest& r) { return json::parse(r.body); }

TEST_F(NotifierTest, BurstOfTicketsIsOneMessageAfterGroupWaitAndIsSentOnce) {
  testing::HttpReceiver hook;
  OneReceiver(hook.Url("/hook"));
  auto n = Make();
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    for (int i = 1; i <= 5; ++i) OpenIn(*tx.value(), i, "link_down", "major", "leaf-01");
    tx.value()->Commit();
  }
  n->RunOnce();
  EXPECT_EQ(hook.Requests().size(), 0u) << "sent before group_wait";
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return !hook.Requests().empty(); }, milliseconds(5000)));
  RoundsFor(*n, milliseconds(2500));
  const auto got = hook.Requests();
  ASSERT_EQ(got.size(), 1u);
  const json body = Body(got[0]);
  EXPECT_EQ(got[0].Header("idempotency-key"), body["idempotency_key"]);
  EXPECT_EQ(body["receiver"], "hook");
  EXPECT_EQ(body["fabric"], "fab-t");
  ASSERT_EQ(body["notifications"].size(), 5u);
  const json& first = body["notifications"][0];
  EXPECT_EQ(first["kind"], "ticket_opened");
  EXPECT_EQ(first["severity"], "major");
  EXPECT_EQ(first["at"].get<std::string>().size(), 24u) << first["at"];  // as the schema says
  EXPECT_EQ(body["version"], 1);
  EXPECT_EQ(body["source"], "ufm-remediator");
  const std::string title = first["title"];
  EXPECT_NE(title.find("switch leaf-01 port 1/1 (rack r03), to host gpu-1"), std::string::npos)
      << title;
  EXPECT_NE(title.find("port cut"), std::string::npos) << title;
  const std::string text = first["text"];
  EXPECT_NE(text.find("link went down 3 times in 10m.\n"), std::string::npos) << text;
  EXPECT_NE(text.find("To do: reseat or replace the cable"), std::string::npos) << text;
  EXPECT_EQ(first["labels"]["rule"], "link_down");
  EXPECT_EQ(first["labels"]["switch"], "leaf-01");
  EXPECT_EQ(first["labels"]["port"], "1/1");
  EXPECT_EQ(first["labels"]["rack"], "r03");
  EXPECT_EQ(first["url"],
            "https://remediator.example/tickets/" + first["labels"]["ticket"].get<std::string>());
  EXPECT_EQ(Metric("ufmr_notify_messages_total"), 1);
  EXPECT_EQ(Metric(R"(ufmr_notify_deliveries_total{receiver="hook",result="delivered"})"), 1);
}

TEST_F(NotifierTest, ReceiverDownGetsEveryMessageInOrderWhenItComesBack) {
  testing::HttpReceiver hook(503);
  OneReceiver(hook.Url("/hook"));
  auto n = Make();
  Open(1);
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return hook.Requests().size() >= 2; }, milliseconds(8000)));
  Open(2);                            // a second message, while the receiver is still down
  RoundsFor(*n, milliseconds(2500));  // two group intervals
  std::set<std::string> tried;
  for (const auto& r : hook.Requests()) tried.insert(r.Header("idempotency-key"));
  EXPECT_EQ(tried.size(), 1u) << "the second waits behind the first, not tried meanwhile";
  NotifyOutbox outbox(*store_);
  auto failing = outbox.Failing(10);
  ASSERT_TRUE(failing.ok());
  ASSERT_EQ(failing->size(), 1u) << failing->dump();
  EXPECT_EQ(failing.value()[0]["state"], "pending");
  EXPECT_NE(failing.value()[0]["last_error"].get<std::string>().find("HTTP 503"),
            std::string::npos);
  // The gauges are counted every 5 s.
  EXPECT_TRUE(RoundsUntil(
      *n,
      [&] {
        return Metric(R"(ufmr_notify_deliveries_failing{receiver="hook"})") == 1 &&
               Metric(R"(ufmr_notify_deliveries_pending{receiver="hook"})") == 2;
      },
      milliseconds(8000)))
      << Metric(R"(ufmr_notify_deliveries_failing{receiver="hook"})") << " failing, "
      << Metric(R"(ufmr_notify_deliveries_pending{receiver="hook"})") << " pending";

  hook.set_status(200);
  const size_t before = hook.Requests().size();
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return hook.Requests().size() >= before + 2; }, milliseconds(8000)));
  RoundsFor(*n, milliseconds(1500));
  const auto got = hook.Requests();
  ASSERT_EQ(got.size(), before + 2) << "each message delivered once after the return";
  EXPECT_EQ(got[before].Header("idempotency-key"), *tried.begin()) << "under the key it was tried";
  EXPECT_EQ(Body(got[before])["notifications"][0]["labels"]["port"], "1/1");
  EXPECT_EQ(Body(got[before + 1])["notifications"][0]["labels"]["port"], "1/2");
  auto after = outbox.Failing(10);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->empty()) << after->dump();
  EXPECT_EQ(Metric(R"(ufmr_notify_deliveries_total{receiver="hook",result="delivered"})"), 2);
}

TEST_F(NotifierTest, RestartWithMessagesPendingSendsEachOnce) {
  testing::HttpReceiver hook;
  OneReceiver(hook.Url("/hook"));
  std::vector<std::string> tried;
  {
    auto down = Make([&](const Config::Notify::Receiver&, const Message& m) {
      tried.push_back(m.idempotency_key);
      DeliveryResult r;
      r.retryable = true;
      r.error = "connection refused";
      return r;
    });
    Open(1);
    ASSERT_TRUE(RoundsUntil(
        *down, [&] { return !tried.empty(); }, milliseconds(5000)));
  }         // the service stops with a message pending
  Open(2);  // and an event it never routed
  auto n = Make();
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return hook.Requests().size() >= 2; }, milliseconds(8000)));
  RoundsFor(*n, milliseconds(2500));
  const auto got = hook.Requests();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].Header("idempotency-key"), tried[0]) << "the pending one, under its key";
  EXPECT_NE(got[1].Header("idempotency-key"), tried[0]);
}

TEST_F(NotifierTest, RefusalIsNotRetriedAndIsListedAsFailing) {
  testing::HttpReceiver hook(400);
  OneReceiver(hook.Url("/hook"));
  auto n = Make();
  Open(1);
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return !hook.Requests().empty(); }, milliseconds(5000)));
  RoundsFor(*n, milliseconds(3000));
  EXPECT_EQ(hook.Requests().size(), 1u);
  auto failing = NotifyOutbox(*store_).Failing(10);
  ASSERT_TRUE(failing.ok());
  ASSERT_EQ(failing->size(), 1u);
  EXPECT_EQ(failing.value()[0]["state"], "refused");
  EXPECT_EQ(failing.value()[0]["last_status"], 400);
  EXPECT_TRUE(failing.value()[0]["next_try_at"].is_null());
  EXPECT_EQ(Metric(R"(ufmr_notify_deliveries_total{receiver="hook",result="refused"})"), 1);
}

TEST_F(NotifierTest, AMessageNotTakenInTimeOrWhoseReceiverLeftIsExpired) {
  testing::HttpReceiver hook(503);
  OneReceiver(hook.Url("/hook"));
  config_.notify.give_up_after_s = 2;
  auto n = Make();
  Open(1);
  NotifyOutbox outbox(*store_);
  auto ended = [&](const std::string& state) {
    auto f = outbox.Failing(10);
    return f.ok() && !f->empty() && f.value()[0]["state"] == state;
  };
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return ended("expired"); }, milliseconds(8000)));
  const size_t tries = hook.Requests().size();
  EXPECT_GE(tries, 1u);
  RoundsFor(*n, milliseconds(1500));
  EXPECT_EQ(hook.Requests().size(), tries) << "not tried once expired";
  EXPECT_EQ(outbox.Failing(10).value()[0]["last_error"],
            "not delivered within notify.give_up_after_s");
  EXPECT_EQ(Metric(R"(ufmr_notify_deliveries_total{receiver="hook",result="expired"})"), 1);

  // A message to a receiver the config no longer names is expired, never sent.
  config_.notify.give_up_after_s = 3600;
  Open(2);
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return hook.Requests().size() > tries; }, milliseconds(5000)));
  config_.notify.receivers[0].name = "renamed";
  config_.notify.route.receiver = "renamed";
  auto after = Make();
  const size_t sent = hook.Requests().size();
  ASSERT_TRUE(RoundsUntil(
      *after,
      [&] {
        auto f = outbox.Failing(10);
        return f.ok() && f->size() == 2 && f.value()[0]["state"] == "expired";
      },
      milliseconds(8000)));
  EXPECT_EQ(outbox.Failing(10).value()[0]["last_error"],
            "no receiver 'hook' in the config any more");
  EXPECT_EQ(hook.Requests().size(), sent);
}

TEST_F(NotifierTest, SilencedTicketIsToldToNobody) {
  testing::HttpReceiver hook;
  OneReceiver(hook.Url("/hook"));
  Silence s;
  s.switch_ = "leaf-0[12]";
  s.reason = "cabling work";
  s.created_at = std::chrono::system_clock::now();
  s.expires_at = s.created_at + std::chrono::hours(1);
  ASSERT_TRUE(store_->AddSilence(s).ok());
  auto n = Make();
  Open(1, "link_down", "major", "leaf-01");  // silenced
  Open(2, "link_down", "major", "leaf-09");  // not
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return !hook.Requests().empty(); }, milliseconds(5000)));
  RoundsFor(*n, milliseconds(1500));
  ASSERT_EQ(hook.Requests().size(), 1u);
  const json body = Body(hook.Requests()[0]);
  ASSERT_EQ(body["notifications"].size(), 1u);
  EXPECT_EQ(body["notifications"][0]["labels"]["switch"], "leaf-09");
  EXPECT_EQ(Metric("ufmr_notify_silenced_total"), 1);
}

TEST_F(NotifierTest, RoutesGiveEachReceiverItsShare) {
  testing::HttpReceiver pager, all;
  Config::Notify::Receiver a, b;
  a.name = "pager";
  a.type = "webhook";
  a.url = pager.Url("/p");
  b.name = "all";
  b.type = "webhook";
  b.url = all.Url("/a");
  config_.notify.receivers = {a, b};
  Config::Notify::Route root;
  Fast(&root);
  Config::Notify::Route critical = root;
  critical.receiver = "pager";
  critical.match = {{"severity", "critical"}};
  critical.continue_matching = true;
  Config::Notify::Route rest = root;
  rest.receiver = "all";
  rest.group_by = {"rule"};
  root.routes = {critical, rest};
  config_.notify.route = root;
  auto n = Make();
  Open(1, "link_down", "critical");
  Open(2, "symbol_errors", "minor");
  Open(3, "symbol_errors", "minor");
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return pager.Requests().size() >= 1 && all.Requests().size() >= 2; },
      milliseconds(5000)));
  RoundsFor(*n, milliseconds(2000));
  ASSERT_EQ(pager.Requests().size(), 1u);
  EXPECT_EQ(Body(pager.Requests()[0])["notifications"].size(), 1u);
  EXPECT_EQ(Body(pager.Requests()[0])["notifications"][0]["labels"]["rule"], "link_down");
  ASSERT_EQ(all.Requests().size(), 2u) << "one message per rule";
  std::multiset<size_t> sizes;
  for (const auto& r : all.Requests()) sizes.insert(Body(r)["notifications"].size());
  EXPECT_EQ(sizes, (std::multiset<size_t>{1, 2}));
}

TEST_F(NotifierTest, UnresolvedIsRepeatedUntilItsTicketCloses) {
  testing::HttpReceiver hook;
  OneReceiver(hook.Url("/hook"));
  config_.notify.route.repeat_interval_s = 1;
  auto n = Make();
  const int64_t id = Open(1);
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return hook.Requests().size() >= 2; }, milliseconds(6000)));
  const json reminder = Body(hook.Requests()[1]);
  ASSERT_EQ(reminder["notifications"].size(), 1u);
  EXPECT_EQ(reminder["notifications"][0]["title"].get<std::string>().rfind("Still unresolved: ", 0),
            0u)
      << reminder;
  EXPECT_NE(reminder["idempotency_key"], Body(hook.Requests()[0])["idempotency_key"]);
  Close(id);
  RoundsFor(*n, milliseconds(300));
  const size_t after_close = hook.Requests().size();
  RoundsFor(*n, milliseconds(2500));
  EXPECT_EQ(hook.Requests().size(), after_close) << "no reminder once closed";
}

TEST_F(NotifierTest, InputFailingAndHealthyAgainIsToldOnceEach) {
  testing::HttpReceiver hook;
  OneReceiver(hook.Url("/hook"));
  std::string state = "failing";
  inputs_ = [&] {
    // As InputHealth::ToJson says it: an input stale with no error yet has a null last_error.
    return json::array({{{"name", "telemetry"}, {"state", state}, {"last_error", "HTTP 502"}},
                        {{"name", "inventory"}, {"state", "stale"}, {"last_error", nullptr}},
                        {{"name", "event_log"}, {"state", "off"}}});
  };
  auto n = Make();
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return !hook.Requests().empty(); }, milliseconds(5000)));
  RoundsFor(*n, milliseconds(1500));
  ASSERT_EQ(hook.Requests().size(), 1u);
  json first = Body(hook.Requests()[0])["notifications"];
  ASSERT_EQ(first.size(), 2u) << first.dump();
  EXPECT_EQ(first[0]["kind"], "input_failing");
  EXPECT_EQ(first[0]["labels"]["input"], "telemetry");
  EXPECT_NE(first[0]["text"].get<std::string>().find("HTTP 502"), std::string::npos);
  EXPECT_EQ(first[1]["kind"], "input_stale");
  EXPECT_EQ(first[1]["severity"], "warning");
  EXPECT_EQ(first[1]["labels"]["input"], "inventory");
  state = "ok";
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return hook.Requests().size() >= 2; }, milliseconds(5000)));
  RoundsFor(*n, milliseconds(1500));
  ASSERT_EQ(hook.Requests().size(), 2u);
  const json second = Body(hook.Requests()[1])["notifications"];
  ASSERT_EQ(second.size(), 1u) << second.dump() << " (the inventory is still stale)";
  EXPECT_EQ(second[0]["kind"], "input_ok");
  EXPECT_EQ(second[0]["labels"]["input"], "telemetry");
}

TEST_F(NotifierTest, OldMessagesAreForgottenButUnresolvedOnesKept) {
  testing::HttpReceiver hook;
  OneReceiver(hook.Url("/hook"));
  auto n = Make();
  const int64_t closed = Open(1);
  const int64_t open = Open(2);  // stays open: unresolved
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return !hook.Requests().empty(); }, milliseconds(5000)));
  Close(closed);
  // Forty days pass.
  ASSERT_TRUE(store_
                  ->Run([](pqxx::work& w) {
                    w.exec("UPDATE notify_events SET at = at - interval '40 days'");
                    w.exec(
                        "UPDATE notify_deliveries SET created_at = created_at - interval "
                        "'40 days'");
                    return Status::Ok();
                  })
                  .ok());
  NotifyOutbox outbox(*store_);
  auto removed = outbox.Prune(30);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(removed.value(), 1) << "the closed ticket's event; its message carries the other";
  int64_t events = 0, deliveries = 0;
  ASSERT_TRUE(store_
                  ->Run([&](pqxx::work& w) {
                    events = w.exec("SELECT count(*) FROM notify_events")[0][0].as<int64_t>();
                    deliveries =
                        w.exec("SELECT count(*) FROM notify_deliveries")[0][0].as<int64_t>();
                    return Status::Ok();
                  })
                  .ok());
  EXPECT_EQ(events, 1);
  EXPECT_EQ(deliveries, 1);
  Close(open);  // the other ticket closes too
  removed = outbox.Prune(30);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(removed.value(), 2) << "its event, then the message nothing refers to";
}

// The mailbox: scripts/mail-sink.py with STARTTLS (a throwaway certificate) and AUTH.
class MailSink {
 public:
  explicit MailSink(const std::string& dir) : dir_(dir) {
    testing::RunCommand({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                         dir + "/key.pem", "-out", dir + "/cert.pem", "-days", "1", "-subj",
                         "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"});
    process_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{"/usr/bin/python3", testing::SourceDir() + "/scripts/mail-sink.py",
                                 "--dir", dir + "/box", "--port-file", dir + "/port", "--tls-cert",
                                 dir + "/cert.pem", "--tls-key", dir + "/key.pem", "--auth",
                                 "ops:s3cret"},
        dir + "/sink.log");
    EXPECT_TRUE(testing::WaitUntil([&] { return std::ifstream(dir + "/port").good(); },
                                   milliseconds(10000)))
        << "the mail sink did not start";
    port_ = testing::ReadFile(dir + "/port");
  }
  std::string Url() const { return "smtp://127.0.0.1:" + port_; }
  std::string cert() const { return dir_ + "/cert.pem"; }
  std::vector<json> Mails() const {
    std::vector<json> out;
    std::ifstream in(dir_ + "/box/mails.jsonl");
    for (std::string line; std::getline(in, line);) {
      json mail = json::parse(line, nullptr, false);  // a line half written is read next time
      if (!mail.is_discarded()) out.push_back(std::move(mail));
    }
    return out;
  }
  std::string Log() const { return process_->Log(); }

 private:
  std::string dir_, port_;
  std::unique_ptr<testing::ChildProcess> process_;
};

TEST_F(NotifierTest, EmailArrivesOverStartTlsWithAuthentication) {
  const std::string dir = testing::MakeTempDir("mail");
  MailSink sink(dir);
  OneReceiver(sink.Url(), "email");
  Config::Notify::Receiver& r = config_.notify.receivers[0];
  r.from = "ufm-remediator@example.com";
  r.to = {"dc-ops@example.com", "netops@example.com"};
  r.ca_bundle = sink.cert();
  r.username = "ops";
  r.password = "s3cret";
  auto n = Make();
  Open(1);
  Open(2);
  ASSERT_TRUE(RoundsUntil(
      *n, [&] { return !sink.Mails().empty(); }, milliseconds(8000)))
      << sink.Log();
  RoundsFor(*n, milliseconds(1500));
  const auto mails = sink.Mails();
  ASSERT_EQ(mails.size(), 1u);
  const json& m = mails[0];
  EXPECT_EQ(m["tls"], true);
  EXPECT_EQ(m["auth_user"], "ops");
  EXPECT_EQ(m["mail_from"], "ufm-remediator@example.com");
  EXPECT_EQ(m["rcpt_tos"], json::array({"dc-ops@example.com", "netops@example.com"}));
  const std::string data = m["data"];
  EXPECT_NE(data.find("Subject: [ufm-remediator] 2 notifications: Link fault on switch leaf-01"),
            std::string::npos)
      << data;
  EXPECT_NE(data.find("To do: reseat or replace the cable"), std::string::npos) << data;
  EXPECT_NE(data.find("https://remediator.example/tickets/"), std::string::npos) << data;
  auto delivered = NotifyOutbox(*store_).Failing(10);
  ASSERT_TRUE(delivered.ok());
  EXPECT_TRUE(delivered->empty());
  // The Message-ID is the delivery's idempotency key.
  const size_t at = data.find("Message-ID: <");
  ASSERT_NE(at, std::string::npos);
  const std::string id = data.substr(at + 13, data.find('@', at) - at - 13);
  EXPECT_EQ(id.size(), 36u) << id;

  // Credentials the server refuses: not retried.
  r.password = "wrong";
  auto refused = Make();
  Open(3);
  ASSERT_TRUE(RoundsUntil(
      *refused,
      [&] {
        auto f = NotifyOutbox(*store_).Failing(10);
        return f.ok() && !f->empty();
      },
      milliseconds(8000)));
  auto f = NotifyOutbox(*store_).Failing(10);
  EXPECT_EQ(f.value()[0]["state"], "refused") << f->dump();
  EXPECT_EQ(sink.Mails().size(), 1u);
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace ufmr
