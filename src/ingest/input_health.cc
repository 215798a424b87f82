#include "ingest/input_health.h"

#include <algorithm>

namespace ufmr {

void InputHealth::Configure(const std::string& name, bool enabled, double interval_s) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!inputs_.count(name)) order_.push_back(name);
  Input& in = inputs_[name];
  in.enabled = enabled;
  in.interval_s = interval_s;
}

void InputHealth::Ok(const std::string& name, TimePoint at, const std::string& detail) {
  if (metrics_)
    metrics_->Add(MetricName("ufmr_input_reads_total", {{"input", name}, {"result", "ok"}}));
  std::lock_guard<std::mutex> lock(mu_);
  if (!inputs_.count(name)) order_.push_back(name);
  Input& in = inputs_[name];
  in.last_ok = at;
  in.failures = 0;
  in.detail = detail;
}

void InputHealth::Failed(const std::string& name, TimePoint at, const std::string& error) {
  if (metrics_) {
    metrics_->Add(MetricName("ufmr_input_reads_total", {{"input", name}, {"result", "error"}}));
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!inputs_.count(name)) order_.push_back(name);
  Input& in = inputs_[name];
  in.last_error = at;
  in.error = error;
  ++in.failures;
}

std::string InputHealth::StateOf(const Input& in, TimePoint now) const {
  if (!in.enabled) return "off";
  if (in.last_error && (!in.last_ok || *in.last_error > *in.last_ok)) return "failing";
  if (!in.last_ok) return "waiting";
  double since = Seconds(now - *in.last_ok).count();
  // Three intervals, and at least a minute: one slow poll is not an outage.
  return since > std::max(3 * in.interval_s, 60.0) ? "stale" : "ok";
}

std::string InputHealth::State(const std::string& name, TimePoint now) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = inputs_.find(name);
  return it == inputs_.end() ? "off" : StateOf(it->second, now);
}

nlohmann::json InputHealth::ToJson(TimePoint now) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto when = [](const std::optional<TimePoint>& t) -> nlohmann::json {
    if (!t) return nullptr;
    return FormatIsoTime(*t);
  };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& name : order_) {
    const Input& in = inputs_.at(name);
    out.push_back(
        {{"name", name},
         {"enabled", in.enabled},
         {"state", StateOf(in, now)},
         {"last_ok_at", when(in.last_ok)},
         {"last_error", in.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(in.error)},
         {"last_error_at", when(in.last_error)},
         {"failures", in.failures},
         {"interval_s", in.interval_s},
         {"detail", in.detail}});
  }
  return out;
}

}  // namespace ufmr
