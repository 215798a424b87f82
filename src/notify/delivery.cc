#include "notify/delivery.h"

#include <chrono>

#include "config/secret_mask.h"
#include "notify/email.h"
#include "ufm/http_client.h"

namespace ufmr {

namespace {

// `text` with the receiver's URL, and every configured secret, masked: a receiver may echo them.
std::string Redacted(std::string text, const std::string& url) {
  if (!url.empty()) {
    for (size_t at = text.find(url); at != std::string::npos; at = text.find(url, at)) {
      text.replace(at, url.size(), "<url>");
    }
  }
  return SecretMask::Global().Mask(text);
}

// The start of a refusal's body, masked before it is cut, on one line, for the error message.
std::string Snippet(const std::string& body) {
  std::string out = SecretMask::Global().Excerpt(body, 200);
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
  std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  SecretMask::Global().MaskInPlace(&text);  // what a message quotes never carries a secret
  auto answer = client.Post(receiver.url, text);
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
