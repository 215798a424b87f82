// Email over SMTP: a Message as a plain-text mail (RFC 5322: a subject that says what happened,
// one paragraph per notification with its link, a Message-ID made of the idempotency key, so a
// mail sent twice is known as one), and its delivery through libcurl's SMTP: STARTTLS required on
// smtp:// unless the receiver says starttls: false, implicit TLS on smtps://, authentication when
// a username is set. Says whether a failure is worth retrying (no connection, a timeout, an SMTP
// 4xx reply) or not (a 5xx reply, refused credentials, a server without STARTTLS). Blocking; safe
// to call from any thread.
#pragma once

#include <string>

#include "base/clock.h"
#include "config/config.h"
#include "notify/delivery.h"
#include "notify/message.h"

namespace ufmr {

// The mail as sent (headers and body, CRLF line ends).
std::string EmailText(const Config::Notify::Receiver& receiver, const Message& message,
                      TimePoint now);

DeliveryResult SendEmail(const Config::Notify::Receiver& receiver, const Message& message);

}  // namespace ufmr
