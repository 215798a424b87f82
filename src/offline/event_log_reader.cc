#include "offline/event_log_reader.h"

#include <sys/stat.h>

#include <cstdio>
#include <deque>
#include <future>
#include <memory>
#include <string_view>
#include <utility>

#include "ingest/event_log.h"

namespace ufmr {

namespace {

// About this much of the file is parsed at a time (a block holds some 4,500 entries).
constexpr size_t kBlockBytes = 1 << 20;
// A block grows to the next entry start, but no further than this: a file with no timestamps
// (not an event log) is read in pieces, each reported as an unreadable entry, not held whole.
constexpr size_t kMaxBlockBytes = 64 << 20;

struct Block {
  uint64_t offset = 0;  // of its first byte in the file
  std::string bytes;
};

// A block and its entries. Kept and read and parsed into again (the first `count` entries are
// this block's): the buffer and the entries' strings keep their memory from block to block
// instead of being allocated and freed for every block and entry.
struct Parsed {
  Block block;
  std::vector<ReadEntry> entries;
  size_t count = 0;
  uint64_t lines = 0;
  uint64_t bytes = 0;
};

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};

// The file in blocks that each end where an entry starts (or at the end of the file), so that
// no entry spans two blocks.
class BlockSource {
 public:
  explicit BlockSource(FILE* f) : f_(f) {}

  // The next block, read into `out` (its buffer reused); false at the end of the file (or on a
  // read error: see failed()).
  bool Next(Block* out) {
    std::string& buf = out->bytes;
    buf.assign(carry_);
    carry_.clear();
    size_t cut = std::string::npos;
    while (cut == std::string::npos && !eof_) {
      const size_t had = buf.size();
      buf.resize(had + kBlockBytes);
      const size_t got = std::fread(buf.data() + had, 1, kBlockBytes, f_);
      buf.resize(had + got);
      if (got < kBlockBytes) eof_ = true;
      cut = eof_ ? buf.size() : LastEntryStart(buf);
      if (cut == std::string::npos && buf.size() >= kMaxBlockBytes) {
        cut = buf.rfind('\n') == std::string::npos ? buf.size() : buf.rfind('\n') + 1;
      }
    }
    if (cut == std::string::npos) cut = buf.size();
    if (buf.empty()) return false;
    carry_.assign(buf, cut, std::string::npos);
    buf.resize(cut);
    out->offset = offset_;
    offset_ += buf.size();
    return true;
  }
  bool failed() const { return std::ferror(f_) != 0; }

 private:
  // Where the last complete line that starts an entry begins, or npos if no line after the first
  // does (an entry longer than the buffer: read on).
  static size_t LastEntryStart(const std::string& buf) {
    size_t nl = buf.size();
    while (nl > 0 && (nl = buf.rfind('\n', nl - 1)) != std::string::npos && nl > 0) {
      std::string_view next(buf.data() + nl + 1, buf.size() - nl - 1);
      // A line must be whole enough to show its timestamp.
      if (next.find('\n') != std::string_view::npos && IsEventLogEntryStart(next)) return nl + 1;
    }
    return std::string::npos;
  }

  FILE* f_;
  std::string carry_;
  uint64_t offset_ = 0;
  bool eof_ = false;
};

void ParseEntry(const RawLogEntry& raw, int utc_offset_s, LogEntry* entry, ReadEntry* out) {
  out->offset = raw.offset;
  out->error.clear();
  out->named.clear();
  out->named_read = false;
  Status s = ParseEventLogEntry(raw, entry);
  TimePoint t;
  if (s.ok() && !ParseUfmTimestamp(entry->timestamp, utc_offset_s, &t)) {
    s = Status::InvalidArgument("bad timestamp '" + entry->timestamp + "'");
  }
  if (!s.ok()) {
    out->error = s.message();
    return;
  }
  FillObservation(std::move(*entry), t, &out->obs);  // the entry is parsed into again next
  out->named_read = out->obs.ports.empty();
  if (out->named_read) out->named = ExtractPortSubjects(out->obs.description);
}

void ParseBlock(int utc_offset_s, Parsed* out) {
  const Block& block = out->block;
  out->count = 0;
  out->lines = 0;
  out->bytes = block.bytes.size();
  EventLogAssembler assembler;
  RawLogEntry raw;
  LogEntry entry;
  auto handle = [&] {
    if (out->count == out->entries.size()) out->entries.emplace_back();
    ParseEntry(raw, utc_offset_s, &entry, &out->entries[out->count++]);
  };
  const std::string& b = block.bytes;
  for (size_t pos = 0; pos < b.size();) {
    size_t end = b.find('\n', pos);
    if (end == std::string::npos) end = b.size();
    std::string_view line(b.data() + pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++out->lines;
    if (assembler.Add(line, block.offset + pos, &raw)) handle();
    pos = end + 1;
  }
  if (assembler.Flush(&raw)) handle();
}

// Hands out the parsed blocks' entries and reports progress.
class Delivery {
 public:
  Delivery(const EventLogReadOptions& options, uint64_t total_bytes,
           const std::function<void(ReadEntry&)>& each)
      : options_(options), each_(each), start_(std::chrono::steady_clock::now()) {
    progress_.total_bytes = total_bytes;
    last_report_ = start_;
  }

  void operator()(Parsed& parsed) {
    for (size_t k = 0; k < parsed.count; ++k) {
      ReadEntry& e = parsed.entries[k];
      if (e.error.empty()) progress_.log_time = e.obs.time;
      each_(e);
    }
    progress_.lines += parsed.lines;
    progress_.bytes += parsed.bytes;
    if (!options_.progress) return;
    auto now = std::chrono::steady_clock::now();
    if (now - last_report_ >= std::chrono::seconds(1)) Report(now);
  }
  void Finish() {
    if (options_.progress) Report(std::chrono::steady_clock::now());
  }

 private:
  void Report(std::chrono::steady_clock::time_point now) {
    last_report_ = now;
    progress_.seconds = std::chrono::duration<double>(now - start_).count();
    options_.progress(progress_);
  }

  const EventLogReadOptions& options_;
  const std::function<void(ReadEntry&)>& each_;
  std::chrono::steady_clock::time_point start_, last_report_;
  ReadProgress progress_;
};

}  // namespace

Status ReadEventLogFile(const std::string& path, const EventLogReadOptions& options,
                        const std::function<void(ReadEntry&)>& each) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return Status::NotFound("cannot read the event log " + path);
  struct stat st {};
  const uint64_t total = fstat(fileno(f.get()), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  BlockSource source(f.get());
  Delivery deliver(options, total, each);
  if (options.jobs <= 1) {
    Parsed parsed;
    while (source.Next(&parsed.block)) {
      ParseBlock(options.utc_offset_s, &parsed);
      deliver(parsed);
    }
  } else {
    // `jobs` blocks are parsed at once while the oldest is handed out: the next one is started
    // before the caller runs the rules on it.
    std::vector<std::unique_ptr<Parsed>> spare;  // delivered, to be read and parsed into again
    std::deque<std::future<std::unique_ptr<Parsed>>> parsing;
    const int utc = options.utc_offset_s;
    auto start = [&]() {
      std::unique_ptr<Parsed> into;
      if (spare.empty()) {
        into = std::make_unique<Parsed>();
      } else {
        into = std::move(spare.back());
        spare.pop_back();
      }
      if (!source.Next(&into->block)) return false;
      parsing.push_back(std::async(std::launch::async, [utc, p = std::move(into)]() mutable {
        ParseBlock(utc, p.get());
        return std::move(p);
      }));
      return true;
    };
    while (static_cast<int>(parsing.size()) < options.jobs && start()) {
    }
    while (!parsing.empty()) {
      std::unique_ptr<Parsed> parsed = parsing.front().get();
      parsing.pop_front();
      start();
      deliver(*parsed);
      spare.push_back(std::move(parsed));
    }
  }
  deliver.Finish();
  if (source.failed()) return Status::Internal("error reading the event log " + path);
  return Status::Ok();
}

}  // namespace ufmr
