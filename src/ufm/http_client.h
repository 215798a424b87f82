// HttpClient: a blocking libcurl client for UFM's REST and telemetry endpoints.
// One instance per thread (it owns a curl handle, reused for keep-alive, and an in-memory cookie
// jar, so a session login carries over); not thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "base/status.h"

namespace ufmr {

struct HttpClientOptions {
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds timeout{10000};
  bool verify_tls = true;  // "insecure" must be an explicit, logged choice of the caller
  std::string ca_bundle;   // empty: the system's trust store
  std::string basic_user;  // empty: no basic auth
  std::string basic_password;
  std::map<std::string, std::string> headers;  // sent with every request
};

struct HttpResult {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // keys lower-case; last value wins

  std::string Header(const std::string& lower_name) const;
};

class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Transport failures (refused, timeout, TLS) are a non-ok Result; any HTTP status is a value.
  Result<HttpResult> Get(const std::string& url);
  Result<HttpResult> Post(const std::string& url, const std::string& json_body);
  Result<HttpResult> Put(const std::string& url, const std::string& json_body);
  // application/x-www-form-urlencoded; `form` is already encoded ("a=1&b=2").
  Result<HttpResult> PostForm(const std::string& url, const std::string& form);

  // Whether the last failed request failed before anything was sent (refused, no route, DNS):
  // only then is a non-idempotent request safe to send again.
  bool last_failure_before_send() const { return last_failure_before_send_; }
  void SetHeader(const std::string& name, const std::string& value);

 private:
  Result<HttpResult> Perform(const std::string& method, const std::string& url,
                             const std::string* body, const char* content_type);
  HttpClientOptions options_;
  void* curl_ = nullptr;
  bool last_failure_before_send_ = false;
};

}  // namespace ufmr
