#include "loop/syslog_source.h"

#include <spdlog/spdlog.h>

#include "ingest/syslog_record.h"

namespace ufmr {

void SyslogSource::Drain(const Emit& emit) {
  const TimePoint now = clock_.Now();
  for (const auto& m : receiver_.Drain()) {
    LogEntry entry;
    Observation o;
    Status s = ParseSyslogRecord(m.text, now, &entry, &o);
    if (!s.ok()) {
      metrics_.Add("ufmr_parse_errors_total{source=\"syslog\"}");
      spdlog::warn("syslog from {}: {}", m.peer, s.message());
      continue;
    }
    emit(o);
  }
  inputs_.Ok("syslog", now,
             std::to_string(receiver_.received()) + " records received, " +
                 std::to_string(receiver_.dropped()) + " dropped");
  metrics_.Set("ufmr_syslog_received", static_cast<double>(receiver_.received()));
  metrics_.Set("ufmr_syslog_dropped", static_cast<double>(receiver_.dropped()));
}

}  // namespace ufmr
