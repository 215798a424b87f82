#include "notify/email.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <mutex>

#include "base/text.h"
#include "config/secret_mask.h"

namespace ufmr {

namespace {

// One line of a header: no line breaks (a title must not add headers).
std::string HeaderSafe(std::string s) {
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

bool IsAscii(const std::string& s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

// A subject with non-ASCII characters as RFC 2047 encoded words, each of at most 45 bytes of
// text (75 characters encoded) and never splitting a character, on folded lines.
std::string SubjectHeader(const std::string& subject) {
  const std::string s = HeaderSafe(subject);
  if (IsAscii(s)) return s;
  std::string out;
  size_t at = 0;
  while (at < s.size()) {
    size_t end = std::min(s.size(), at + 45);
    while (end < s.size() && end > at + 1 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) {
      --end;  // not in the middle of a UTF-8 sequence
    }
    out += (out.empty() ? "" : "\n ") + std::string("=?UTF-8?B?") +
           Base64Encode(s.substr(at, end - at)) + "?=";
    at = end;
  }
  return out;
}

std::string Subject(const Message& m) {
  if (m.notifications.empty()) return "[ufm-remediator] (no notifications)";
  const std::string first = m.notifications.front().title;
  if (m.notifications.size() == 1) return "[ufm-remediator] " + first;
  return "[ufm-remediator] " + std::to_string(m.notifications.size()) + " notifications: " + first +
         ", ...";
}

std::string RfcDate(TimePoint now) {
  const std::time_t t = std::chrono::system_clock::to_time_t(
      std::chrono::time_point_cast<std::chrono::system_clock::duration>(now));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

// The text with CRLF line ends.
std::string Crlf(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\r') continue;
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

std::string Body(const Message& m) {
  std::string out;
  for (const Notification& n : m.notifications) {
    const std::string title = HeaderSafe(n.title);
    out += title + "\n" + std::string(std::min<size_t>(title.size(), 72), '-') + "\n";
    out += n.text + "\n";
    if (!n.url.empty()) out += "\n" + n.url + "\n";
    std::string labels;
    for (const auto& [k, v] : n.labels) labels += (labels.empty() ? "" : ", ") + k + "=" + v;
    out += "\n(" + n.severity + ", at " + FormatIsoTime(n.at) + "; " + labels + ")\n\n";
  }
  out += "-- \nSent by ufm-remediator for fabric " + m.fabric + " to receiver '" + m.receiver +
         "'; message " + m.idempotency_key + ".\n";
  return out;
}

struct Upload {
  std::string data;
  size_t at = 0;
};

size_t ReadUpload(char* buf, size_t size, size_t nmemb, void* user) {
  auto* u = static_cast<Upload*>(user);
  const size_t n = std::min(size * nmemb, u->data.size() - u->at);
  std::memcpy(buf, u->data.data() + u->at, n);
  u->at += n;
  return n;
}

// What a failed send means: worth retrying or not, in one line.
DeliveryResult Failure(CURLcode code, long reply, const char* detail) {
  DeliveryResult r;
  r.http_status = reply;
  // A 4xx reply is temporary, even to AUTH (454); a 5xx, refused credentials (535) or a server
  // without STARTTLS will not change by trying again.
  const bool temporary = reply >= 400 && reply < 500;
  const bool refused = !temporary && (code == CURLE_LOGIN_DENIED || code == CURLE_USE_SSL_FAILED ||
                                      (reply >= 500 && reply < 600));
  r.retryable = !refused;
  r.error = SecretMask::Global().Mask(std::string("SMTP: ") +
                                      (detail && *detail ? detail : curl_easy_strerror(code)));
  if (reply > 0) r.error += " (reply " + std::to_string(reply) + ")";
  return r;
}

void SetTls(CURL* c, const Config::Notify::Receiver& x) {
  const bool implicit = x.url.rfind("smtps://", 0) == 0;
  curl_easy_setopt(c, CURLOPT_USE_SSL,
                   implicit || x.starttls ? static_cast<long>(CURLUSESSL_ALL)
                                          : static_cast<long>(CURLUSESSL_NONE));
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, x.insecure_tls ? 0L : 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, x.insecure_tls ? 0L : 2L);
  if (!x.ca_bundle.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, x.ca_bundle.c_str());
}

}  // namespace

std::string EmailText(const Config::Notify::Receiver& x, const Message& m, TimePoint now) {
  std::string to;
  for (const std::string& a : x.to) to += (to.empty() ? "" : ", ") + HeaderSafe(a);
  std::string head =
      "From: " + HeaderSafe(x.from) + "\nTo: " + to +
      "\nSubject: " + SubjectHeader(SecretMask::Global().Mask(Subject(m))) +
      "\nDate: " + RfcDate(now) + "\nMessage-ID: <" + HeaderSafe(m.idempotency_key) +
      "@ufm-remediator>" + "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8" +
      "\nContent-Transfer-Encoding: 8bit\nX-UFM-Remediator-Fabric: " + HeaderSafe(m.fabric) +
      "\n\n";
  return Crlf(head + SecretMask::Global().Mask(Body(m)));  // what it quotes carries no secret
}

DeliveryResult SendEmail(const Config::Notify::Receiver& x, const Message& m) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CURL* c = curl_easy_init();
  if (!c) return Failure(CURLE_FAILED_INIT, 0, "cannot start libcurl");
  Upload upload{EmailText(x, m, std::chrono::system_clock::now()), 0};
  const std::string from = "<" + x.from + ">";
  curl_slist* rcpt = nullptr;
  for (const std::string& a : x.to) rcpt = curl_slist_append(rcpt, ("<" + a + ">").c_str());
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_URL, x.url.c_str());
  curl_easy_setopt(c, CURLOPT_MAIL_FROM, from.c_str());
  curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
  curl_easy_setopt(c, CURLOPT_READFUNCTION, ReadUpload);
  curl_easy_setopt(c, CURLOPT_READDATA, &upload);
  curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  const long timeout_ms = static_cast<long>(x.timeout_s * 1000);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 5000L));
  SetTls(c, x);
  if (!x.username.empty()) {
    curl_easy_setopt(c, CURLOPT_USERNAME, x.username.c_str());
    curl_easy_setopt(c, CURLOPT_PASSWORD, x.password.c_str());
  }
  const CURLcode code = curl_easy_perform(c);
  long reply = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply);
  curl_slist_free_all(rcpt);
  curl_easy_cleanup(c);
  if (code != CURLE_OK) return Failure(code, reply, error);
  DeliveryResult r;
  r.ok = true;
  r.http_status = reply;
  return r;
}

}  // namespace ufmr
