// Telemetry intake: what the service does with UFM Telemetry on each pass. Polls the primary
// endpoint (and the secondary one when its own interval is due), sharded if configured, in CSV or
// Prometheus text; folds the snapshots into CounterTrackers (one per endpoint); and turns counters
// that moved into Observations (kind kCounter, source "telemetry") for the rules engine, plus the
// derived SymbolBER (see telemetry_ber.h) where the link's speed and width are known (from the
// secondary telemetry or the inventory). Only counters some rule names need become Observations
// (SetInterest); every counter's delta is still tracked. Host (HCA) rows are named by their
// port_guid through the inventory (telemetry_hosts.h), each endpoint's columns by its column map
// (telemetry_columns.h). Including this header brings the parts: telemetry_csv.h,
// telemetry_prometheus.h, telemetry_source.h, telemetry_tracker.h.
// A TelemetryIntake is owned by the pipeline thread; not thread-safe. The fetch and link-rate
// functions it is given must outlive it.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "config/config.h"
#include "ingest/observation.h"
#include "telemetry/lead_up.h"
#include "telemetry/telemetry_ber.h"
#include "telemetry/telemetry_csv.h"
#include "telemetry/telemetry_hosts.h"
#include "telemetry/telemetry_prometheus.h"
#include "telemetry/telemetry_snapshot.h"
#include "telemetry/telemetry_source.h"
#include "telemetry/telemetry_tracker.h"

namespace ufmr {

class Inventory;
class UfmClient;

class TelemetryIntake {
 public:
  // The link rate of a port by its inventory name, if known.
  using LinkRateLookup = std::function<std::optional<LinkRate>(const std::string& port)>;
  using Sink = std::function<void(const Observation&)>;

  TelemetryIntake(const Config::Telemetry& config, TelemetryFetch fetch,
                  LinkRateLookup link_rates = nullptr);
  // The service's wiring: GETs through ufm.GetTelemetry, link rates from the inventory's
  // active_speed/active_width, host rows matched against the inventory (UseInventory).
  TelemetryIntake(const Config::Telemetry& config, UfmClient& ufm, const Inventory& inventory);

  // Host rows (a port GUID the inventory has on a host, not a switch) are named after the
  // inventory's port with that GUID, whatever their port number; other rows `<guid>_<number>`.
  // The index is rebuilt when the inventory's generation moves. nullptr: every row by number.
  // The inventory must outlive the intake.
  void UseInventory(const Inventory* inventory);

  // Only these counters become Observations ("SymbolBER" for the derived BER), usually the
  // counters the counter rules name (RuleSet::counters); nullopt: every counter that moved (the
  // default).
  void SetInterest(std::optional<std::set<std::string>> counters);
  // Notes every rise of an error counter (ErrorCounters) or of a counter of interest of the
  // primary's ports in `lead_up`, which must outlive the intake; nullptr (the default): none.
  // Call before the first SetInterest.
  void FollowRises(LeadUp* lead_up) { lead_up_ = lead_up; }

  struct Report {
    bool primary_ok = false;        // the primary endpoint gave a snapshot (maybe partial)
    bool secondary_polled = false;  // the secondary was due and gave a snapshot
    size_t rows = 0;                // port samples folded in
    size_t observations = 0;        // passed to the sink
    size_t ber_without_rate = 0;    // symbol errors on ports whose speed/width is unknown
    std::vector<std::string> fetch_failures;  // an endpoint or shard that could not be used
    std::vector<std::string> input_errors;    // rows or lines skipped (truncation included)
  };
  // One pass: the secondary first when due (its link speeds then serve this pass), then the
  // primary. Observations go to `sink` as they are made.
  Report Poll(TimePoint now, const Sink& sink);

  // Folds an already-parsed snapshot in, as Poll does (for tests and the benchmark). Returns the
  // number of Observations passed to `sink`; adds to *ber_without_rate if given.
  // Host rows are renamed (UseInventory) in a copy, made only when some row needs it.
  size_t Ingest(const TelemetrySnapshot& snapshot, bool secondary, TimePoint now, const Sink& sink,
                size_t* ber_without_rate = nullptr);
  // The same, renaming host rows in place.
  size_t Ingest(TelemetrySnapshot&& snapshot, bool secondary, TimePoint now, const Sink& sink,
                size_t* ber_without_rate = nullptr);

  const CounterTracker& primary() const { return primary_; }
  const CounterTracker& secondary() const { return secondary_; }

 private:
  bool Wants(const std::string& counter) const {
    return !interest_ || interest_->count(counter) > 0;
  }
  std::optional<LinkRate> LinkFor(const TelemetrySnapshot& snapshot, size_t row) const;
  void RefreshHosts();
  size_t IngestNamed(const TelemetrySnapshot& snapshot, bool secondary, TimePoint now,
                     const Sink& sink, size_t* ber_without_rate);
  void Fetch(const TelemetryEndpoint& endpoint, bool secondary, TimePoint now, const Sink& sink,
             Report* report, bool* ok);

  TelemetryEndpoint primary_endpoint_;
  TelemetryEndpoint secondary_endpoint_;
  double secondary_interval_s_;
  TimePoint next_secondary_{};
  TelemetryFetch fetch_;
  LinkRateLookup link_rates_;
  const Inventory* inventory_ = nullptr;
  HostPortIndex hosts_;
  std::optional<std::set<std::string>> interest_;
  LeadUp* lead_up_ = nullptr;
  CounterTracker primary_;
  CounterTracker secondary_;
};

}  // namespace ufmr
