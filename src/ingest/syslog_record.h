// Syslog records: what the service makes of one UFM message forwarded over syslog, once the
// receiver has stripped its syslog header (SyslogReceiver::StripHeader). The message is an event
// log line, so it is parsed as one (event_log.h) and becomes an Observation with source "syslog".
// Shared by the service's syslog intake (loop/syslog_source) and `ufm-remediator parse
// --syslog`, so both read a record the same way. Pure; thread-safe.
#pragma once

#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "ingest/event_log.h"
#include "ingest/observation.h"

namespace ufmr {

// Parses `message` into *entry (its buffers reused) and, when it parses, fills *out. On error
// *out is untouched and the Status says what was wrong (the caller counts and logs it).
Status ParseSyslogRecord(std::string_view message, TimePoint received, LogEntry* entry,
                         Observation* out);

}  // namespace ufmr
