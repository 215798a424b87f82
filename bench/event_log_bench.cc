// Event-log intake benchmark: generates N lines (default 2,000,000) of realistic mixed UFM
// event-log entries (old and new link messages, peer-port, counter, site/grid events, a few
// multi-line entries), then times, on one thread: the line assembler + parser alone (in memory),
// the same plus ToObservation, the RE2-based ExtractPortNames on the same entries for reference,
// and LogTailer + assembler + parser reading the lines from a file (page cache warm after the
// write). Prints lines/s and MB/s; asserts nothing. The lines are bench_inputs.h's (micro_bench.cc
// parses the same). Usage: event_log_bench [LINES] [DIR]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bench_inputs.h"
#include "ingest/event_log.h"
#include "ingest/log_tailer.h"
#include "ingest/port_names.h"
#include "ufm/ufm_event.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct Counts {
  size_t lines = 0, entries = 0, errors = 0, ports = 0;
};

// Splits the buffer into lines and runs assembler + parser (+ ToObservation when asked).
Counts ParseBuffer(const std::string& data, bool observe) {
  Counts c;
  ufmr::EventLogAssembler assembler;
  ufmr::RawLogEntry raw;
  ufmr::LogEntry entry;
  auto handle = [&] {
    ++c.entries;
    if (!ufmr::ParseEventLogEntry(raw, &entry).ok()) {
      ++c.errors;
      return;
    }
    if (observe) {
      c.ports += ufmr::ToObservation(entry, ufmr::TimePoint()).ports.size();
    } else {
      c.ports += entry.ports.size();
    }
  };
  const char* p = data.data();
  const char* end = p + data.size();
  uint64_t offset = 0;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!nl) nl = end;
    ++c.lines;
    if (assembler.Add(std::string_view(p, static_cast<size_t>(nl - p)), offset, &raw)) handle();
    offset += static_cast<uint64_t>(nl - p) + 1;
    p = nl + 1;
  }
  if (assembler.Flush(&raw)) handle();
  return c;
}

void Report(const char* what, const Counts& c, size_t bytes, double s) {
  std::printf("  %-34s %6.3f s  %9.0f lines/s  %7.1f MB/s  (%zu entries, %zu errors, %zu ports)\n",
              what, s, c.lines / s, bytes / s / 1e6, c.entries, c.errors, c.ports);
}

}  // namespace

int main(int argc, char** argv) {
  long target = argc > 1 ? std::atol(argv[1]) : 2000000;
  std::string dir = argc > 2 ? argv[2] : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
  int64_t lines = 0, entries = 0;
  const std::string data = ufmr::bench::EventLogText(target, &lines, &entries);
  std::printf("event log: %lld lines, %lld entries, %.1f MB (%.0f bytes/line)\n",
              static_cast<long long>(lines), static_cast<long long>(entries), data.size() / 1e6,
              static_cast<double>(data.size()) / static_cast<double>(lines));

  std::printf("in memory, one thread (best of 3):\n");
  for (bool observe : {false, true}) {
    double best = 1e30;
    Counts counts;
    for (int run = 0; run < 3; ++run) {
      auto start = Clock::now();
      counts = ParseBuffer(data, observe);
      best = std::min(best, Seconds(Clock::now() - start));
    }
    Report(observe ? "assemble + parse + ToObservation" : "assemble + parse", counts, data.size(),
           best);
  }

  // Reference: the RE2 port extraction of the REST path, on the same entries' object + message.
  {
    size_t sample = std::min<size_t>(200000, static_cast<size_t>(lines));
    std::vector<std::string> texts;
    ufmr::EventLogAssembler assembler;
    ufmr::RawLogEntry raw;
    ufmr::LogEntry entry;
    size_t pos = 0;
    while (texts.size() < sample && pos < data.size()) {
      size_t nl = data.find('\n', pos);
      if (assembler.Add(std::string_view(data).substr(pos, nl - pos), pos, &raw) &&
          ufmr::ParseEventLogEntry(raw, &entry).ok()) {
        texts.push_back(entry.object + " " + entry.message);
      }
      pos = nl + 1;
    }
    size_t bytes = 0, re2_ports = 0, fast_ports = 0;
    for (const auto& t : texts) bytes += t.size();
    auto start = Clock::now();
    for (const auto& t : texts) re2_ports += ufmr::ExtractPortNames(t).size();
    double re2_s = Seconds(Clock::now() - start);
    start = Clock::now();
    std::vector<std::string> names;
    for (const auto& t : texts) {
      names.clear();
      ufmr::AppendPortNames(t, &names);
      fast_ports += names.size();
    }
    double fast_s = Seconds(Clock::now() - start);
    std::printf("port names in %zu entries (object + message, %.1f MB):\n", texts.size(),
                bytes / 1e6);
    std::printf("  ExtractPortNames (RE2)             %6.3f s  %9.0f entries/s  (%zu ports)\n",
                re2_s, texts.size() / re2_s, re2_ports);
    std::printf("  AppendPortNames (scan)             %6.3f s  %9.0f entries/s  (%zu ports)\n",
                fast_s, texts.size() / fast_s, fast_ports);
  }

  // Through a file: LogTailer reads it (default options: 32 MiB per Poll), then the same work.
  std::string path = dir + "/event_log_bench.XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) {
    std::perror("mkstemp");
    return 1;
  }
  ::close(fd);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << data;
  }
  double best = 1e30;
  Counts counts;
  int polls = 0;
  for (int run = 0; run < 3; ++run) {
    Counts c;
    polls = 0;
    auto start = Clock::now();
    ufmr::LogTailer tailer(path);
    ufmr::EventLogAssembler assembler;
    ufmr::RawLogEntry raw;
    ufmr::LogEntry entry;
    auto handle = [&] {
      ++c.entries;
      if (!ufmr::ParseEventLogEntry(raw, &entry).ok()) {
        ++c.errors;
      } else {
        c.ports += entry.ports.size();
      }
    };
    for (;;) {
      ufmr::TailPoll p = tailer.Poll();
      ++polls;
      for (const auto& l : p.lines) {
        ++c.lines;
        if (assembler.Add(l.text, l.offset, l.inode, &raw)) handle();
      }
      if (!p.more) break;
    }
    if (assembler.Flush(&raw)) handle();
    best = std::min(best, Seconds(Clock::now() - start));
    counts = c;
  }
  std::printf("from a file, one thread (best of 3, %d polls):\n", polls);
  Report("tailer + assemble + parse", counts, data.size(), best);
  ::unlink(path.c_str());
  return 0;
}
