#include "ufm/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace ufmr {

namespace {

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t WriteBody(char* data, size_t size, size_t nmemb, void* user) {
  static_cast<std::string*>(user)->append(data, size * nmemb);
  return size * nmemb;
}

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

size_t WriteHeader(char* data, size_t size, size_t nmemb, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * nmemb);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    (*headers)[name] = Trim(line.substr(colon + 1));
  }
  return size * nmemb;
}

}  // namespace

std::string HttpResult::Header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

HttpClient::HttpClient(HttpClientOptions options) : options_(std::move(options)) {
  GlobalInitOnce();
  curl_ = curl_easy_init();
  if (curl_) {
    // The in-memory cookie jar (a UFM session), kept across curl_easy_reset. It is switched on by
    // adding a cookie and clearing the jar: CURLOPT_COOKIEFILE "" would also do it, but
    // curl_easy_reset drops that setting's list without freeing it (a leak per request).
    curl_easy_setopt(curl_, CURLOPT_COOKIELIST, "Set-Cookie: ufmr_jar=on");
    curl_easy_setopt(curl_, CURLOPT_COOKIELIST, "ALL");
  }
}

HttpClient::~HttpClient() {
  if (curl_) curl_easy_cleanup(static_cast<CURL*>(curl_));
}

Result<HttpResult> HttpClient::Get(const std::string& url) {
  return Perform("GET", url, nullptr, nullptr);
}

Result<HttpResult> HttpClient::Post(const std::string& url, const std::string& json_body) {
  return Perform("POST", url, &json_body, "application/json");
}

Result<HttpResult> HttpClient::Put(const std::string& url, const std::string& json_body) {
  return Perform("PUT", url, &json_body, "application/json");
}

Result<HttpResult> HttpClient::PostForm(const std::string& url, const std::string& form) {
  return Perform("POST", url, &form, "application/x-www-form-urlencoded");
}

void HttpClient::SetHeader(const std::string& name, const std::string& value) {
  options_.headers[name] = value;
}

Result<HttpResult> HttpClient::Perform(const std::string& method, const std::string& url,
                                       const std::string* body, const char* content_type) {
  last_failure_before_send_ = false;
  if (!curl_) return Status::Internal("curl handle could not be created");
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);
  HttpResult result;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout.count()));
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
  if (!options_.ca_bundle.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, options_.ca_bundle.c_str());
  if (!options_.basic_user.empty()) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(c, CURLOPT_USERNAME, options_.basic_user.c_str());
    curl_easy_setopt(c, CURLOPT_PASSWORD, options_.basic_password.c_str());
  }
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &result.headers);
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : options_.headers)
    headers = curl_slist_append(headers, (k + ": " + v).c_str());
  if (body) {
    headers = curl_slist_append(headers, (std::string("Content-Type: ") + content_type).c_str());
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body->c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body->size()));
  }
  if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  CURLcode rc = curl_easy_perform(c);
  if (headers) curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    last_failure_before_send_ = rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                                rc == CURLE_COULDNT_RESOLVE_PROXY;
    return Status::Unavailable(method + " " + url + ": " + curl_easy_strerror(rc));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &result.status);
  return result;
}

}  // namespace ufmr
