// SiteRecording: `probe --record DIR`. Saves every answer the probe reads from a UFM (its version,
// ports with disabled ones, links with their cables, events, unhealthy ports, jobs, a sample of
// each telemetry endpoint, the event log's tail and the syslog records heard) in the layout
// `ufm-sim --recording DIR` serves, anonymised one way throughout (Anonymiser), so a site can hand
// its real shapes over without exposing its fabric. Only UFM's answers are written: never the
// config, a request, a header or a credential. Reads through UfmReads (GETs only). Single-threaded.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/probe.h"
#include "base/status.h"
#include "config/config.h"

namespace ufmr::app {

// Writes the recording into `dir` (created; files in it are replaced). `syslog_records` are the
// records the probe heard. Returns what was written: {"dir", "ufm_version", "files": [...],
// "missing": [...] (answers UFM did not give), "anonymised": {"guids", "names", "serials",
// "addresses"}}; an error when the folder cannot be written.
Result<nlohmann::ordered_json> RecordSite(const Config& config, const UfmReads& ufm,
                                          const std::vector<std::string>& syslog_records,
                                          const std::string& dir);

}  // namespace ufmr::app
