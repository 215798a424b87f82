// HttpServer: a small Boost.Beast HTTP/1.1 server with a path router, shared by the service
// (dashboard, JSON API, metrics) and by ufm-sim. Handlers run on the server's worker threads and
// must be thread-safe; a handler that throws answers 500 and the server carries on.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace ufmr {

class Metrics;

struct HttpRequest {
  std::string method;
  std::string target;  // as received, with query string
  std::string path;    // decoded path, no query
  std::map<std::string, std::string> query;
  std::map<std::string, std::string> headers;  // keys lower-case
  std::map<std::string, std::string> params;   // from {name} segments of the route
  std::string body;

  std::string Header(const std::string& lower_name) const;
  std::string Query(const std::string& name, const std::string& fallback = "") const;
};

// Logs why a request was answered `status` (a 5xx): a 503 as a warning, anything else as an error,
// each kind at most once every 10 s (an outage answers every request so), with how many were
// answered so meanwhile.
void LogFailedAnswer(int status, const std::string& cause);

// What a 503 says when the database (the only thing the API waits on) cannot be reached.
inline constexpr char kUnavailableAnswer[] = "the database is unavailable: try again shortly";

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  static HttpResponse Json(int status, const nlohmann::json& body);
  static HttpResponse Error(int status, const std::string& message);
  // A non-ok Status as an error answer: InvalidArgument 400, NotFound 404, Conflict 409,
  // Unavailable 503, anything else 500. A 5xx says only kUnavailableAnswer or "internal error…":
  // its message (libpq's, naming servers, sockets, databases and users) is logged instead.
  static HttpResponse FromStatus(const Status& status);
  static HttpResponse Text(int status, std::string body, std::string content_type = "text/plain");
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Routes "METHOD /a/{x}/b" patterns; first match wins. Unknown path: 404, known path with
// another method: 405. Build it before the server starts; it is read-only afterwards.
class HttpRouter {
 public:
  void Add(const std::string& method, const std::string& pattern, HttpHandler handler);
  // A handler for every path under a prefix (e.g. "/static/"), tried after exact routes.
  void AddPrefix(const std::string& method, const std::string& prefix, HttpHandler handler);
  HttpResponse Dispatch(HttpRequest& request) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    bool prefix = false;
    std::string prefix_path;
    HttpHandler handler;
  };
  std::vector<Route> routes_;
};

// The default of http.max_connections.
inline constexpr int kDefaultMaxConnections = 512;

class HttpServer {
 public:
  // port 0 picks a free port; port() tells which after Start().
  HttpServer(std::string address, uint16_t port, HttpHandler handler, int threads = 2);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // At most this many connections are open at once (set before Start). One more is answered
  // 503 at once and closed, so idle and slow clients cannot take every descriptor. When accept
  // itself fails (out of descriptors), the server waits 100 ms before it tries again rather
  // than spin on the error.
  void set_max_connections(int n);
  // Keeps ufmr_http_connections_open and ufmr_http_connections_refused_total (set before Start;
  // `metrics` must outlive the server).
  void set_metrics(Metrics* metrics);

  Status Start();
  void Stop();
  uint16_t port() const;
  int open_connections() const;         // now
  int64_t refused_connections() const;  // since Start, over the cap
  int64_t accept_errors() const;        // since Start: accepts that failed (out of descriptors)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Splits "a=1&b=x%20y" into a map, percent-decoding both sides.
std::map<std::string, std::string> ParseQueryString(const std::string& query);
// '+' means a space in a query string only; pass false for path segments.
std::string PercentDecode(const std::string& s, bool plus_as_space = true);

}  // namespace ufmr
