// libFuzzer target: one syslog record (any bytes) as the syslog receiver hands it on: the header
// stripped (RFC 3164, RFC 5424 or none), then parsed as an event-log entry. Never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "ingest/event_log.h"
#include "ingest/syslog_receiver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view record(reinterpret_cast<const char*>(data), size);
  const std::string message = ufmr::SyslogReceiver::StripHeader(record);
  if (message.size() > record.size()) __builtin_trap();  // stripping never adds bytes
  ufmr::LogEntry entry;
  if (ufmr::ParseEventLogEntry(message, &entry).ok()) {
    (void)ufmr::ToObservation(entry, ufmr::FromEpochSeconds(1.7e9));
  }
  return 0;
}
