#include "telemetry/telemetry.h"

#include "telemetry/error_counters.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {

namespace {

TelemetryFormat FormatOf(const std::string& name) {
  auto f = ParseTelemetryFormat(name);
  return f.ok() ? f.value() : TelemetryFormat::kAuto;  // the config loader rejects bad names
}

TelemetryColumns ColumnsOf(const std::map<std::string, std::string>& map) {
  auto c = TelemetryColumns::Make(map);
  return c.ok() ? c.value() : TelemetryColumns();  // the config loader rejects bad maps
}

TimePoint After(TimePoint t, double seconds) {
  return t + std::chrono::duration_cast<TimePoint::duration>(Seconds(seconds));
}

}  // namespace

TelemetryIntake::TelemetryIntake(const Config::Telemetry& config, TelemetryFetch fetch,
                                 LinkRateLookup link_rates)
    : primary_endpoint_{config.url, FormatOf(config.format), config.shards,
                        ColumnsOf(config.columns)},
      secondary_endpoint_{config.secondary_url, FormatOf(config.format), config.shards,
                          ColumnsOf(config.secondary_columns)},
      secondary_interval_s_(config.secondary_interval_s),
      fetch_(std::move(fetch)),
      link_rates_(std::move(link_rates)) {}

TelemetryIntake::TelemetryIntake(const Config::Telemetry& config, UfmClient& ufm,
                                 const Inventory& inventory)
    : TelemetryIntake(
          config, [&ufm](const std::string& url) { return ufm.GetTelemetry(url); },
          [&inventory](const std::string& port) -> std::optional<LinkRate> {
            auto info = inventory.Get(port);
            if (!info) return std::nullopt;
            LinkRate rate = ParseLinkRate(info->active_speed, info->active_width);
            if (!rate.known()) return std::nullopt;
            return rate;
          }) {
  UseInventory(&inventory);
}

void TelemetryIntake::UseInventory(const Inventory* inventory) {
  inventory_ = inventory;
  hosts_.Clear();
}

void TelemetryIntake::RefreshHosts() {
  if (inventory_) hosts_.Refresh(*inventory_);
}

void TelemetryIntake::SetInterest(std::optional<std::set<std::string>> counters) {
  if (counters == interest_) return;
  interest_ = std::move(counters);
  if (!interest_) {
    primary_.ReportAll();
    secondary_.ReportAll();
    return;
  }
  std::set<std::string> tracked = *interest_;
  if (lead_up_) tracked.insert(ErrorCounters().begin(), ErrorCounters().end());
  if (interest_->count(std::string(kSymbolBerCounter))) {
    tracked.insert("SymbolErrorCounterExtended");
    tracked.insert("SymbolErrorCounter");
  }
  primary_.ReportOnly(tracked);
  secondary_.ReportOnly(std::move(tracked));
}

std::optional<LinkRate> TelemetryIntake::LinkFor(const TelemetrySnapshot& snapshot,
                                                 size_t row) const {
  if (!snapshot.links.empty() && snapshot.links[row].known()) return snapshot.links[row];
  const PortKey& port = snapshot.ports[row];
  if (auto r = secondary_.Link(port)) return r;
  if (auto r = primary_.Link(port)) return r;
  if (link_rates_) return link_rates_(PortName(port));
  return std::nullopt;
}

size_t TelemetryIntake::Ingest(const TelemetrySnapshot& snapshot, bool secondary, TimePoint now,
                               const Sink& sink, size_t* ber_without_rate) {
  RefreshHosts();
  if (!hosts_.Changes(snapshot.ports)) {
    return IngestNamed(snapshot, secondary, now, sink, ber_without_rate);
  }
  TelemetrySnapshot named = snapshot;
  hosts_.Resolve(&named.ports);
  return IngestNamed(named, secondary, now, sink, ber_without_rate);
}

size_t TelemetryIntake::Ingest(TelemetrySnapshot&& snapshot, bool secondary, TimePoint now,
                               const Sink& sink, size_t* ber_without_rate) {
  RefreshHosts();
  hosts_.Resolve(&snapshot.ports);
  return IngestNamed(snapshot, secondary, now, sink, ber_without_rate);
}

size_t TelemetryIntake::IngestNamed(const TelemetrySnapshot& snapshot, bool secondary,
                                    TimePoint now, const Sink& sink, size_t* ber_without_rate) {
  CounterTracker& tracker = secondary ? secondary_ : primary_;
  const bool wants_ber = Wants(std::string(kSymbolBerCounter));
  size_t emitted = 0;
  tracker.Update(snapshot, now, [&](const CounterDelta& d) {
    const std::string& name = snapshot.counters[d.column];
    const bool wanted = Wants(name);
    if (lead_up_ && !secondary && (wanted || ErrorCounters().count(name))) {
      lead_up_->Rose(PortName(snapshot.ports[d.row]), name, d.previous_time, d.previous, d.time,
                     d.value);
    }
    const bool ber = wants_ber && IsSymbolErrorCounter(name);
    if (!wanted && !ber) return;
    Observation o;
    o.kind = Observation::Kind::kCounter;
    o.time = d.time;
    o.source = "telemetry";
    o.ports = {PortName(snapshot.ports[d.row])};
    if (wanted) {
      o.counter = name;
      o.delta = static_cast<double>(d.delta);
      o.interval_s = d.interval_s;
      o.value = static_cast<double>(d.value);
      sink(o);
      ++emitted;
    }
    if (ber) {
      std::optional<LinkRate> rate = LinkFor(snapshot, d.row);
      if (!rate) {
        if (ber_without_rate) ++*ber_without_rate;
      } else {
        Observation b = o;
        b.counter = std::string(kSymbolBerCounter);
        b.value = SymbolBer(static_cast<double>(d.delta), d.interval_s, *rate);
        b.interval_s = d.interval_s;
        b.delta = b.value * d.interval_s / kSymbolBerPerS;
        sink(b);
        ++emitted;
      }
    }
  });
  return emitted;
}

void TelemetryIntake::Fetch(const TelemetryEndpoint& endpoint, bool secondary, TimePoint now,
                            const Sink& sink, Report* report, bool* ok) {
  auto fetched = FetchTelemetry(endpoint, fetch_);
  if (!fetched.ok()) {
    report->fetch_failures.push_back(fetched.status().message());
    *ok = false;
    return;
  }
  *ok = true;
  for (auto& f : fetched->failures) report->fetch_failures.push_back(std::move(f));
  for (auto& e : fetched->snapshot.errors) report->input_errors.push_back(std::move(e));
  report->rows += fetched->snapshot.rows();
  report->observations +=
      Ingest(std::move(fetched->snapshot), secondary, now, sink, &report->ber_without_rate);
}

TelemetryIntake::Report TelemetryIntake::Poll(TimePoint now, const Sink& sink) {
  Report report;
  if (!secondary_endpoint_.url.empty() && now >= next_secondary_) {
    Fetch(secondary_endpoint_, true, now, sink, &report, &report.secondary_polled);
    // A failed secondary is tried again on the next pass; a good one after its interval.
    if (report.secondary_polled) next_secondary_ = After(now, secondary_interval_s_);
  }
  if (!primary_endpoint_.url.empty()) {
    Fetch(primary_endpoint_, false, now, sink, &report, &report.primary_ok);
  }
  return report;
}

}  // namespace ufmr
