#include "notify/notifier.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <utility>

#include "decide/silence.h"
#include "store/store.h"

namespace ufmr {

namespace {

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What a silence matches a ticket's notification against: its ports, switch and host.
SilenceSubject SubjectOf(const Ticket& t) {
  SilenceSubject s;
  for (const std::string& p : {t.port_a, t.port_b}) {
    if (!p.empty()) s.ports.push_back(p);
  }
  if (!t.switch_name.empty()) s.switches.push_back(t.switch_name);
  if (!t.host_name.empty()) s.hosts.push_back(t.host_name);
  return s;
}

// The wait before the next try of a message tried `attempts` times: 5 s doubling, capped.
double Backoff(int attempts, double max_s) {
  return std::min(max_s, 5.0 * std::pow(2.0, std::min(attempts, 20) - 1));
}

// A string member of an input's health, "" when absent or null (no error yet).
std::string Text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A delivery's outcome not recorded is sent again (at least once): worth a warning, no more.
void Record(const Status& s) {
  if (!s.ok()) spdlog::warn("notify: cannot record a delivery's outcome: {}", s.message());
}

}  // namespace

Notifier::Notifier(Parts parts)
    : p_(std::move(parts)), outbox_(p_.store), routes_(p_.config.notify.route) {
  for (const auto& r : p_.config.notify.receivers) receivers_[r.name] = r;
  if (!p_.send) p_.send = Deliver;
}

Notifier::~Notifier() { Stop(); }

void Notifier::Start() {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      try {
        RunOnce();
      } catch (const std::exception& e) {  // a round that throws must not end the service
        spdlog::error("notify: {}", e.what());
      }
      lock.lock();
      cv_.wait_for(lock, std::chrono::milliseconds(static_cast<int64_t>(p_.round_s * 1000)),
                   [this] { return stop_; });
    }
  });
}

void Notifier::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Notifier::RunOnce() {
  if (p_.may_act && !p_.may_act()) {
    told_loaded_ = false;  // read again on taking over
    return;
  }
  // Each stage on its own: one that throws must not keep the others from their work.
  Stage("inputs", [this] { WatchInputs(); });
  Stage("routing", [this] { RouteNew(); });
  Stage("grouping", [this] {
    if (auto written = outbox_.FlushDue(); written.ok() && written.value() > 0) {
      p_.metrics.Add("ufmr_notify_messages_total", written.value());
    }
  });
  Stage("sending", [this] { SendDue(); });
  Stage("counting", [this] { CountDeliveries(); });
  Stage("pruning", [this] { PruneDaily(); });
}

void Notifier::Stage(const char* name, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    spdlog::error("notify: {}: {}", name, e.what());
  }
}

void Notifier::PruneDaily() {
  const double now = SteadySeconds();
  if (last_prune_ != 0 && now - last_prune_ < 86400) return;
  last_prune_ = now;
  auto removed = outbox_.Prune(kKeepDays);
  if (removed.ok() && removed.value() > 0) {
    spdlog::info("notify: forgot {} messages and events older than {} days", removed.value(),
                 kKeepDays);
  }
}

void Notifier::WatchInputs() {
  if (!p_.inputs) return;
  if (!told_loaded_) {
    auto open = outbox_.OpenInputEvents();
    if (!open.ok()) return;
    told_ = std::move(open.value());
    told_loaded_ = true;
  }
  const double now = SteadySeconds();
  for (const auto& in : p_.inputs()) {
    const std::string name = Text(in, "name");
    const std::string state = Text(in, "state");
    if (state == "stale" || state == "failing") {
      const std::string kind = "input_" + state;
      auto& since = bad_since_[name];
      if (since.first != kind) since = {kind, now};
      auto told = told_.find(name);
      if ((told == told_.end() || told->second != kind) && now - since.second >= p_.input_hold_s &&
          outbox_.AddInputEvent(kind, name, Text(in, "last_error")).ok()) {
        told_[name] = kind;
      }
    } else if (state == "ok") {
      bad_since_.erase(name);
      if (told_.count(name) && outbox_.AddInputEvent("input_ok", name, "").ok()) told_.erase(name);
    }
  }
}

void Notifier::RouteNew() {
  // A storm's events all in this round (in batches), so they are grouped before any is sent.
  for (int batch = 0; batch < 20 && RouteBatch(500); ++batch) {
  }
}

bool Notifier::RouteBatch(size_t limit) {
  auto events = outbox_.Unrouted(static_cast<int>(limit));
  if (!events.ok() || events->empty()) return false;
  auto active = p_.store.ActiveSilences();
  if (!active.ok()) return false;  // routed next round: a silence must not be missed
  const SilenceSet silences(std::move(active.value()));
  const TimePoint now = std::chrono::system_clock::now();
  std::vector<NotifyOutbox::Routing> routings;
  for (const NotifyOutbox::Event& e : events.value()) {
    NotifyOutbox::Routing r;
    r.event_id = e.id;
    r.notice = NoticeOf(e.source, p_.config.notify.dashboard_url);
    r.resolves = NoticeKindResolves(r.notice.kind);
    if (e.source.ticket) {
      if (const Silence* s = silences.Match(SubjectOf(*e.source.ticket), now))
        r.silenced_by = s->id;
    }
    if (!r.silenced_by) r.matches = routes_.Match(r.notice.labels);
    p_.metrics.Add(MetricName("ufmr_notify_events_total", {{"kind", r.notice.kind}}));
    if (r.silenced_by) p_.metrics.Add("ufmr_notify_silenced_total");
    routings.push_back(std::move(r));
  }
  if (Status s = outbox_.Route(routings); !s.ok()) {
    spdlog::warn("notify: {}", s.message());
    return false;
  }
  return events->size() == limit;  // perhaps more
}

void Notifier::SendDue() {
  auto due = outbox_.Due(100);
  if (!due.ok()) return;
  std::set<std::string> failed;  // receivers that failed this round
  for (const NotifyOutbox::Delivery& d : due.value()) {
    if (failed.count(d.receiver)) continue;
    if (!SendOne(d)) failed.insert(d.receiver);
  }
}

bool Notifier::SendOne(const NotifyOutbox::Delivery& d) {
  auto count = [&](const char* result) {
    p_.metrics.Add(
        MetricName("ufmr_notify_deliveries_total", {{"receiver", d.receiver}, {"result", result}}));
  };
  auto it = receivers_.find(d.receiver);
  if (it == receivers_.end()) {
    Record(outbox_.Ended(d.id, "expired", 0,
                         "no receiver '" + d.receiver + "' in the config any more"));
    count("expired");
    return true;
  }
  if (d.age_s > p_.config.notify.give_up_after_s) {
    Record(outbox_.Ended(d.id, "expired", 0, "not delivered within notify.give_up_after_s"));
    spdlog::error("notify: message {} to {} given up after {} tries", d.id, d.receiver, d.attempts);
    count("expired");
    return true;
  }
  const DeliveryResult r = p_.send(it->second, d.message);
  if (r.ok) {
    Record(outbox_.Delivered(d.id, r.http_status));
    count("delivered");
    return true;
  }
  if (!r.retryable) {
    Record(outbox_.Ended(d.id, "refused", r.http_status, r.error));
    spdlog::error("notify: {} refused message {}: {}", d.receiver, d.id, r.error);
    count("refused");
    return true;
  }
  const double wait = Backoff(d.attempts + 1, p_.config.notify.retry_max_s);
  Record(outbox_.Failed(d.id, r.http_status, r.error, wait));
  spdlog::warn("notify: message {} to {} failed (try {}): {}; next try in {:.0f} s", d.id,
               d.receiver, d.attempts + 1, r.error, wait);
  count("failed");
  return false;
}

void Notifier::CountDeliveries() {
  const double now = SteadySeconds();
  if (now - last_count_ < 5) return;
  auto counts = outbox_.Counts();
  if (!counts.ok()) return;
  last_count_ = now;
  for (const auto& entry : receivers_) {
    const std::string& name = entry.first;
    auto get = [&](const char* state) {
      auto it = counts->find({name, state});
      return it == counts->end() ? 0.0 : static_cast<double>(it->second);
    };
    p_.metrics.Set(MetricName("ufmr_notify_deliveries_failing", {{"receiver", name}}),
                   get("pending_failing"));
    p_.metrics.Set(MetricName("ufmr_notify_deliveries_pending", {{"receiver", name}}),
                   get("pending") + get("pending_failing"));
    p_.metrics.Set(MetricName("ufmr_notify_deliveries_undelivered", {{"receiver", name}}),
                   get("refused") + get("expired"));
  }
}

}  // namespace ufmr
