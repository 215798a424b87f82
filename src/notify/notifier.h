// Notifier: tells people what the service does, on its own thread, on the leader only. Each round
// it (1) writes an event when an input has been stale or failing for input_hold_s, and when it is
// healthy again; (2) routes the events not yet routed: each put in words (NoticeOf), dropped if a
// silence covers it, else joined to the groups the route tree gives; (3) writes a message for
// each group that is due (NotifyOutbox::FlushDue); (4) sends the messages whose time has come,
// oldest first, each receiver's in order: a failure worth retrying is tried again with backoff
// (5 s doubling up to notify.retry_max_s), across restarts, until notify.give_up_after_s; a
// receiver that fails is not tried again in the same round. Everything it does is in PostgreSQL
// first: a restart, a receiver's outage or a change of leader delays messages, never loses them.
// Messages and events older than 30 days are forgotten, once a day (unresolved ones are kept).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "base/metrics.h"
#include "config/config.h"
#include "notify/delivery.h"
#include "notify/outbox.h"
#include "notify/route.h"

namespace ufmr {

class Store;

class Notifier {
 public:
  struct Parts {
    const Config& config;  // fabric and notify
    Store& store;
    Metrics& metrics;
    // The inputs' health (InputHealth::ToJson); empty: not watched.
    std::function<nlohmann::json()> inputs;
    // Whether this instance acts (the leader); empty: always.
    std::function<bool()> may_act;
    // How to send one message (Deliver; tests may count or fail sends).
    std::function<DeliveryResult(const Config::Notify::Receiver&, const Message&)> send;
    double input_hold_s = 60;  // an input stale or failing this long is told of
    double round_s = 1;        // between rounds
  };
  explicit Notifier(Parts parts);
  ~Notifier();  // stops the thread
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  // Rounds on a thread of its own until Stop (or destruction).
  void Start();
  void Stop();
  // One round (the thread's; tests call it directly).
  void RunOnce();

 private:
  void Stage(const char* name, const std::function<void()>& fn);  // logs what it throws
  void WatchInputs();
  void RouteNew();
  bool RouteBatch(size_t limit);  // true when it routed `limit` events (there may be more)
  void SendDue();
  // Sends one; false when the receiver failed (its later messages wait for the next round).
  bool SendOne(const NotifyOutbox::Delivery& d);
  void CountDeliveries();
  // Once a day (and at the first round): what is older than kKeepDays goes.
  void PruneDaily();
  static constexpr int kKeepDays = 30;

  Parts p_;
  NotifyOutbox outbox_;
  RouteTree routes_;
  std::map<std::string, Config::Notify::Receiver> receivers_;  // a copy, by name
  // Inputs: the bad state each is in and since when (not yet told); those told of (open).
  std::map<std::string, std::pair<std::string, double>> bad_since_;
  std::map<std::string, std::string> told_;
  bool told_loaded_ = false;
  double last_count_ = 0;
  double last_prune_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ufmr
