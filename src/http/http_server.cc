#include "http/http_server.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/version.hpp>
#include <cctype>
#include <chrono>
#include <mutex>
#include <thread>

#include "base/metrics.h"

namespace ufmr {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::string HttpRequest::Header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

std::string HttpRequest::Query(const std::string& name, const std::string& fallback) const {
  auto it = query.find(name);
  return it == query.end() ? fallback : it->second;
}

HttpResponse HttpResponse::Json(int status, const nlohmann::json& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

HttpResponse HttpResponse::Error(int status, const std::string& message) {
  return Json(status, nlohmann::json{{"error", message}});
}

void LogFailedAnswer(int status, const std::string& cause) {
  // One limiter for 503s (an outage answers every request so) and one for the rest, so a bug's
  // 500 is not lost among an outage's 503s.
  struct Limiter {
    std::chrono::steady_clock::time_point next;
    int64_t unlogged = 0;
  };
  static std::mutex mu;
  static Limiter unavailable, other;
  Limiter& l = status == 503 ? unavailable : other;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu);
  if (now < l.next) {
    ++l.unlogged;
    return;
  }
  l.next = now + std::chrono::seconds(10);
  const auto level = status == 503 ? spdlog::level::warn : spdlog::level::err;
  if (l.unlogged > 0) {
    spdlog::log(level, "answered {}: {} ({} more such answers in the last 10 s, not logged)",
                status, cause, l.unlogged);
  } else {
    spdlog::log(level, "answered {}: {}", status, cause);
  }
  l.unlogged = 0;
}

HttpResponse HttpResponse::FromStatus(const Status& s) {
  switch (s.code()) {
    case Status::Code::kInvalidArgument:
      return Error(400, s.message());
    case Status::Code::kNotFound:
      return Error(404, s.message());
    case Status::Code::kConflict:
      return Error(409, s.message());
    case Status::Code::kUnavailable:
      // The cause (libpq's message: server, socket, database and user names) is for the log,
      // not for whoever asked.
      LogFailedAnswer(503, s.message());
      return Error(503, kUnavailableAnswer);
    default:
      LogFailedAnswer(500, s.message());
      return Error(500, "internal error (the service's log has the details)");
  }
}

HttpResponse HttpResponse::Text(int status, std::string body, std::string content_type) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  return r;
}

std::string PercentDecode(const std::string& s, bool plus_as_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else if (plus_as_space && s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::map<std::string, std::string> ParseQueryString(const std::string& query) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= query.size()) {
    size_t amp = query.find('&', start);
    if (amp == std::string::npos) amp = query.size();
    std::string pair = query.substr(start, amp - start);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      if (eq == std::string::npos) {
        out[PercentDecode(pair)] = "";
      } else {
        out[PercentDecode(pair.substr(0, eq))] = PercentDecode(pair.substr(eq + 1));
      }
    }
    start = amp + 1;
  }
  return out;
}

namespace {

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start < path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

}  // namespace

void HttpRouter::Add(const std::string& method, const std::string& pattern, HttpHandler handler) {
  routes_.push_back(Route{method, SplitPath(pattern), false, "", std::move(handler)});
}

void HttpRouter::AddPrefix(const std::string& method, const std::string& prefix,
                           HttpHandler handler) {
  routes_.push_back(Route{method, {}, true, prefix, std::move(handler)});
}

HttpResponse HttpRouter::Dispatch(HttpRequest& request) const {
  // Split the raw path, then decode each segment, so "%2F" inside a segment stays inside it.
  std::vector<std::string> parts = SplitPath(
      request.target.empty() ? request.path : request.target.substr(0, request.target.find('?')));
  for (auto& part : parts) part = PercentDecode(part, false);
  bool path_matched = false;
  for (int pass = 0; pass < 2; ++pass) {
    for (const Route& route : routes_) {
      if (route.prefix != (pass == 1)) continue;
      std::map<std::string, std::string> params;
      bool match = false;
      if (route.prefix) {
        match = request.path.rfind(route.prefix_path, 0) == 0;
      } else if (route.segments.size() == parts.size()) {
        match = true;
        for (size_t i = 0; i < parts.size() && match; ++i) {
          const std::string& seg = route.segments[i];
          if (seg.size() > 2 && seg.front() == '{' && seg.back() == '}') {
            params[seg.substr(1, seg.size() - 2)] = parts[i];
          } else if (seg != parts[i]) {
            match = false;
          }
        }
      }
      if (!match) continue;
      path_matched = true;
      if (route.method != request.method && !(route.method == "GET" && request.method == "HEAD")) {
        continue;
      }
      request.params = std::move(params);
      return route.handler(request);
    }
  }
  if (path_matched) return HttpResponse::Error(405, "method not allowed on " + request.path);
  return HttpResponse::Error(404, "no such path: " + request.path);
}

namespace {

// The connections open now, counted by each while it lives (and kept in a gauge, if asked).
struct OpenConnections {
  std::atomic<int> n{0};
  Metrics* metrics = nullptr;

  int load() const { return n.load(); }
  void Opened() {
    n.fetch_add(1);
    if (metrics != nullptr) metrics->Add("ufmr_http_connections_open", 1);
  }
  void Closed() {
    n.fetch_sub(1);
    if (metrics != nullptr) metrics->Add("ufmr_http_connections_open", -1);
  }
};

}  // namespace

struct HttpServer::Impl {
  std::string address;
  uint16_t port;
  HttpHandler handler;
  int threads;
  int max_connections = kDefaultMaxConnections;
  net::io_context ioc;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::unique_ptr<net::steady_timer> accept_retry;
  std::vector<std::thread> workers;
  bool started = false;
  // Shared with every connection, which may outlive this server by a moment.
  std::shared_ptr<OpenConnections> open = std::make_shared<OpenConnections>();
  std::atomic<int64_t> refused{0};
  std::atomic<int64_t> accept_errors{0};
  // Accept's handlers run one at a time (the acceptor's strand): these need no lock.
  std::chrono::steady_clock::time_point next_refusal_log{};
  std::chrono::steady_clock::time_point next_accept_error_log{};

  void Accept();
  void Refuse(tcp::socket& socket);
};

namespace {

constexpr size_t kMaxBodyBytes = 4 * 1024 * 1024;

class Session : public std::enable_shared_from_this<Session> {
 public:
  // `open` counts the connections: this one until it is destroyed.
  Session(tcp::socket&& socket, const HttpHandler& handler, std::shared_ptr<OpenConnections> open)
      : stream_(std::move(socket)), handler_(handler), open_(std::move(open)) {
    open_->Opened();
  }
  ~Session() { open_->Closed(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Run() { Read(); }

 private:
  void Read() {
    parser_.emplace();
    parser_->body_limit(kMaxBodyBytes);
    stream_.expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == net::error::operation_aborted) {
      return Close();
    }
    if (ec) {
      if (ec == http::error::body_limit) {
        return Respond(HttpResponse::Error(413, "request body too large"), false);
      }
      return Close();
    }
    http::request<http::string_body> req = parser_->release();
    HttpRequest in;
    in.method = std::string(req.method_string());
    in.target = std::string(req.target());
    size_t q = in.target.find('?');
    in.path = PercentDecode(in.target.substr(0, q), false);
    if (q != std::string::npos) in.query = ParseQueryString(in.target.substr(q + 1));
    for (const auto& field : req) {
      std::string name(field.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      in.headers[name] = std::string(field.value());
    }
    in.body = std::move(req.body());
    HttpResponse out;
    try {
      out = handler_(in);
    } catch (const std::exception& e) {
      // The exception's text stays in the log: it can name tables, files or addresses.
      spdlog::error("http handler for {} {} failed: {}", in.method, in.path, e.what());
      out = HttpResponse::Error(500, "internal error (the service's log has the details)");
    }
    if (in.method == "HEAD") out.body.clear();
    Respond(std::move(out), req.keep_alive());
  }

  void Respond(HttpResponse out, bool keep_alive) {
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(11);
    res->result(static_cast<unsigned>(out.status));
    res->set(http::field::server, "ufm-remediator");
    res->set(http::field::content_type, out.content_type);
    // Unless the handler says otherwise: no content-type sniffing, and no copies of answers
    // (tickets, users' names) kept by browsers or proxies.
    res->set("X-Content-Type-Options", "nosniff");
    res->set(http::field::cache_control, "no-store");
    for (const auto& [k, v] : out.headers) res->set(k, v);
    res->body() = std::move(out.body);
    res->keep_alive(keep_alive);
    res->prepare_payload();
    stream_.expires_after(std::chrono::seconds(30));
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
                        if (ec || !res->keep_alive()) return self->Close();
                        self->Read();
                      });
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  const HttpHandler& handler_;
  std::shared_ptr<OpenConnections> open_;
};

}  // namespace

void HttpServer::Impl::Accept() {
  acceptor->async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    const auto now = std::chrono::steady_clock::now();
    if (ec) {
      if (ec == net::error::operation_aborted || !acceptor->is_open()) return;
      accept_errors.fetch_add(1);
      // Out of descriptors (EMFILE), most likely: the pending connection stays pending, and
      // accepting again at once would spin on the same error. Wait, then try again.
      if (now >= next_accept_error_log) {
        spdlog::warn("http: accept failed: {} ({} connections open); trying again in 100 ms",
                     ec.message(), open->load());
        next_accept_error_log = now + std::chrono::seconds(10);
      }
      accept_retry->expires_after(std::chrono::milliseconds(100));
      accept_retry->async_wait([this](beast::error_code wait_ec) {
        if (!wait_ec && acceptor->is_open()) Accept();
      });
      return;
    }
    if (open->load() >= max_connections) {
      Refuse(socket);
    } else {
      std::make_shared<Session>(std::move(socket), handler, open)->Run();
    }
    if (acceptor->is_open()) Accept();
  });
}

void HttpServer::Impl::Refuse(tcp::socket& socket) {
  refused.fetch_add(1);
  if (open->metrics != nullptr) open->metrics->Add("ufmr_http_connections_refused_total");
  const auto now = std::chrono::steady_clock::now();
  if (now >= next_refusal_log) {
    beast::error_code ec;
    auto peer = socket.remote_endpoint(ec);
    spdlog::warn(
        "http: {} connections open (http.max_connections): refused one from {} ({} so far)",
        open->load(), ec ? std::string("?") : peer.address().to_string(), refused.load());
    next_refusal_log = now + std::chrono::seconds(10);
  }
  // A fresh socket's send buffer has room for this: written without waiting, then closed.
  static const std::string kBusy = [] {
    const std::string body = R"({"error": "too many connections open: try again shortly"})";
    return "HTTP/1.1 503 Service Unavailable\r\nServer: ufm-remediator\r\n"
           "Content-Type: application/json\r\nX-Content-Type-Options: nosniff\r\n"
           "Cache-Control: no-store\r\nRetry-After: 1\r\nConnection: close\r\n"
           "Content-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }();
  beast::error_code ec;
  socket.non_blocking(true, ec);
  if (ec) return;  // closed as it goes out of scope
  socket.write_some(net::buffer(kBusy), ec);
  socket.shutdown(tcp::socket::shutdown_send, ec);
  // What the client already sent is read and dropped (best effort: bytes that arrive after the
  // close still draw a reset): closing with unread bytes would reset the connection, and the
  // client might never read the answer.
  char sink[4096];
  for (int i = 0; i < 16 && !ec; ++i) socket.read_some(net::buffer(sink), ec);
  socket.close(ec);
}

HttpServer::HttpServer(std::string address, uint16_t port, HttpHandler handler, int threads)
    : impl_(std::make_unique<Impl>()) {
  impl_->address = std::move(address);
  impl_->port = port;
  impl_->handler = std::move(handler);
  impl_->threads = threads < 1 ? 1 : threads;
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::set_max_connections(int n) { impl_->max_connections = n < 1 ? 1 : n; }

void HttpServer::set_metrics(Metrics* metrics) { impl_->open->metrics = metrics; }

int HttpServer::open_connections() const { return impl_->open->load(); }

int64_t HttpServer::refused_connections() const { return impl_->refused.load(); }

int64_t HttpServer::accept_errors() const { return impl_->accept_errors.load(); }

Status HttpServer::Start() {
  beast::error_code ec;
  auto addr = net::ip::make_address(impl_->address, ec);
  if (ec) return Status::InvalidArgument("bad listen address '" + impl_->address + "'");
  tcp::endpoint endpoint(addr, impl_->port);
  impl_->acceptor = std::make_unique<tcp::acceptor>(net::make_strand(impl_->ioc));
  impl_->acceptor->open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor->bind(endpoint, ec);
  if (!ec) impl_->acceptor->listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::Unavailable("cannot listen on " + impl_->address + ":" +
                               std::to_string(impl_->port) + ": " + ec.message());
  }
  impl_->port = impl_->acceptor->local_endpoint().port();
  impl_->accept_retry = std::make_unique<net::steady_timer>(impl_->acceptor->get_executor());
  impl_->Accept();
  for (int i = 0; i < impl_->threads; ++i) {
    impl_->workers.emplace_back([this] { impl_->ioc.run(); });
  }
  impl_->started = true;
  return Status::Ok();
}

void HttpServer::Stop() {
  if (!impl_ || !impl_->started) return;
  impl_->started = false;
  impl_->ioc.stop();
  for (auto& t : impl_->workers) t.join();
  impl_->workers.clear();
  // Release the port now, not when the server is destroyed: a stopped server refuses.
  beast::error_code ec;
  impl_->acceptor->close(ec);
}

uint16_t HttpServer::port() const { return impl_->port; }

}  // namespace ufmr
