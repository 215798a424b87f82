// SyslogReceiver: UFM's forwarded events as a third source (PUT /app/syslog points UFM at it).
// Listens on UDP and/or TCP (newline-framed or octet-counted, RFC 6587), strips the syslog
// header and a trailing NUL, and queues each message for the pipeline thread to Drain(). The
// network side runs on its own thread; Drain() and the counters are thread-safe. A full queue
// drops the newest messages and counts them, so a flood cannot exhaust memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace ufmr {

struct SyslogMessage {
  std::string text;  // the message, header stripped
  std::string peer;  // sender address
  TimePoint received;
};

class SyslogReceiver {
 public:
  // A port of 0 picks a free one; a port of -1 disables that transport.
  SyslogReceiver(std::string address, int udp_port, int tcp_port, size_t max_queue = 100000);
  ~SyslogReceiver();
  SyslogReceiver(const SyslogReceiver&) = delete;
  SyslogReceiver& operator=(const SyslogReceiver&) = delete;

  Status Start();
  void Stop();
  int udp_port() const;
  int tcp_port() const;

  std::vector<SyslogMessage> Drain();
  uint64_t received() const;
  uint64_t dropped() const;

  // "<132>Oct 17 15:56:33 ufm-host eventlog[30300]: WARNING - 2016-10-17 15:56:33.245 ...\0" ->
  // "2016-10-17 15:56:33.245 ...": the RFC 3164 header (with or without its PRI), then the
  // "<SEVERITY> - " UFM puts before an event-log line (only when an event-log line follows), and a
  // trailing NUL. Also takes RFC 5424 ("<134>1 2026-11-29T18:46:32Z host app pid msgid - msg"),
  // bare event-log lines, and any other message (returned as it is, for the caller to report).
  static std::string StripHeader(std::string_view line);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ufmr
