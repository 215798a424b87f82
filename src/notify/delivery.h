// Delivery: one attempt to send one Message to one receiver: a POST of the body its type takes
// (webhook: WebhookBody; slack: SlackBody) with an Idempotency-Key header, within the receiver's
// timeout, over its TLS settings; or, for an email receiver, a mail (notify/email.h). Says whether
// a failure is worth retrying (a refused or hung connection, HTTP 408, 429 or 5xx) or not (another
// 4xx: the receiver refuses the message). Errors never show the URL (a Slack URL is a secret).
// Blocking; safe to call from any thread.
#pragma once

#include <string>

#include "config/config.h"
#include "notify/message.h"

namespace ufmr {

struct DeliveryResult {
  bool ok = false;
  long http_status = 0;  // 0: no answer
  bool retryable = false;
  std::string error;  // one line, when not ok
};

DeliveryResult Deliver(const Config::Notify::Receiver& receiver, const Message& message);

}  // namespace ufmr
