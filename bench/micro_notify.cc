#include "micro_notify.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "notify/notifier.h"
#include "store/store.h"

namespace ufmr::bench {

namespace {

// `n` tickets opened in one transaction, each with its decision and timeline event, on links
// numbered from `first`.
bool OpenTickets(Store& store, int64_t first, int n) {
  auto txr = store.Begin();
  if (!txr.ok()) return false;
  Store::Tx& tx = *txr.value();
  for (int64_t i = first; i < first + n; ++i) {
    Ticket t;
    const std::string leaf = "ib-leaf-" + std::to_string(i / 32 + 1);
    t.port_a = "fc6a1c03" + std::to_string(10000000 + i / 32) + "_" + std::to_string(i % 32 + 1);
    t.port_b = "e41d2d03" + std::to_string(10000000 + i) + "_1";
    t.link_key = t.port_b + "|" + t.port_a;
    t.state = ticket_state::kOpen;
    t.rule = "link_down";
    t.reason = "Link went down and stayed down (not cleared within 30s)";
    t.action_port = t.port_a;
    t.switch_name = leaf;
    t.rack = "rack-" + std::to_string(i / 128 + 1);
    t.host_name = "gpu-node-" + std::to_string(i + 1);
    t.ends = nlohmann::json::array(
        {{{"name", t.port_a}, {"label", "1/" + std::to_string(i % 32 + 1)}, {"is_switch", true}}});
    t.id = tx.InsertTicket(t);
    tx.AddDecision({{"time", FormatIsoTime(FromEpochSeconds(1.7e9))},
                    {"rule", t.rule},
                    {"decision", "disable"},
                    {"entity", t.link_key},
                    {"reason", t.reason},
                    {"rules_hash", "bench"},
                    {"repair_hint", "reseat or replace the cable"}},
                   t.id);
    tx.AddEvent(t.id, "opened", kServiceActor, "rule link_down: " + t.reason);
  }
  tx.Commit();
  return true;
}

// A storm of `events` new tickets: from their commit until one message holding all of them has
// been handed to the receiver (group_wait 0), through the notifier's rounds.
void BM_NotifyStorm(benchmark::State& state) {
  const char* url = std::getenv("UFMR_BENCH_DB_URL");
  if (!url || !*url) {
    state.SkipWithError("UFMR_BENCH_DB_URL is not set");
    return;
  }
  const int events = static_cast<int>(state.range(0));
  int64_t next = 0;
  size_t largest = 0;
  for (auto _ : state) {
    state.PauseTiming();
    // A fabric of its own per storm: its groups and messages start empty.
    const std::string fabric =
        "micro-notify-" + std::to_string(::getpid()) + "-" + std::to_string(next) + "-" +
        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    auto opened = Store::Open(url, fabric);
    if (!opened.ok() || !OpenTickets(*opened.value(), next, events)) {
      state.SkipWithError("cannot write the storm's tickets");
      return;
    }
    next += events;
    Config config;
    config.fabric = fabric;
    Config::Notify::Receiver r;
    r.name = "hook";
    r.type = "webhook";
    r.url = "http://127.0.0.1:9/";
    config.notify.receivers = {r};
    config.notify.route.receiver = "hook";
    config.notify.route.group_wait_s = 0;
    Metrics metrics;
    size_t delivered = 0;
    Notifier notifier({config,
                       *opened.value(),
                       metrics,
                       {},
                       {},
                       [&](const Config::Notify::Receiver&, const Message& m) {
                         delivered += m.notifications.size();
                         largest = std::max(largest, m.notifications.size());
                         DeliveryResult ok;
                         ok.ok = true;
                         ok.http_status = 200;
                         return ok;
                       }});
    state.ResumeTiming();
    for (int round = 0; delivered < static_cast<size_t>(events) && round < 1000; ++round) {
      notifier.RunOnce();
    }
    if (delivered != static_cast<size_t>(events)) {
      state.SkipWithError("not every notification was handed to the receiver");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * events);
  state.counters["largest_message"] = static_cast<double>(largest);
}

}  // namespace

void RegisterNotifyBenchmarks() {
  // Wall time: most of it is waiting for PostgreSQL.
  benchmark::RegisterBenchmark("BM_NotifyStorm", BM_NotifyStorm)
      ->ArgName("tickets")
      ->Arg(1'000)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace ufmr::bench
