#include "http_receiver.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

namespace ufmr::testing {

HttpReceiver::HttpReceiver(int status, std::chrono::milliseconds delay)
    : status_(status),
      delay_ms_(delay.count()),
      server_(
          "127.0.0.1", 0, [this](const HttpRequest& r) { return Take(r); }, 2) {
  EXPECT_TRUE(server_.Start().ok());
}

HttpReceiver::~HttpReceiver() { server_.Stop(); }

std::string HttpReceiver::Url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(server_.port()) + path;
}

std::vector<HttpRequest> HttpReceiver::Requests() {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::vector<int> HttpReceiver::Statuses() {
  std::lock_guard<std::mutex> lock(mu_);
  return statuses_;
}

HttpResponse HttpReceiver::Take(const HttpRequest& r) {
  ++in_flight_;
  const int status = status_.load();
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(r);
    statuses_.push_back(status);
  }
  const int64_t delay = delay_ms_.load();
  if (delay > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
  --in_flight_;
  if (status != 200 && echo_.load()) {
    nlohmann::json headers = nlohmann::json::object();
    for (const auto& [k, v] : r.headers) headers[k] = v;
    // As Express's "Cannot POST /path", with the request's headers after it.
    return HttpResponse::Text(status, std::string(status < 500 ? "Cannot " : "Unavailable: ") +
                                          r.method + " " + r.target + " " + headers.dump());
  }
  return HttpResponse::Text(status, status == 200 ? "ok" : "no_service");
}

}  // namespace ufmr::testing
