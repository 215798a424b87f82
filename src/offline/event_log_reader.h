// EventLogReader: a recorded UFM event log read for replay, entry by entry in file order, each
// parsed into an Observation. The file is read in blocks that end where an entry starts; with
// jobs > 1 the blocks are parsed on that many threads while the caller consumes them in order (at
// most a few blocks ahead, so memory stays flat however long the log), so the rules see exactly
// what one thread would give them.
// Progress (lines, bytes, the log's time) is reported about once a second of wall time. One
// reader per replay, used by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "ingest/event_subjects.h"
#include "ingest/observation.h"

namespace ufmr {

// One entry of the log, parsed.
struct ReadEntry {
  uint64_t offset = 0;  // of its first byte
  std::string error;    // not empty: the entry could not be read (why); read nothing else of it
  Observation obs;      // its time is the entry's own (the log's zone taken off)
  // An event that names no port of its own: the ports its text names (ExtractPortSubjects),
  // read where it was parsed (a reading thread of its own with --jobs), since replay reads them
  // for every such event (ReplayPipeline::Event). Empty and false for the others.
  std::vector<PortSubject> named;
  bool named_read = false;
};

struct ReadProgress {
  uint64_t lines = 0;
  uint64_t bytes = 0;                 // read so far
  uint64_t total_bytes = 0;           // the file's size when it was opened
  std::optional<TimePoint> log_time;  // of the last entry handed out
  double seconds = 0;                 // since reading started
};

struct EventLogReadOptions {
  int utc_offset_s = 0;  // the UFM server's zone: event log times are local
  int jobs = 1;          // threads that parse; 1: the caller's thread does
  // Called about once a second of wall time, and once at the end.
  std::function<void(const ReadProgress&)> progress;
};

// Calls `each` for every entry of the file, in file order. Returns an error only when the file
// cannot be read; an unreadable entry is handed out with its `error` set. The entry stays the
// reader's: it is written over after `each` returns (copy or move out what is kept).
Status ReadEventLogFile(const std::string& path, const EventLogReadOptions& options,
                        const std::function<void(ReadEntry&)>& each);

}  // namespace ufmr
