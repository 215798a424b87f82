#include "ingest/syslog_receiver.h"

#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio.hpp>
#include <cctype>
#include <deque>
#include <mutex>
#include <thread>

#include "ingest/event_log.h"  // IsEventLogEntryStart

namespace ufmr {

namespace net = boost::asio;
using udp = net::ip::udp;
using tcp = net::ip::tcp;

namespace {

constexpr size_t kMaxMessage = 64 * 1024;

bool IsDigits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "<PRI>" (up to three digits): removed; true when there was one.
bool StripPri(std::string_view* s) {
  if (s->size() <= 2 || (*s)[0] != '<') return false;
  size_t close = s->find('>');
  if (close == std::string_view::npos || close > 4 || !IsDigits(s->substr(1, close - 1))) {
    return false;
  }
  s->remove_prefix(close + 1);
  return true;
}

// RFC 5424 after the PRI: "1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA MSG".
bool StripRfc5424(std::string_view* s) {
  if (s->size() <= 2 || (*s)[0] != '1' || (*s)[1] != ' ') return false;
  s->remove_prefix(2);
  for (int field = 0; field < 5 && !s->empty(); ++field) {
    size_t sp = s->find(' ');
    s->remove_prefix(sp == std::string_view::npos ? s->size() : sp + 1);
  }
  if (!s->empty() && (*s)[0] == '[') {
    size_t end = s->find("] ");
    s->remove_prefix(end == std::string_view::npos ? s->size() : end + 2);
  } else if (s->size() >= 2 && (*s)[0] == '-' && (*s)[1] == ' ') {
    s->remove_prefix(2);
  }
  return true;
}

// RFC 3164: "Mmm dd hh:mm:ss HOST TAG: MSG", the tag with or without a pid ("eventlog[30300]:").
// Also without a PRI: a relay may drop it (IBM CAST's collectors print the record so).
bool StripRfc3164(std::string_view* s) {
  const std::string_view t = *s;
  if (t.size() < 16 || !std::isalpha(static_cast<unsigned char>(t[0])) || t[3] != ' ' ||
      t[6] != ' ' || t[9] != ':' || t[12] != ':' || t[15] != ' ') {
    return false;
  }
  s->remove_prefix(16);
  size_t sp = s->find(' ');  // host
  if (sp != std::string_view::npos) s->remove_prefix(sp + 1);
  size_t colon = s->find(": ");
  size_t space = s->find(' ');
  if (colon != std::string_view::npos && colon < space) s->remove_prefix(colon + 2);
  return true;
}

// UFM's event records: "WARNING - 2016-10-17 15:56:33.245 [5744] [112] WARNING ...": the
// severity and " - " before the event-log line. Removed only when an event-log line follows, so
// any other message is passed on whole.
void StripEventSeverity(std::string_view* s) {
  size_t k = 0;
  while (k < s->size() && k <= 16 && std::isalpha(static_cast<unsigned char>((*s)[k]))) ++k;
  if (k == 0 || s->compare(k, 3, " - ") != 0) return;
  if (IsEventLogEntryStart(s->substr(k + 3))) s->remove_prefix(k + 3);
}

}  // namespace

std::string SyslogReceiver::StripHeader(std::string_view s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);  // UFM's forwarded records can end in a NUL byte
  }
  if (StripPri(&s)) {
    if (!StripRfc5424(&s)) StripRfc3164(&s);
  } else {
    StripRfc3164(&s);
  }
  StripEventSeverity(&s);
  while (!s.empty() && s.back() == '\0') s.remove_suffix(1);
  return std::string(s);
}

struct SyslogReceiver::Impl {
  std::string address;
  int udp_port;
  int tcp_port;
  size_t max_queue;
  net::io_context ioc;
  std::unique_ptr<udp::socket> udp_socket;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::array<char, kMaxMessage> udp_buf{};
  udp::endpoint udp_peer;
  std::thread thread;
  std::mutex mu;
  std::deque<SyslogMessage> queue;
  std::atomic<uint64_t> received{0};
  std::atomic<uint64_t> dropped{0};
  SystemClock clock;

  void Push(std::string_view raw, const std::string& peer) {
    received++;
    std::string text = StripHeader(raw);
    if (text.empty()) return;
    std::lock_guard<std::mutex> lock(mu);
    if (queue.size() >= max_queue) {
      dropped++;
      return;
    }
    queue.push_back({std::move(text), peer, clock.Now()});
  }

  void ReceiveUdp() {
    udp_socket->async_receive_from(
        net::buffer(udp_buf), udp_peer, [this](boost::system::error_code ec, size_t n) {
          if (ec == net::error::operation_aborted) return;
          if (!ec) {
            Push(std::string_view(udp_buf.data(), n), udp_peer.address().to_string());
          }
          ReceiveUdp();
        });
  }

  void Accept() {
    acceptor->async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted) return;
      if (!ec) std::make_shared<TcpSession>(this, std::move(socket))->Read();
      Accept();
    });
  }

  // One TCP sender: newline-framed, or octet-counted ("LEN SP MSG") as RFC 6587 allows.
  struct TcpSession : std::enable_shared_from_this<TcpSession> {
    TcpSession(Impl* owner, tcp::socket s) : impl(owner), socket(std::move(s)) {
      boost::system::error_code ec;
      auto ep = socket.remote_endpoint(ec);
      if (!ec) peer = ep.address().to_string();
    }
    void Read() {
      auto self = shared_from_this();
      socket.async_read_some(net::buffer(chunk), [self](boost::system::error_code ec, size_t n) {
        if (ec) return;
        self->buffer.append(self->chunk.data(), n);
        self->Frame();
        if (self->buffer.size() > 2 * kMaxMessage) {
          self->impl->dropped++;  // an unframed flood: drop what cannot be a message
          self->buffer.clear();
        }
        self->Read();
      });
    }
    void Frame() {
      while (!buffer.empty()) {
        size_t sp = buffer.find(' ');
        if (sp != std::string::npos && sp > 0 && sp <= 6 &&
            IsDigits(std::string_view(buffer).substr(0, sp))) {
          size_t len = std::stoul(buffer.substr(0, sp));
          if (buffer.size() < sp + 1 + len) return;  // wait for the rest
          impl->Push(std::string_view(buffer).substr(sp + 1, len), peer);
          buffer.erase(0, sp + 1 + len);
          continue;
        }
        size_t nl = buffer.find('\n');
        if (nl == std::string::npos) return;
        impl->Push(std::string_view(buffer).substr(0, nl), peer);
        buffer.erase(0, nl + 1);
      }
    }
    Impl* impl;
    tcp::socket socket;
    std::string peer;
    std::array<char, 16384> chunk{};
    std::string buffer;
  };
};

SyslogReceiver::SyslogReceiver(std::string address, int udp_port, int tcp_port, size_t max_queue)
    : impl_(std::make_unique<Impl>()) {
  impl_->address = std::move(address);
  impl_->udp_port = udp_port;
  impl_->tcp_port = tcp_port;
  impl_->max_queue = max_queue;
}

SyslogReceiver::~SyslogReceiver() { Stop(); }

Status SyslogReceiver::Start() {
  boost::system::error_code ec;
  auto addr = net::ip::make_address(impl_->address, ec);
  if (ec) return Status::InvalidArgument("bad syslog listen address '" + impl_->address + "'");
  if (impl_->udp_port >= 0) {
    impl_->udp_socket = std::make_unique<udp::socket>(impl_->ioc);
    udp::endpoint ep(addr, static_cast<uint16_t>(impl_->udp_port));
    impl_->udp_socket->open(ep.protocol(), ec);
    if (!ec) impl_->udp_socket->bind(ep, ec);
    if (ec)
      return Status::Unavailable("syslog UDP " + std::to_string(impl_->udp_port) + ": " +
                                 ec.message());
    impl_->udp_port = impl_->udp_socket->local_endpoint().port();
    impl_->ReceiveUdp();
  }
  if (impl_->tcp_port >= 0) {
    impl_->acceptor = std::make_unique<tcp::acceptor>(impl_->ioc);
    tcp::endpoint ep(addr, static_cast<uint16_t>(impl_->tcp_port));
    impl_->acceptor->open(ep.protocol(), ec);
    if (!ec) impl_->acceptor->set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) impl_->acceptor->bind(ep, ec);
    if (!ec) impl_->acceptor->listen(net::socket_base::max_listen_connections, ec);
    if (ec)
      return Status::Unavailable("syslog TCP " + std::to_string(impl_->tcp_port) + ": " +
                                 ec.message());
    impl_->tcp_port = impl_->acceptor->local_endpoint().port();
    impl_->Accept();
  }
  impl_->thread = std::thread([this] { impl_->ioc.run(); });
  return Status::Ok();
}

void SyslogReceiver::Stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  impl_->ioc.stop();
  impl_->thread.join();
}

int SyslogReceiver::udp_port() const { return impl_->udp_port; }
int SyslogReceiver::tcp_port() const { return impl_->tcp_port; }

std::vector<SyslogMessage> SyslogReceiver::Drain() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::vector<SyslogMessage> out(std::make_move_iterator(impl_->queue.begin()),
                                 std::make_move_iterator(impl_->queue.end()));
  impl_->queue.clear();
  return out;
}

uint64_t SyslogReceiver::received() const { return impl_->received.load(); }
uint64_t SyslogReceiver::dropped() const { return impl_->dropped.load(); }

}  // namespace ufmr
