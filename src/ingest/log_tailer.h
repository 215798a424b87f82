// LogTailer: follows one log file by path (UFM's event.log), the way `tail -F` does, and hands out
// the complete lines appended since the last Poll, each with its byte offset. It survives
// rotation and restarts:
//   - rename + create (logrotate's default): the old file is read by its open descriptor to its
//     end (a last line without '\n' is handed out, flagged unterminated), then the new file is
//     followed from offset 0;
//   - copytruncate / truncation / rewrite in place (the file shrinks below the offset read, or its
//     first bytes change): the rest of the old content is read from the rotated copy if one
//     matches (path + ".1" by default, recognized by the fingerprint of its first bytes), then the
//     file is read again from 0;
//   - the file is missing: Poll keeps retrying (one kWaiting notice); when it appears it is read
//     from 0. A followed file that is deleted (not renamed) is read to its end, then the same.
//   - restart with a saved LogPosition: same inode (or, with at least 32 of them, same first
//     bytes under another inode) and same first bytes → continue at the offset (the device
//     number may change across restarts on overlay or network mounts, so it is not compared).
//     Otherwise the file was rotated or replaced while the service was down: a rotated file (path +
//     suffix) whose inode or first bytes match the position is read from the saved offset to its
//     end, then the new file from 0 (nothing lost, nothing replayed). If none matches, the file at
//     the path is read from 0 and a kResumeLost notice says that the rest of the old file was not
//     read (it was compressed or deleted).
// Lines are capped at max_line_bytes (the rest of an overlong line is skipped, the line flagged
// truncated), and one Poll reads at most max_bytes_per_poll (TailPoll::more says there is more),
// so memory stays bounded whatever is in the file. Known limit (as for tail -F): a writer that
// keeps appending to the renamed file after the new one appeared loses those late lines.
//
// Ownership: the tailer owns its file descriptor (closed on destruction); returned lines and
// positions are values. Thread-safety: none; owned and polled by one thread. Expected failures
// (missing file, permission, read errors) are reported in TailPoll, never thrown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ufmr {

// Where the reader is in the followed file: enough to continue after a restart and to notice
// that the file at the path is not the one the position was taken in. Persist it as ToJson():
//   {"dev":2049,"ino":1835011,"offset":8812,"head_len":256,"head_fnv1a64":"af63bd4c8601b7df"}
// (offset: the first byte not yet handed out as a complete line; head_fnv1a64: 64-bit FNV-1a of
// the file's first head_len bytes, hex). inode 0 means "no file yet": read whatever appears from 0.
struct LogPosition {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t offset = 0;
  uint32_t head_len = 0;
  uint64_t head_hash = 0;

  std::string ToJson() const;
  static Result<LogPosition> FromJson(std::string_view json);
  bool operator==(const LogPosition&) const = default;
};

// One line, without its '\n' (a CR or NUL before it is kept: EventLogAssembler strips them).
struct LogLine {
  std::string text;
  uint64_t offset = 0;        // of the line's first byte, in the file it was read from
  uint64_t inode = 0;         // that file (changes at rotation)
  uint64_t length = 0;        // bytes in the file, without '\n' (> text.size() when truncated)
  bool truncated = false;     // longer than max_line_bytes: text is its beginning
  bool unterminated = false;  // no '\n': the file ended there (rotation, truncation, deletion)
};

struct TailNotice {
  enum class Kind {
    kOpened,              // started following a file
    kWaiting,             // the path does not exist (yet); retrying every Poll
    kResumed,             // continued at the saved position
    kResumedFromRotated,  // the saved file was rotated: reading its rest from the rotated name
    kResumeLost,          // the saved file is gone: its rest (if any) was not read
    kRotated,             // renamed away and a new file created: switched to it
    kTruncated,           // shrank or was rewritten: read the rest from the copy, or from 0
    kGone,                // deleted (not renamed): read to its end, waiting for a new one
    kLineTruncated,       // a line longer than max_line_bytes was cut
  };
  Kind kind;
  std::string message;  // for the log: names the path, inode and offsets
};

struct TailPoll {
  std::vector<LogLine> lines;
  std::vector<TailNotice> notices;
  Status status;      // not ok: the file exists but could not be opened or read (retried)
  bool more = false;  // stopped at max_bytes_per_poll: Poll again without waiting
};

struct LogTailerOptions {
  size_t max_line_bytes = size_t{1} << 20;
  size_t max_bytes_per_poll = size_t{32} << 20;
  size_t fingerprint_bytes = 256;  // how many first bytes identify a file
  // Without a saved position, begin at the end of a file that already exists (its history
  // predates the service). Later files (after rotation or a missing file) are read from 0.
  bool start_at_end = false;
  // Names the previous file may have after rotation (path + suffix), for resume and copytruncate.
  std::vector<std::string> rotated_suffixes = {".1"};
};

class LogTailer {
 public:
  explicit LogTailer(std::string path, std::optional<LogPosition> resume = std::nullopt,
                     LogTailerOptions options = {});
  ~LogTailer();
  LogTailer(const LogTailer&) = delete;
  LogTailer& operator=(const LogTailer&) = delete;

  // Reads what was appended since the last call. A last line without '\n' waits for the next Poll.
  TailPoll Poll();

  // Hands out the buffered line that has no '\n' yet, if any, and moves the position past it.
  // For a caller that knows the file is finished (the tailer already does this by itself when a
  // file is rotated away, truncated or deleted).
  std::optional<LogLine> FlushPartial();

  // The resume point: the current file, at the first byte not yet handed out in a complete line.
  LogPosition position() const;
  // The same for an earlier offset of the current file (e.g. where a multi-line entry still being
  // assembled started); nullopt if `inode` is not the file being read.
  std::optional<LogPosition> PositionAt(uint64_t inode, uint64_t offset) const;

  const std::string& path() const { return path_; }
  // The file being read: path(), or a rotated name while its rest is read; empty when none.
  const std::string& reading() const { return name_; }

 private:
  struct Opened {
    int fd;
    uint64_t device;
    uint64_t inode;
    uint64_t size;
    std::string name;
  };

  bool OpenAtPath(TailPoll* out);
  bool ApplyResume(const Opened& file, const LogPosition& saved, TailPoll* out);
  std::optional<Opened> FindRotated(const LogPosition& saved);
  bool SameFile(int fd, uint64_t inode, uint64_t size, const LogPosition& saved);
  void Adopt(const Opened& file, uint64_t offset, std::optional<LogPosition> head);
  void Close();
  bool HeadStillMatches(uint64_t size);
  bool HeadMatches(int fd, uint64_t size, uint32_t head_len, uint64_t head_hash);
  void Restart(uint64_t size, TailPoll* out);
  bool ReadAvailable(TailPoll* out, size_t* budget);
  void SplitLines(const char* data, size_t n, uint64_t chunk_offset, TailPoll* out);
  void EmitLine(std::string_view direct, bool terminated, TailPoll* out);
  void FlushPartialTo(TailPoll* out);

  std::string path_;
  LogTailerOptions options_;
  std::optional<LogPosition> resume_;
  bool first_open_ = true;
  bool waiting_reported_ = false;

  int fd_ = -1;
  uint64_t device_ = 0;
  uint64_t inode_ = 0;
  std::string name_;
  uint64_t read_offset_ = 0;  // next byte to read
  uint64_t line_start_ = 0;   // offset of the partial line in partial_
  std::string partial_;       // bytes of a line whose '\n' has not been read yet (capped)
  uint64_t partial_length_ = 0;
  uint32_t head_len_ = 0;
  uint64_t head_hash_ = 0;
  std::vector<char> chunk_;
  std::string head_buffer_;
};

}  // namespace ufmr
