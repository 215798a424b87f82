#include "notify/delivery.h"

#include <chrono>

#include "notify/email.h"
#include "ufm/http_client.h"

namespace ufmr {

namespace {

// `text` with every occurrence of `secret` replaced.
std::string Redacted(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
    text.replace(at, secret.size(), "<url>");
  }
  return text;
}

// The start of a refusal's body, on one line, for the error message.
std::string Snippet(const std::string& body) {
  std::string out = body.substr(0, 200);
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

}  // namespace

DeliveryResult Deliver(const Config::Notify::Receiver& receiver, const Message& message) {
  if (receiver.type == "email") return SendEmail(receiver, message);
  HttpClientOptions options;
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(receiver.timeout_s * 1000));
  options.timeout = timeout;
  options.connect_timeout = std::min(timeout, std::chrono::milliseconds(5000));
  options.verify_tls = !receiver.insecure_tls;
  options.ca_bundle = receiver.ca_bundle;
  options.headers["Idempotency-Key"] = message.idempotency_key;
  HttpClient client(options);
  const nlohmann::json body = receiver.type == "slack" ? SlackBody(message) : WebhookBody(message);
  auto answer = client.Post(receiver.url,
                            body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  DeliveryResult r;
  if (!answer.ok()) {
    r.retryable = true;
    r.error = Redacted(answer.status().message(), receiver.url);
    return r;
  }
  r.http_status = answer->status;
  r.ok = r.http_status >= 200 && r.http_status < 300;
  if (!r.ok) {
    r.retryable = r.http_status == 408 || r.http_status == 429 || r.http_status >= 500;
    r.error = "HTTP " + std::to_string(r.http_status) +
              (answer->body.empty() ? "" : ": " + Snippet(answer->body));
  }
  return r;
}

}  // namespace ufmr
