#include "ingest/syslog_record.h"

namespace ufmr {

Status ParseSyslogRecord(std::string_view message, TimePoint received, LogEntry* entry,
                         Observation* out) {
  Status s = ParseEventLogEntry(message, entry);
  if (!s.ok()) return s;
  *out = ToObservation(*entry, received);
  out->source = "syslog";
  return Status::Ok();
}

}  // namespace ufmr
