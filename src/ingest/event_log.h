// The UFM event log on disk (event.log): assembling raw lines into entries (an entry starts with a
// "YYYY-MM-DD HH:MM:SS.mmm" timestamp; lines that do not are continuation lines of the entry
// before), parsing one entry into a LogEntry, and turning it into the UfmEvent / Observation the
// rest of the pipeline already handles. The line shape is
//   <date> <time> [<index>] [<event id>] <SEVERITY> [Site [<site>]] [<Category>] <ObjectType>
//   [<object>] [dev_id: <guid>]: <message>
// (the documented UFM event log format; see src/ingest/README.md and docs/UFM.md).
//
// Ownership: every function returns or fills values the caller owns; nothing keeps a pointer to
// its input. Thread-safety: the free functions are pure and thread-safe; an EventLogAssembler is
// plain state for one reader thread (not thread-safe).
//
// Bad input is never fatal and never silently dropped: ParseEventLogEntry returns a Status naming
// the problem (callers count it and log it with the entry's file position); invalid UTF-8 and NUL
// bytes are replaced by U+FFFD so every string in a LogEntry is valid UTF-8 (safe for JSON and
// PostgreSQL); an entry longer than the assembler's cap is cut and flagged `truncated`.
//
// The intake loop, with a cursor that loses and repeats nothing across restarts (LogTailer in
// log_tailer.h gives each line its file's inode and its offset; tests/log_tailer_test.cc runs
// this through rotations and restarts):
//   TailPoll poll = tailer.Poll();     // log poll.notices; count and log a non-ok poll.status
//   for (const LogLine& l : poll.lines)
//     if (assembler.Add(l.text, l.offset, l.inode, &raw)) Handle(raw);
//   if (poll.lines.empty() && assembler.Flush(&raw)) Handle(raw);  // writer idle: entry complete
//   std::optional<LogPosition> at;
//   if (auto held = assembler.pending()) {
//     at = tailer.PositionAt(held->file_id, held->offset);
//     if (!at && assembler.Flush(&raw)) Handle(raw);  // held entry is from a finished file
//   }
//   cursor = at ? *at : tailer.position();            // persist cursor.ToJson() with the results
// where Handle parses with ParseEventLogEntry(raw, &entry) and, on error, counts and logs the
// Status with tailer.path() and raw.offset. The last entry is only known complete when the next
// one starts (or the writer is idle), so it is held; the cursor points at its start, not past it.
// An entry whose continuation lines arrive a poll later than its first line is split (the tail
// becomes an entry without a timestamp, reported as an error).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "ingest/observation.h"
#include "ufm/ufm_event.h"

namespace ufmr {

// Default cap on one entry's text (all its lines). Longer entries are cut and flagged.
inline constexpr size_t kDefaultMaxEntryBytes = size_t{1} << 20;

// One complete entry as the assembler joined it: lines separated by '\n', each line's trailing
// CR and leading/trailing NUL bytes removed. Bytes are otherwise untouched (may be invalid UTF-8).
struct RawLogEntry {
  std::string text;
  uint64_t file_id = 0;    // as passed to Add (the tailer passes the file's inode)
  uint64_t offset = 0;     // byte offset of the entry's first line in that file
  size_t lines = 0;        // lines that made up the entry (also those past the cap)
  bool truncated = false;  // longer than max_entry_bytes: text was cut there
  size_t dropped_bytes = 0;
  bool starts_with_timestamp = false;  // false: continuation lines with no entry before them
};

// True when `line` starts with "YYYY-MM-DD HH:MM:SS.mmm" (digits in range), i.e. starts an entry.
bool IsEventLogEntryStart(std::string_view line);

// Joins raw lines into entries. An entry is complete when the next one starts, when the file id
// changes (an entry never spans files), or on Flush. Lines before the first entry start (e.g. the
// tail of an entry cut by rotation) form an entry of their own with starts_with_timestamp = false,
// which the parser rejects with a clear Status: they are reported, not dropped. Empty lines are
// kept inside an entry (trailing ones are trimmed by the parser) and ignored between entries.
class EventLogAssembler {
 public:
  struct Pending {
    uint64_t file_id;
    uint64_t offset;
  };
  struct Stats {
    uint64_t lines = 0;
    uint64_t entries = 0;  // completed entries handed out
    uint64_t continuation_lines = 0;
    uint64_t orphan_entries = 0;  // entries without a leading timestamp
    uint64_t truncated_entries = 0;
    uint64_t empty_lines_skipped = 0;
  };

  explicit EventLogAssembler(size_t max_entry_bytes = kDefaultMaxEntryBytes);

  // Adds one line (without its '\n'). Returns true when this completed the previous entry, which
  // is then moved into *completed (its buffers are reused: keep passing the same RawLogEntry).
  bool Add(std::string_view line, uint64_t offset, uint64_t file_id, RawLogEntry* completed);
  bool Add(std::string_view line, uint64_t offset, RawLogEntry* completed) {
    return Add(line, offset, 0, completed);
  }
  // Hands out the entry being assembled, if any.
  bool Flush(RawLogEntry* completed);
  // Where the entry being assembled started (the resume point while it is held).
  std::optional<Pending> pending() const;
  const Stats& stats() const { return stats_; }

 private:
  void Append(std::string_view bytes);

  size_t max_entry_bytes_;
  bool open_ = false;
  RawLogEntry current_;
  Stats stats_;
};

// One parsed entry. Strings are valid UTF-8.
struct LogEntry {
  std::string timestamp;    // "YYYY-MM-DD HH:MM:SS.mmm", UFM server local time
  int64_t index = 0;        // the log's running number ([14599])
  int event_id = 0;         // UFM event id ([329]): UfmEvent::event_type
  std::string severity;     // upper-cased: CRITICAL, WARNING, MINOR, INFO, or whatever UFM wrote
  std::string site;         // from the optional "Site [<site>]" before the category
  std::string category;     // "Fabric_Topology", as written
  std::string object_type;  // "Link", "Switch", "Computer", "Port", "Site", "Grid", ...
  std::string object;       // the text inside the object's brackets
  std::string dev_id;       // from "[dev_id: <guid>]", lower-cased; empty when absent
  std::string message;      // after "]: "; continuation lines joined with '\n'

  // Extracted from the object and the message, de-duplicated, in order of appearance; the event's
  // own port (its object's) always before a peer the message names.
  // ports: "<guid>_<n>", lower-case. First ObjectPortName (an IBPort object of a switch port:
  // "<dev_id>_<number>"), then what ExtractPortNames (port_names.h) finds in the object, and only
  // when those are none, what it finds in the message: an object that names ports is the
  // authority (the old Link form's message names a host by its node GUID, which is no port's
  // name).
  std::vector<std::string> ports;
  std::vector<std::string> node_names;  // "mellanox-SX6036", "T3-E21-N-U47", "fsgb001 HCA-1"
  std::vector<std::string> labels;      // port labels: "1/17/1", "1/19/2" ("NA" is none)
  // Ports named as "<node>:<label>", or "<node>:<number>" where the port has no label (a host's
  // port, a switch without labels): the inventory can resolve them to port names. From the object
  // first (an IBPort or Port object not already in `ports`: "Default / Switch: NAME / 1/19/2",
  // "<site> / Computer: HOST HCA-1 / NA / 1"; a "Switch [site / Switch: NAME / LABEL]"), then the
  // message ("(Switch:NAME:LABEL)", "Peer Port NAME:LABEL", "Peer info: ...").
  std::vector<std::string> port_descriptions;
  // The event port's peer, as "<node>:<label or number>": after "Peer Port " (event 702) and
  // "Peer info: " (threshold events: "Computer: HOST HCA-1 / 1", "Default / Switch: NAME / 1/4/2").
  std::vector<std::string> peers;
  std::string cable_serial;  // after "cable S/N:"

  // Where it came from (set by the RawLogEntry overload of ParseEventLogEntry).
  uint64_t file_id = 0;
  uint64_t offset = 0;
  bool truncated = false;     // the assembler cut the entry at its cap
  bool invalid_utf8 = false;  // bytes were replaced by U+FFFD (or NULs removed)
};

// Parses one entry's text (its lines joined with '\n'). Fills *out, reusing its buffers (pass the
// same LogEntry for every call on a hot path: no allocation once warm). On error *out is
// unspecified and the Status says what was expected where (1-based column) with an excerpt.
Status ParseEventLogEntry(std::string_view text, LogEntry* out);
// Same, and copies file_id, offset and truncated from the raw entry.
Status ParseEventLogEntry(const RawLogEntry& raw, LogEntry* out);
Result<LogEntry> ParseEventLogEntry(std::string_view text);

// The port an IBPort (or Port) object names by its device GUID: "<dev_id>_<number>", lower-case,
// when the object names a switch port by number ("default(34) / Switch: c931ibsw-leaf01 / NA /
// 16" with dev_id 248a0703006d40f0); else empty. Never for a host ("Computer: ..."): its dev_id
// may be the node GUID, and host ports are named by port GUID.
std::string ObjectPortName(std::string_view object_type, std::string_view object,
                           std::string_view dev_id);

// The entry as the REST API would have reported it: id = index, event_type = event id,
// name = message up to its first ": " (or its first line), description = message, severity
// capitalized ("Warning"), category with '_' as ' ' ("Fabric Topology"), object_type as
// written, object_name = object_path = the object text.
UfmEvent ToUfmEvent(const LogEntry& entry);

// An Observation with source "event_log", event_id = index, ports = entry.ports. Observation has
// no field for the file position: callers keep entry.offset / file_id alongside it.
Observation ToObservation(const LogEntry& entry, TimePoint received);
// The same, written over `out` (every field set), so a reader that keeps its observations reuses
// their strings' memory instead of allocating them again for every entry.
void FillObservation(const LogEntry& entry, TimePoint received, Observation* out);
// The same, taking the entry's message and port lists instead of copying them: they trade
// places with the observation's, so both keep their memory for the next entry. The entry's
// message and lists are then the observation's old ones, until it is parsed into again.
void FillObservation(LogEntry&& entry, TimePoint received, Observation* out);

}  // namespace ufmr
