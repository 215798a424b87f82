#include "notify/message.h"

#include <random>

namespace ufmr {

namespace {

// Slack shows at most 40,000 characters of a message's text; what is beyond is cut.
constexpr size_t kSlackTextLimit = 30000;

// Slack's mrkdwn treats &, < and > as markup: escaped as its documentation asks.
std::string SlackEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

std::string RandomHex(size_t bytes) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes; ++i) {
    const auto b = static_cast<unsigned>(rng() & 0xff);
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace

nlohmann::json WebhookBody(const Message& m) {
  nlohmann::json items = nlohmann::json::array();
  for (const Notification& n : m.notifications) {
    items.push_back({{"kind", n.kind},
                     {"severity", n.severity},
                     {"title", n.title},
                     {"text", n.text},
                     {"at", FormatIsoTime(n.at)},
                     {"url", n.url.empty() ? nlohmann::json() : nlohmann::json(n.url)},
                     {"labels", n.labels}});
  }
  return {{"version", 1},
          {"idempotency_key", m.idempotency_key},
          {"source", "ufm-remediator"},
          {"fabric", m.fabric},
          {"receiver", m.receiver},
          {"notifications", items}};
}

nlohmann::json SlackBody(const Message& m) {
  std::string text;
  size_t shown = 0;
  for (const Notification& n : m.notifications) {
    if (text.size() > kSlackTextLimit) {  // Slack truncates long messages: say what is left out
      text += "\n\n_... and " + std::to_string(m.notifications.size() - shown) +
              " more notifications: see the dashboard_";
      break;
    }
    ++shown;
    if (!text.empty()) text += "\n\n";
    text += "*" + SlackEscape(n.title) + "*\n" + SlackEscape(n.text);
    if (!n.url.empty()) {
      auto ticket = n.labels.find("ticket");
      text += "\n<" + n.url + "|" +
              (ticket == n.labels.end() ? std::string("Dashboard") : "Ticket #" + ticket->second) +
              ">";
    }
  }
  return {{"text", text}};
}

Message TestMessage(const std::string& fabric, const std::string& receiver,
                    const std::string& dashboard_url, TimePoint now) {
  Message m;
  m.idempotency_key = "test-" + RandomHex(12);
  m.fabric = fabric;
  m.receiver = receiver;
  Notification n;
  n.kind = "test";
  n.severity = "info";
  n.title = "Test message from ufm-remediator (fabric " + fabric + ")";
  n.text = "This is a test of the receiver '" + receiver +
           "', sent by 'ufm-remediator notify test'. Nothing happened on the fabric; nothing "
           "needs to be done.";
  n.at = now;
  n.url = dashboard_url;
  n.labels = {{"fabric", fabric}};
  m.notifications.push_back(std::move(n));
  return m;
}

}  // namespace ufmr
