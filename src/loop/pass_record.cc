#include "loop/pass_record.h"

#include <spdlog/spdlog.h>

#include "base/crash_point.h"

namespace ufmr {

namespace {
constexpr const char* kService = "service";
}  // namespace

PassRecord::Outcome PassRecord::Commit(const std::vector<CursorWrite>& cursors, bool reconciled,
                                       RecordedFindings* out) {
  if (findings_.empty() && cursors.empty() && alerts_.empty() && !clear_rules_alert_) {
    return Outcome::kNothing;
  }
  if (!MayDecide(reconciled)) return Outcome::kWaiting;
  auto tx = store_.Begin();
  if (!tx.ok()) {
    spdlog::error("cannot record {} findings: {}; no action taken, will retry", findings_.size(),
                  tx.status().ToString());
    metrics_.Add("ufmr_store_errors_total");
    return Outcome::kFailed;
  }
  try {
    Write(*tx.value(), cursors, out);
  } catch (const std::exception& e) {
    spdlog::error("cannot record {} findings: {}; no action taken, will retry", findings_.size(),
                  e.what());
    metrics_.Add("ufmr_store_errors_total");
    return Outcome::kFailed;
  }
  if (!findings_.empty()) {
    CrashPoint("decided", "disable");
    CrashPoint("decided", "isolate");
  }
  findings_.clear();
  alerts_.clear();
  clear_rules_alert_ = false;
  return Outcome::kCommitted;
}

bool PassRecord::MayDecide(bool reconciled) {
  if (findings_.empty()) return true;
  if (!reconciled) {
    // Not knowing which ports people isolated could act on one of theirs: wait.
    spdlog::warn("{} findings wait for a first reconciliation with UFM", findings_.size());
    return false;
  }
  Status silences = decider_.LoadSilences(store_);
  if (!silences.ok()) {
    // Deciding without the silences could act inside a maintenance window: wait.
    spdlog::error("cannot read silences: {}; {} findings wait", silences.ToString(),
                  findings_.size());
    metrics_.Add("ufmr_store_errors_total");
    return false;
  }
  return true;
}

void PassRecord::Write(Store::Tx& tx, const std::vector<CursorWrite>& cursors,
                       RecordedFindings* out) {
  for (const auto& f : findings_) recorder_.Record(tx, f, out);
  if (clear_rules_alert_) tx.ClearAlertsOfKind("rules_reload", kService);
  for (const auto& a : alerts_) tx.AddAlert(a.kind, a.message, a.details);
  for (const auto& c : cursors) tx.SetCursor(c.source, c.position, c.state);
  tx.Commit();
}

}  // namespace ufmr
