// UfmAccess: who may reach the simulated UFM's REST API, and how, as UFM lets them in: basic auth
// on /ufmRest, a session cookie (from POST /dologin) on /ufmRestV2, a token (from POST
// /ufmRest/app/tokens) on /ufmRestV3, and X-Remote-User: ufmsystem with no prefix on the UFM host
// itself. Also the scripted misbehaviours of POST /sim/misbehave (HTML where JSON was expected,
// 500s, 401s, cut JSON, slow answers, and 400, 401 and 503 answers that echo the request, its
// Authorization header included, as web frameworks' error pages do), served to the next
// requests that get in. Thread-safe: one
// mutex guards the sessions, tokens and misbehaviours.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "http/http_server.h"

namespace ufmr::sim {

class UfmAccess {
 public:
  UfmAccess(std::string user, std::string password)
      : user_(std::move(user)), password_(std::move(password)) {}

  // Lets a request in or not. A UFM REST request (any prefix, or none from the UFM host) must
  // carry its prefix's credentials (else 401), takes the next scripted misbehaviour if one is
  // queued, and is rewritten to /ufmRest/...; anything else (the control API) passes untouched.
  // Returns the answer to send instead, or nullopt to go on with `request`.
  std::optional<HttpResponse> Admit(HttpRequest& request);

  // POST /dologin (form fields httpd_username, httpd_password): a session cookie.
  HttpResponse Login(const HttpRequest& request);
  // POST /ufmRest/app/tokens (reached with basic auth only): a new token.
  HttpResponse IssueToken(const HttpRequest& request);
  // POST /sim/misbehave {"mode", "count", "delay_ms"}: queues misbehaviours.
  HttpResponse Misbehave(const HttpRequest& request);

 private:
  bool BasicAuthorized(const HttpRequest& request) const;
  // Whether the request carries a session (/ufmRestV2) or a token (/ufmRestV3) issued here.
  bool HoldsSecret(const HttpRequest& request, const std::string& prefix);
  // The next queued misbehaviour's answer; nullopt when none is queued or it only slows the
  // request down (after sleeping).
  std::optional<HttpResponse> NextMisbehaviour(const HttpRequest& r);
  // An error answer that carries the request back: method, path, body and every header.
  static HttpResponse Echo(const HttpRequest& r, int status);

  struct Misbehaviour {
    std::string mode;
    int delay_ms = 0;
  };

  const std::string user_;
  const std::string password_;
  std::mutex mu_;
  std::set<std::string> sessions_;
  std::set<std::string> tokens_;
  std::deque<Misbehaviour> misbehaviours_;
  uint64_t next_secret_ = 0;
};

// Decodes standard base64 (with or without padding); nullopt on bad input.
std::optional<std::string> DecodeBase64(const std::string& in);

}  // namespace ufmr::sim
