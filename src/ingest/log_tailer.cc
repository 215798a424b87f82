#include "ingest/log_tailer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

namespace ufmr {

namespace {

constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;
constexpr size_t kChunkBytes = size_t{1} << 20;
// A rotated copy with a different inode is only trusted on its first bytes when there are at
// least this many of them (a near-empty file's head says little).
constexpr uint32_t kMinHeadForCopy = 32;
constexpr uint32_t kMaxHeadLen = 1u << 20;

uint64_t Fnv1a(const char* p, size_t n) {
  uint64_t h = kFnvBasis;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= kFnvPrime;
  }
  return h;
}

std::string Errno(int e) { return std::strerror(e); }

std::string Hex64(uint64_t v) {
  char buf[17];
  auto r = std::to_chars(buf, buf + 16, v, 16);
  std::string s(buf, r.ptr);
  return std::string(16 - s.size(), '0') + s;
}

// pread until n bytes or end of file; -1 on error.
ssize_t ReadAt(int fd, char* buf, size_t n, uint64_t offset) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, buf + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

std::string Describe(const std::string& name, uint64_t inode) {
  return name + " (inode " + std::to_string(inode) + ")";
}

}  // namespace

// --- LogPosition ------------------------------------------------------------------------------

std::string LogPosition::ToJson() const {
  return "{\"dev\":" + std::to_string(device) + ",\"ino\":" + std::to_string(inode) +
         ",\"offset\":" + std::to_string(offset) + ",\"head_len\":" + std::to_string(head_len) +
         ",\"head_fnv1a64\":\"" + Hex64(head_hash) + "\"}";
}

Result<LogPosition> LogPosition::FromJson(std::string_view json) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument("log position is not a JSON object");
  }
  LogPosition p;
  auto number = [&j](const char* key, uint64_t* out) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_unsigned()) return false;
    *out = it->get<uint64_t>();
    return true;
  };
  uint64_t head_len = 0;
  if (!number("dev", &p.device) || !number("ino", &p.inode) || !number("offset", &p.offset) ||
      !number("head_len", &head_len)) {
    return Status::InvalidArgument(
        "log position needs non-negative integers dev, ino, offset, head_len");
  }
  if (head_len > kMaxHeadLen) return Status::InvalidArgument("log position head_len too large");
  p.head_len = static_cast<uint32_t>(head_len);
  auto hash = j.find("head_fnv1a64");
  if (hash == j.end() || !hash->is_string()) {
    return Status::InvalidArgument("log position needs head_fnv1a64 (16 hex digits)");
  }
  const std::string& h = hash->get_ref<const std::string&>();
  auto r = std::from_chars(h.data(), h.data() + h.size(), p.head_hash, 16);
  if (h.size() != 16 || r.ec != std::errc() || r.ptr != h.data() + h.size()) {
    return Status::InvalidArgument("log position head_fnv1a64 is not 16 hex digits: '" + h + "'");
  }
  return p;
}

// --- LogTailer --------------------------------------------------------------------------------

LogTailer::LogTailer(std::string path, std::optional<LogPosition> resume, LogTailerOptions options)
    : path_(std::move(path)), options_(std::move(options)), resume_(resume) {
  if (options_.max_line_bytes == 0) options_.max_line_bytes = 1;
  if (options_.max_bytes_per_poll == 0) options_.max_bytes_per_poll = kChunkBytes;
  options_.fingerprint_bytes = std::min<size_t>(options_.fingerprint_bytes, kMaxHeadLen);
  head_hash_ = kFnvBasis;
}

LogTailer::~LogTailer() { Close(); }

void LogTailer::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  device_ = inode_ = 0;
  name_.clear();
  read_offset_ = line_start_ = 0;
  partial_.clear();
  partial_length_ = 0;
  head_len_ = 0;
  head_hash_ = kFnvBasis;
}

LogPosition LogTailer::position() const {
  if (fd_ < 0) {
    // Not reading a file: a saved position not applied yet stays the resume point; otherwise
    // whatever file appears is read from 0.
    if (resume_) return *resume_;
    return LogPosition{0, 0, 0, 0, kFnvBasis};
  }
  return LogPosition{device_, inode_, line_start_, head_len_, head_hash_};
}

std::optional<LogPosition> LogTailer::PositionAt(uint64_t inode, uint64_t offset) const {
  if (fd_ < 0 || inode != inode_ || offset > read_offset_) return std::nullopt;
  return LogPosition{device_, inode_, offset, head_len_, head_hash_};
}

void LogTailer::Adopt(const Opened& file, uint64_t offset, std::optional<LogPosition> head) {
  Close();
  fd_ = file.fd;
  device_ = file.device;
  inode_ = file.inode;
  name_ = file.name;
  read_offset_ = line_start_ = offset;
  if (head) {
    head_len_ = head->head_len;
    head_hash_ = head->head_hash;
  }
}

bool LogTailer::HeadMatches(int fd, uint64_t size, uint32_t head_len, uint64_t head_hash) {
  if (head_len > size) return false;
  head_buffer_.resize(head_len);
  if (ReadAt(fd, head_buffer_.data(), head_len, 0) != static_cast<ssize_t>(head_len)) {
    return false;
  }
  return Fnv1a(head_buffer_.data(), head_len) == head_hash;
}

bool LogTailer::HeadStillMatches(uint64_t size) {
  if (head_len_ > size) return false;
  size_t target = std::max<size_t>(head_len_, std::min<uint64_t>(size, options_.fingerprint_bytes));
  head_buffer_.resize(target);
  if (ReadAt(fd_, head_buffer_.data(), target, 0) != static_cast<ssize_t>(target)) return false;
  if (Fnv1a(head_buffer_.data(), head_len_) != head_hash_) return false;
  if (target > head_len_) {
    head_len_ = static_cast<uint32_t>(target);
    head_hash_ = Fnv1a(head_buffer_.data(), target);
  }
  return true;
}

// Whether an open file is the one a saved position was taken in, holding at least its offset.
// The device number is not required to match: overlay and network mounts can get another one
// after a restart. An inode number alone can be reused, so the first bytes must match too; a
// file with another inode is accepted on its first bytes alone (a copy: copytruncate, or a log
// restored elsewhere) only when there are enough of them to tell.
bool LogTailer::SameFile(int fd, uint64_t inode, uint64_t size, const LogPosition& saved) {
  bool trusted = inode == saved.inode || saved.head_len >= kMinHeadForCopy;
  return trusted && size >= saved.offset && HeadMatches(fd, size, saved.head_len, saved.head_hash);
}

std::optional<LogTailer::Opened> LogTailer::FindRotated(const LogPosition& saved) {
  for (const auto& suffix : options_.rotated_suffixes) {
    std::string name = path_ + suffix;
    int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      continue;
    }
    uint64_t size = static_cast<uint64_t>(st.st_size);
    if (SameFile(fd, static_cast<uint64_t>(st.st_ino), size, saved)) {
      return Opened{fd, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), size,
                    name};
    }
    ::close(fd);
  }
  return std::nullopt;
}

bool LogTailer::OpenAtPath(TailPoll* out) {
  // Only a file that exists when the tailer starts has history to skip.
  bool from_end = first_open_ && options_.start_at_end && !resume_;
  first_open_ = false;
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) {
      if (!waiting_reported_) {
        out->notices.push_back({TailNotice::Kind::kWaiting,
                                path_ + " does not exist (yet); waiting for it to appear"});
        waiting_reported_ = true;
      }
    } else {
      out->status = Status::Unavailable("cannot open " + path_ + ": " + Errno(e));
    }
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out->status = Status::Unavailable("cannot stat " + path_ + ": " + Errno(errno));
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    out->status = Status::Unavailable(path_ + " is not a regular file");
    ::close(fd);
    return false;
  }
  waiting_reported_ = false;
  Opened file{fd, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
              static_cast<uint64_t>(st.st_size), path_};
  if (resume_) {
    LogPosition saved = *resume_;
    resume_.reset();
    if (saved.inode != 0) return ApplyResume(file, saved, out);
  }
  uint64_t offset = from_end ? file.size : 0;
  Adopt(file, offset, std::nullopt);
  out->notices.push_back({TailNotice::Kind::kOpened, "following " + Describe(path_, inode_) +
                                                         " from offset " + std::to_string(offset)});
  return true;
}

bool LogTailer::ApplyResume(const Opened& file, const LogPosition& saved, TailPoll* out) {
  if (SameFile(file.fd, file.inode, file.size, saved)) {
    Adopt(file, saved.offset, saved);
    out->notices.push_back(
        {TailNotice::Kind::kResumed,
         "resuming " + Describe(path_, inode_) + " at offset " + std::to_string(saved.offset)});
    return true;
  }
  if (auto rotated = FindRotated(saved)) {
    ::close(file.fd);
    Adopt(*rotated, saved.offset, saved);
    out->notices.push_back({TailNotice::Kind::kResumedFromRotated,
                            path_ + " is not the file of the saved position (inode " +
                                std::to_string(saved.inode) + "); reading the rest of " +
                                Describe(rotated->name, rotated->inode) + " from offset " +
                                std::to_string(saved.offset) + ", then " + path_ + " from 0"});
    return true;
  }
  Adopt(file, 0, std::nullopt);
  out->notices.push_back(
      {TailNotice::Kind::kResumeLost,
       path_ + " is not the file of the saved position (inode " + std::to_string(saved.inode) +
           ", offset " + std::to_string(saved.offset) +
           ") and no rotated file matches it; reading " + Describe(path_, inode_) +
           " from 0: the old file's entries after that offset, if any, were not read"});
  return true;
}

// The file shrank below what was read, or its first bytes changed: copytruncate, truncation or a
// rewrite. Read the rest from the rotated copy when one matches, else start over at 0.
void LogTailer::Restart(uint64_t size, TailPoll* out) {
  std::string what = Describe(name_, inode_) +
                     (size < read_offset_ ? " shrank from " + std::to_string(read_offset_) +
                                                " to " + std::to_string(size) + " bytes"
                                          : " was rewritten (its first bytes changed)");
  LogPosition here = position();
  if (auto copy = FindRotated(here)) {
    std::string copy_name = copy->name;
    Adopt(*copy, here.offset, here);
    out->notices.push_back({TailNotice::Kind::kTruncated,
                            what + "; reading the rest of its copy " + copy_name + " from offset " +
                                std::to_string(here.offset) + ", then " + path_ + " from 0"});
    return;
  }
  FlushPartialTo(out);
  read_offset_ = line_start_ = 0;
  head_len_ = 0;
  head_hash_ = kFnvBasis;
  out->notices.push_back({TailNotice::Kind::kTruncated, what + "; reading it again from 0"});
}

TailPoll LogTailer::Poll() {
  TailPoll out;
  size_t budget = options_.max_bytes_per_poll;
  if (fd_ < 0 && !OpenAtPath(&out)) return out;
  for (int round = 0; round < 4; ++round) {
    // What is at the path now (looked at before reading, so that everything written to the old
    // file before the new one appeared is read).
    struct stat ps {};
    bool path_exists = false;
    if (::stat(path_.c_str(), &ps) == 0) {
      path_exists = true;
    } else if (errno != ENOENT) {
      out.status = Status::Unavailable("cannot stat " + path_ + ": " + Errno(errno));
    }
    bool path_is_other = path_exists && (static_cast<uint64_t>(ps.st_dev) != device_ ||
                                         static_cast<uint64_t>(ps.st_ino) != inode_);
    struct stat fs {};
    if (::fstat(fd_, &fs) != 0) {
      out.status = Status::Unavailable("cannot stat " + name_ + ": " + Errno(errno));
      return out;
    }
    uint64_t size = static_cast<uint64_t>(fs.st_size);
    if (size < read_offset_ || !HeadStillMatches(size)) {
      Restart(size, &out);
      continue;  // the file being read may have changed: look again
    }
    if (!ReadAvailable(&out, &budget)) {
      out.more = true;
      return out;
    }
    if (path_is_other) {
      std::string old = Describe(name_, inode_);
      uint64_t end = read_offset_;
      FlushPartialTo(&out);
      int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
      struct stat st {};
      if (fd < 0 || ::fstat(fd, &st) != 0) {
        if (fd >= 0) ::close(fd);
        return out;  // it went away again: look next time
      }
      Adopt(Opened{fd, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                   static_cast<uint64_t>(st.st_size), path_},
            0, std::nullopt);
      out.notices.push_back({TailNotice::Kind::kRotated,
                             old + " read to its end (offset " + std::to_string(end) +
                                 "); following the new " + Describe(path_, inode_) + " from 0"});
      continue;
    }
    if (!path_exists && fs.st_nlink == 0) {
      std::string old = Describe(name_, inode_);
      FlushPartialTo(&out);
      Close();
      waiting_reported_ = true;
      out.notices.push_back({TailNotice::Kind::kGone, old +
                                                          " was deleted; read to its end; "
                                                          "waiting for " +
                                                          path_ + " to appear"});
    }
    break;
  }
  return out;
}

bool LogTailer::ReadAvailable(TailPoll* out, size_t* budget) {
  if (chunk_.empty()) chunk_.resize(kChunkBytes);
  while (true) {
    if (*budget == 0) return false;
    size_t want = std::min(chunk_.size(), *budget);
    ssize_t r = ::pread(fd_, chunk_.data(), want, static_cast<off_t>(read_offset_));
    if (r < 0) {
      if (errno == EINTR) continue;
      out->status = Status::Unavailable("cannot read " + name_ + " at offset " +
                                        std::to_string(read_offset_) + ": " + Errno(errno));
      return true;
    }
    if (r == 0) return true;
    uint64_t chunk_offset = read_offset_;
    read_offset_ += static_cast<uint64_t>(r);
    *budget -= static_cast<size_t>(r);
    SplitLines(chunk_.data(), static_cast<size_t>(r), chunk_offset, out);
  }
}

void LogTailer::SplitLines(const char* data, size_t n, uint64_t chunk_offset, TailPoll* out) {
  const char* p = data;
  const char* end = data + n;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    size_t piece = static_cast<size_t>((nl ? nl : end) - p);
    if (nl && partial_length_ == 0 && piece <= options_.max_line_bytes) {
      EmitLine(std::string_view(p, piece), true, out);  // the common case: no copy through partial_
    } else {
      size_t room = options_.max_line_bytes - std::min(options_.max_line_bytes, partial_.size());
      partial_.append(p, std::min(piece, room));
      partial_length_ += piece;
      if (nl) EmitLine(std::string_view(), true, out);
    }
    if (!nl) break;
    p = nl + 1;
    line_start_ = chunk_offset + static_cast<uint64_t>(p - data);
  }
}

// Emits `direct` if not empty-and-partial, else the buffered partial line.
void LogTailer::EmitLine(std::string_view direct, bool terminated, TailPoll* out) {
  LogLine line;
  line.offset = line_start_;
  line.inode = inode_;
  line.unterminated = !terminated;
  if (partial_length_ == 0) {
    line.text.assign(direct.data(), direct.size());
    line.length = direct.size();
  } else {
    line.text = std::move(partial_);
    line.length = partial_length_;
    partial_.clear();
    partial_length_ = 0;
  }
  line.truncated = line.length > line.text.size();
  if (line.truncated) {
    out->notices.push_back({TailNotice::Kind::kLineTruncated,
                            "line at offset " + std::to_string(line.offset) + " of " +
                                Describe(name_, inode_) + " is " + std::to_string(line.length) +
                                " bytes; kept the first " + std::to_string(line.text.size())});
  }
  out->lines.push_back(std::move(line));
}

void LogTailer::FlushPartialTo(TailPoll* out) {
  if (partial_length_ == 0) return;
  EmitLine(std::string_view(), false, out);
  line_start_ = read_offset_;
}

std::optional<LogLine> LogTailer::FlushPartial() {
  TailPoll scratch;
  FlushPartialTo(&scratch);
  if (scratch.lines.empty()) return std::nullopt;
  return std::move(scratch.lines.front());
}

}  // namespace ufmr
