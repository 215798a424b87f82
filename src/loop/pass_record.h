// PassRecord: what one pass records, in one transaction: its findings (each decided and recorded by
// the FindingRecorder: tickets, decisions, port-action intents), its alerts and the cursors of its
// inputs. Nothing is done to the fabric that is not recorded first: a finding whose transaction
// fails stays queued (no intent exists) and is recorded at a later pass, and no input cursor
// moves past it. Findings also wait for a first reconciliation with UFM (which ports people
// isolated) and while the silences cannot be read. Pipeline thread only; not thread-safe.
#pragma once

#include <vector>

#include "act/finding_recorder.h"
#include "act/live_decider.h"
#include "base/metrics.h"
#include "loop/cursor_write.h"
#include "loop/pending_alert.h"
#include "rules/finding.h"
#include "store/store.h"

namespace ufmr {

class PassRecord {
 public:
  PassRecord(Store& store, Metrics& metrics, LiveDecider& decider, FindingRecorder& recorder)
      : store_(store), metrics_(metrics), decider_(decider), recorder_(recorder) {}

  // Findings not yet recorded: the rules add to them.
  std::vector<Finding>* findings() { return &findings_; }
  const std::vector<Finding>& unrecorded() const { return findings_; }
  // Alerts to record with the pass: the sources add to them.
  std::vector<PendingAlert>* alerts() { return &alerts_; }
  // The last failed rules reload's alert is cleared with the pass.
  void ClearRulesAlert() { clear_rules_alert_ = true; }

  enum class Outcome { kNothing, kWaiting, kFailed, kCommitted };
  // Records what is queued, with `cursors`. `reconciled`: UFM has been reconciled since start.
  // What recording the findings leaves for other stages goes to `out`, committed or not (the
  // links taken out were forgotten by the rules all the same).
  Outcome Commit(const std::vector<CursorWrite>& cursors, bool reconciled, RecordedFindings* out);

 private:
  // Whether the findings may be decided now; false logs why they wait.
  bool MayDecide(bool reconciled);
  void Write(Store::Tx& tx, const std::vector<CursorWrite>& cursors, RecordedFindings* out);

  Store& store_;
  Metrics& metrics_;
  LiveDecider& decider_;
  FindingRecorder& recorder_;
  std::vector<Finding> findings_;
  std::vector<PendingAlert> alerts_;
  bool clear_rules_alert_ = false;
};

}  // namespace ufmr
