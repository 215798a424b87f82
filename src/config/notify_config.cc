#include "config/notify_config.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <utility>

namespace ufmr {

using config_internal::Reader;

namespace {

using Receiver = Config::Notify::Receiver;
using Route = Config::Notify::Route;

constexpr int kMaxRouteDepth = 8;

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Fails on a key of the mapping `item` (at `at`) that is not in `known`.
void CheckItemKeys(Reader* r, const YAML::Node& item, const std::string& at,
                   const std::set<std::string>& known) {
  for (const auto& kv : item) {
    if (!known.count(kv.first.Scalar()))
      r->Fail(kv.first, at + "." + kv.first.Scalar(), "unknown key");
  }
}

// The keys every receiver has, then those of its type.
void ReadReceiverKeys(Reader* r, const YAML::Node& item, const std::string& at, Receiver* x) {
  static const std::pair<const char*, std::string Receiver::*> kStrings[] = {
      {"name", &Receiver::name},
      {"type", &Receiver::type},
      {"url", &Receiver::url},
      {"url_file", &Receiver::url_file},
      {"url_env", &Receiver::url_env},
      {"ca_bundle", &Receiver::ca_bundle},
      {"from", &Receiver::from},
      {"username", &Receiver::username},
      {"password_file", &Receiver::password_file},
      {"password_env", &Receiver::password_env}};
  for (const auto& [k, field] : kStrings) r->Str(item, k, at + "." + k, &(x->*field));
  r->Secs(item, "timeout_s", at + ".timeout_s", &x->timeout_s, 0.1);
  r->Bool(item, "insecure_tls", at + ".insecure_tls", &x->insecure_tls);
  r->Bool(item, "starttls", at + ".starttls", &x->starttls);
  r->Strings(item, "to", at + ".to", &x->to);
}

// An address as SMTP's envelope takes it: "name@host", no spaces, brackets or line breaks.
bool PlainAddress(const std::string& a) {
  return !a.empty() && a.find_first_of(" \t\r\n<>,;") == std::string::npos;
}

// What a receiver of its type must have, and may not have.
void CheckReceiver(Reader* r, const YAML::Node& item, const std::string& at, const Receiver& x) {
  if (x.name.empty()) r->Fail(item, at + ".name", "is required");
  if (x.type != "webhook" && x.type != "slack" && x.type != "email") {
    r->Fail(item["type"] ? item["type"] : item, at + ".type", "must be webhook, slack or email");
  }
  const int urls = !x.url.empty() + !x.url_file.empty() + !x.url_env.empty();
  if (urls != 1) r->Fail(item, at + ".url", "give exactly one of url, url_file and url_env");
  const bool email = x.type == "email";
  for (const char* k : {"from", "to", "username", "password_file", "password_env", "starttls"}) {
    if (!email && item[k]) r->Fail(item[k], at + "." + k, "is for email receivers only");
  }
  if (!email) return;
  if (x.from.empty()) r->Fail(item, at + ".from", "is required for email (the sender's address)");
  if (x.to.empty()) r->Fail(item, at + ".to", "is required for email (one address or a list)");
  if (!PlainAddress(x.from)) r->Fail(item["from"], at + ".from", "not a plain address");
  for (const std::string& a : x.to) {
    if (!PlainAddress(a)) r->Fail(item["to"], at + ".to", "'" + a + "' is not a plain address");
  }
  if (!x.password_file.empty() && !x.password_env.empty()) {
    r->Fail(item, at + ".password_file", "give one of password_file and password_env");
  }
  if (x.username.empty() && (!x.password_file.empty() || !x.password_env.empty())) {
    r->Fail(item, at + ".username", "is required with a password");
  }
}

bool ReadReceiver(Reader* r, const YAML::Node& item, const std::string& at, Receiver* x) {
  static const std::set<std::string> kKeys = {
      "name",      "type", "url", "url_file", "url_env",  "timeout_s",     "insecure_tls",
      "ca_bundle", "from", "to",  "starttls", "username", "password_file", "password_env"};
  if (!item.IsMap()) {
    r->Fail(item, at, "expected a mapping (name, type, url)");
    return false;
  }
  CheckItemKeys(r, item, at, kKeys);
  ReadReceiverKeys(r, item, at, x);
  CheckReceiver(r, item, at, *x);
  return r->error.empty();
}

// notify.receivers: a list of receivers; names unique. Empty (or an empty string, as a --set or
// a documented default gives) is none.
void ReadReceivers(Reader* r, const YAML::Node& parent, std::vector<Receiver>* out) {
  const std::string path = "notify.receivers";
  r->read.insert(path);
  YAML::Node n = parent["receivers"];
  if (!n || n.IsNull() || (n.IsScalar() && n.Scalar().empty())) return;
  if (!n.IsSequence()) return r->Fail(n, path, "expected a list of receivers (name, type, url)");
  std::set<std::string> names;
  for (size_t i = 0; i < n.size() && r->error.empty(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    Receiver x;
    if (!ReadReceiver(r, n[i], at, &x)) return;
    if (!names.insert(x.name).second) return r->Fail(n[i], at + ".name", "'" + x.name + "' twice");
    out->push_back(std::move(x));
  }
}

// A route's match or match_re: a mapping of known labels to strings (patterns for match_re).
void ReadMatchers(Reader* r, const YAML::Node& route, const char* key, const std::string& at,
                  std::map<std::string, std::string>* out) {
  const YAML::Node n = route[key];
  if (!n || n.IsNull()) return;
  const std::string path = at + "." + key;
  if (!n.IsMap()) return r->Fail(n, path, "expected a mapping of labels to values");
  const auto& labels = NotifyLabelNames();
  for (const auto& kv : n) {
    const std::string label = kv.first.Scalar();
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) {
      return r->Fail(kv.first, path + "." + label, "unknown label (docs/NOTIFY.md lists them)");
    }
    if (!kv.second.IsScalar()) return r->Fail(kv.second, path + "." + label, "expected a string");
    if (std::string(key) == "match_re") {
      re2::RE2 re(kv.second.Scalar(), re2::RE2::Quiet);
      if (!re.ok())
        return r->Fail(kv.second, path + "." + label, "not an RE2 pattern: " + re.error());
    }
    (*out)[label] = kv.second.Scalar();
  }
}

void ReadRoute(Reader* r, const YAML::Node& n, const std::string& at,
               const std::set<std::string>& receivers, int depth, Route* x);

// A route's own keys; what it leaves out stays as its parent had it (*x starts as the parent).
void ReadRouteKeys(Reader* r, const YAML::Node& n, const std::string& at,
                   const std::set<std::string>& receivers, Route* x) {
  static const std::set<std::string> kKeys = {"receiver",        "match",      "match_re",
                                              "group_by",        "group_wait", "group_interval",
                                              "repeat_interval", "continue",   "routes"};
  CheckItemKeys(r, n, at, kKeys);
  r->Str(n, "receiver", at + ".receiver", &x->receiver);
  if (n["receiver"] && !receivers.count(x->receiver)) {
    r->Fail(n["receiver"], at + ".receiver", "no receiver is named '" + x->receiver + "'");
  }
  ReadMatchers(r, n, "match", at, &x->match);
  ReadMatchers(r, n, "match_re", at, &x->match_re);
  r->Strings(n, "group_by", at + ".group_by", &x->group_by);
  const auto& labels = NotifyLabelNames();
  for (const std::string& l : x->group_by) {
    if (std::find(labels.begin(), labels.end(), l) == labels.end()) {
      r->Fail(n["group_by"], at + ".group_by", "unknown label '" + l + "'");
    }
  }
  r->Secs(n, "group_wait", at + ".group_wait", &x->group_wait_s, 0);
  r->Secs(n, "group_interval", at + ".group_interval", &x->group_interval_s, 1);
  r->Secs(n, "repeat_interval", at + ".repeat_interval", &x->repeat_interval_s, 60);
  r->Bool(n, "continue", at + ".continue", &x->continue_matching);
}

void ReadRoute(Reader* r, const YAML::Node& n, const std::string& at,
               const std::set<std::string>& receivers, int depth, Route* x) {
  if (!n.IsMap()) return r->Fail(n, at, "expected a mapping (receiver, match, routes, ...)");
  if (depth > kMaxRouteDepth) {
    return r->Fail(n, at, "routes nest deeper than " + std::to_string(kMaxRouteDepth));
  }
  ReadRouteKeys(r, n, at, receivers, x);
  const YAML::Node children = n["routes"];
  if (!children || children.IsNull()) return;
  if (!children.IsSequence()) return r->Fail(children, at + ".routes", "expected a list of routes");
  for (size_t i = 0; i < children.size() && r->error.empty(); ++i) {
    Route child;  // inherits receiver, group_by and the timings, not matchers or children
    child.receiver = x->receiver;
    child.group_by = x->group_by;
    child.group_wait_s = x->group_wait_s;
    child.group_interval_s = x->group_interval_s;
    child.repeat_interval_s = x->repeat_interval_s;
    ReadRoute(r, children[i], at + ".routes[" + std::to_string(i) + "]", receivers, depth + 1,
              &child);
    x->routes.push_back(std::move(child));
  }
}

// Without a route in the file: each receiver hears of everything.
Route EveryReceiver(const std::vector<Receiver>& receivers) {
  Route root;
  for (const Receiver& x : receivers) {
    Route child;
    child.receiver = x.name;
    child.continue_matching = true;
    root.routes.push_back(std::move(child));
  }
  return root;
}

// The line a file or variable holds (a URL or a password), or an error naming the key.
Status ReadSecret(const std::string& at, const std::string& file, const std::string& env,
                  const char* file_key, const char* env_key, std::string* out) {
  if (!env.empty()) {
    const char* v = std::getenv(env.c_str());
    if (!v)
      return Status::InvalidArgument(at + "." + env_key + ": variable " + env + " is not set");
    *out = v;
  }
  if (!file.empty()) {
    std::ifstream in(file);
    std::string line;
    if (!in || !std::getline(in, line)) {
      return Status::InvalidArgument(at + "." + file_key + ": cannot read " + file);
    }
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    *out = line;
  }
  return Status::Ok();
}

}  // namespace

const std::vector<std::string>& NotifyLabelNames() {
  static const std::vector<std::string> names = {"kind", "severity", "rule", "fabric", "switch",
                                                 "rack", "host",     "port", "ticket", "input"};
  return names;
}

void ReadNotifyConfig(Reader* r, const YAML::Node& n, Config::Notify* x) {
  r->Str(n, "dashboard_url", "notify.dashboard_url", &x->dashboard_url);
  if (!x->dashboard_url.empty() && !StartsWith(x->dashboard_url, "http://") &&
      !StartsWith(x->dashboard_url, "https://")) {
    r->Fail(n["dashboard_url"], "notify.dashboard_url", "must start with http:// or https://");
  }
  ReadReceivers(r, n, &x->receivers);
  r->Secs(n, "retry_max_s", "notify.retry_max_s", &x->retry_max_s, 1);
  r->Secs(n, "give_up_after_s", "notify.give_up_after_s", &x->give_up_after_s, 60);
  r->read.insert("notify.route");
  std::set<std::string> names;
  for (const Receiver& x_ : x->receivers) names.insert(x_.name);
  const YAML::Node route = n["route"];
  if (!route || route.IsNull() || (route.IsScalar() && route.Scalar().empty())) {
    x->route = EveryReceiver(x->receivers);
    return;
  }
  x->route = Route();
  ReadRoute(r, route, "notify.route", names, 0, &x->route);
  if (route.IsMap() && (route["match"] || route["match_re"])) {
    r->Fail(route, "notify.route",
            "the root route takes everything: put match and match_re on its routes");
  }
}

Status ReadNotifySecrets(const std::string& name, Config::Notify* n) {
  for (size_t i = 0; i < n->receivers.size(); ++i) {
    Receiver& x = n->receivers[i];
    const std::string at = name + ": notify.receivers[" + std::to_string(i) + "]";
    if (Status s = ReadSecret(at, x.url_file, x.url_env, "url_file", "url_env", &x.url); !s.ok()) {
      return s;
    }
    if (Status s = ReadSecret(at, x.password_file, x.password_env, "password_file", "password_env",
                              &x.password);
        !s.ok()) {
      return s;
    }
    const bool email = x.type == "email";
    if (email && !StartsWith(x.url, "smtp://") && !StartsWith(x.url, "smtps://")) {
      return Status::InvalidArgument(at +
                                     ": an email receiver's URL must start with smtp:// or "
                                     "smtps://");
    }
    if (email && StartsWith(x.url, "smtp://") && !x.starttls && !x.username.empty()) {
      return Status::InvalidArgument(at +
                                     ".starttls: false with a username would send the password "
                                     "in the clear; use STARTTLS or smtps://");
    }
    if (!email && !StartsWith(x.url, "http://") && !StartsWith(x.url, "https://")) {
      return Status::InvalidArgument(at + ": the URL must start with http:// or https://");
    }
  }
  return Status::Ok();
}

}  // namespace ufmr
