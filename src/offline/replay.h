// Replay: the whole decision path (rules engine, correlation and inhibition, silences, guards)
// over recorded data, acting on nothing, with the recorded timestamps as the clock. Engineers
// backtest a rule change on last month's UFM event log and telemetry snapshots, optionally with
// a saved /resources/ports response for names, peers and topology. Ports the ports file lacks
// are learned from the events' own text. At the end of the recording, findings still held by
// `for` are judged as if nothing followed. Single-threaded; one Replay per run.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "decide/decision.h"
#include "decide/guards/decider.h"
#include "ingest/event_subjects.h"
#include "ingest/observation.h"
#include "offline/event_log_reader.h"
#include "rules/rules.h"
#include "telemetry/telemetry_snapshot.h"

namespace ufmr {

struct ReplayOptions {
  std::string event_log;               // UFM event.log (may be empty if telemetry is given)
  std::vector<std::string> telemetry;  // CSV snapshot files, or folders of them (*.csv)
  std::string ports_file;              // a saved GET /resources/ports response
  std::string silences_file;           // optional: a JSON list of silences (see Silence)
  int utc_offset_s = 0;                // the UFM server's zone: event log times are local
  // Threads that parse the event log (the rules run on the caller's, in order): 1, none.
  int jobs = 1;
  // Called about once a second while the event log is read (replay --progress).
  std::function<void(const ReadProgress&)> progress;
  // The service's default guards; replay needs no system GUIDs.
  DecisionPolicy policy = [] {
    DecisionPolicy p;
    p.require_system_guid = false;
    return p;
  }();
};

struct ReplayStats {
  size_t events = 0;             // event-log entries read
  size_t bad_entries = 0;        // entries that could not be parsed (skipped)
  size_t telemetry_files = 0;    // snapshots read
  size_t telemetry_samples = 0;  // port rows folded in
  size_t findings = 0;
  std::map<std::string, size_t> decisions;  // by kind
  size_t learned_ports = 0;                 // ports learned from events' text
  size_t listed_ports = 0;                  // ports of the saved ports answer (--ports)
  double ports_load_s = 0;                  // reading and indexing them
  std::vector<std::string> errors;          // what was skipped, and why (first 20)
};

class Inventory;

// The decision path over a time-ordered stream of recorded inputs, shared by RunReplay and the
// rule tests (`rules test`). Inputs must come in time order; time only moves forward.
class ReplayPipeline {
 public:
  using Sink = std::function<void(Decision&&)>;  // the decision is the sink's
  // `inventory` is read and extended (ports learned from events); it must outlive the pipeline.
  ReplayPipeline(std::shared_ptr<const RuleSet> rules, DecisionPolicy policy, Inventory* inventory,
                 SilenceSet silences, Sink sink);
  ~ReplayPipeline();

  // An event, at its own time (o.time). Returns the number of ports learned from its text.
  size_t Event(const Observation& o);
  // The same; `o` is the pipeline's to change (its "<node>:<label>" references resolved once, in
  // place). The ports its text names (ExtractPortSubjects) are read only when the inventory
  // lacks one of its ports: once a fabric is learned, most events are not read twice.
  size_t Event(Observation&& o);
  // The same, with the ports its text names read already (`named`, as ExtractPortSubjects gives
  // them), for an event that names no port of its own: a reading thread read them.
  size_t Event(Observation&& o, const std::vector<PortSubject>* named);
  // A telemetry snapshot taken at `t`.
  void Telemetry(const TelemetrySnapshot& snapshot, TimePoint t);
  // Moves the clock (held findings due by then fire).
  void AdvanceTo(TimePoint t);
  // The recording ended: held findings are judged as if nothing followed.
  void Finish();
  size_t findings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs the replay; hands `sink` each decision in time order. Errors that stop it (a file that
// cannot be read) are returned; bad lines and rows are counted in stats and skipped.
Status RunReplay(std::shared_ptr<const RuleSet> rules, const ReplayOptions& options,
                 const ReplayPipeline::Sink& sink, ReplayStats* stats);

}  // namespace ufmr
