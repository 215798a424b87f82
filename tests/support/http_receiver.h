// HttpReceiver: a receiver of notifications for the tests, a real HTTP server on loopback that
// records every request and answers with the status it is set to (after a delay, if set): a
// receiver that works, fails, hangs or comes back. Set to echo, an error answer carries the
// request back as common web frameworks' 404 and 5xx pages do: its method, path with query, and
// every header, Authorization included.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "http/http_server.h"

namespace ufmr::testing {

class HttpReceiver {
 public:
  explicit HttpReceiver(int status = 200, std::chrono::milliseconds delay = {});
  ~HttpReceiver();
  HttpReceiver(const HttpReceiver&) = delete;
  HttpReceiver& operator=(const HttpReceiver&) = delete;

  std::string Url(const std::string& path) const;
  std::vector<HttpRequest> Requests();  // a copy, in arrival order
  void set_status(int status) { status_.store(status); }
  void set_echo(bool echo) { echo_.store(echo); }
  // How long it waits before it answers (past the sender's timeout: a receiver that hangs).
  void set_delay(std::chrono::milliseconds delay) { delay_ms_.store(delay.count()); }
  // Requests taken and not yet answered.
  int in_flight() const { return in_flight_.load(); }
  // The status each request was answered with, in arrival order (as Requests()).
  std::vector<int> Statuses();

 private:
  HttpResponse Take(const HttpRequest& r);

  std::atomic<int> status_;
  std::atomic<bool> echo_{false};
  std::atomic<int64_t> delay_ms_;
  std::atomic<int> in_flight_{0};
  std::mutex mu_;
  std::vector<HttpRequest> requests_;
  std::vector<int> statuses_;
  HttpServer server_;
};

}  // namespace ufmr::testing
