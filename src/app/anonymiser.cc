#include "app/anonymiser.h"

#include <re2/re2.h>

#include <cctype>
#include <cstdio>

#include "base/text.h"

namespace ufmr::app {

namespace {

using nlohmann::json;

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
}

std::string Field(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The node part of a field: "leaf-a" of "leaf-a:1/1/1", "node-01" of "node-01 mlx5_0" or
// "node-01/HCA-1/1".
std::string_view Head(std::string_view s) {
  s = TrimSpace(s);
  return s.substr(0, s.find_first_of(" :/"));
}

const json& ListOf(const json& j) {
  static const json kEmpty = json::array();
  if (j.is_object() && j.contains("data") && j["data"].is_array()) return j["data"];
  return j.is_array() ? j : kEmpty;
}

bool IsAddress(std::string_view s) {
  int parts = 0, digits = 0;
  for (char c : s) {
    if (c == '.') {
      if (digits == 0) return false;
      ++parts;
      digits = 0;
    } else if (std::isdigit(static_cast<unsigned char>(c)) && ++digits <= 3) {
      continue;
    } else {
      return false;
    }
  }
  return parts == 3 && digits > 0;
}

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

uint64_t Fnv1a(std::string_view a, std::string_view b) {
  uint64_t h = 1469598103934665603ull;
  for (std::string_view s : {a, std::string_view("\x1f"), b}) {
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  return h;
}

void ApplyStrings(nlohmann::ordered_json* j, Anonymiser* a) {
  if (j->is_string()) {
    *j = a->Apply(j->get<std::string>());
  } else if (j->is_array() || j->is_object()) {
    for (auto& v : *j) ApplyStrings(&v, a);
  }
}

}  // namespace

void Anonymiser::LearnName(std::string_view name, bool is_switch) {
  // Every word of the node part ("MF0;leaf-01" is two), so no part of a name is left.
  std::string_view head = Head(name);
  size_t i = 0;
  while (i < head.size()) {
    while (i < head.size() && !IsTokenChar(head[i])) ++i;
    size_t end = i;
    while (end < head.size() && IsTokenChar(head[end])) ++end;
    std::string n = AsciiLower(head.substr(i, end - i));
    i = end;
    while (!n.empty() && n.back() == '.') n.pop_back();  // the end of a sentence
    if (n.empty() || AllDigits(n) || names_.count(n) || IsAddress(n)) continue;
    char buf[32];
    if (is_switch) {
      std::snprintf(buf, sizeof buf, "switch-%03zu", ++switches_);
    } else {
      std::snprintf(buf, sizeof buf, "host-%03zu", ++hosts_);
    }
    names_[n] = buf;
  }
}

void Anonymiser::LearnUser(std::string_view user) {
  const std::string u = AsciiLower(TrimSpace(user));
  if (u.empty() || names_.count(u)) return;
  char buf[32];
  std::snprintf(buf, sizeof buf, "user-%03zu", ++users_);
  names_[u] = buf;
}

void Anonymiser::LearnSerial(std::string_view serial) {
  const std::string s(TrimSpace(serial));
  const std::string upper = AsciiUpper(s);
  if (s.empty() || upper == "NA" || upper == "N/A" || serials_.count(s)) return;
  char buf[16];
  std::snprintf(buf, sizeof buf, "SN%08zu", serials_.size() + 1);
  serials_[s] = buf;
}

void Anonymiser::LearnAddress(std::string_view address) {
  const std::string a(address);
  if (!IsAddress(a) || a == "0.0.0.0" || a.rfind("127.", 0) == 0 || addresses_.count(a)) return;
  const size_t n = addresses_.size();
  addresses_[a] = (n < 254 ? "192.0.2." : "198.51.100.") + std::to_string(n % 254 + 1);
}

void Anonymiser::LearnSecret(std::string_view secret) {
  // Shorter than 4 bytes it would match everywhere (and be no secret worth the name).
  if (secret.size() >= 4) secrets_.emplace_back(secret);
}

void Anonymiser::LearnPorts(const json& ports) {
  // Each port's own node first, where it says whether it is a switch; then what it faces.
  for (const auto& p : ListOf(ports)) {
    if (!p.is_object()) continue;
    const bool sw = Field(p, "description") == "Switch IB Port";
    LearnName(Field(p, "system_name"), sw);
    LearnName(Field(p, "node_description"), sw);
  }
  for (const auto& p : ListOf(ports)) {
    if (!p.is_object()) continue;
    LearnName(Field(p, "peer_node_name"), false);
    LearnName(Field(p, "peer_node_description"), false);
    for (const char* ip : {"system_ip", "peer_ip"}) LearnAddress(Field(p, ip));
    LearnText(Field(p, "path"));
  }
}

void Anonymiser::LearnLinks(const json& links) {
  for (const auto& l : ListOf(links)) {
    if (!l.is_object()) continue;
    for (const char* k : {"source_port_node_description", "destination_port_node_description"}) {
      LearnName(Field(l, k), false);
    }
    LearnSerial(Field(l, "serial_number"));
    if (auto info = l.find("cable_info"); info != l.end() && info->is_object()) {
      LearnSerial(Field(*info, "serial_number"));
    }
  }
}

void Anonymiser::LearnUnhealthyPorts(const json& ports) {
  for (const auto& u : ListOf(ports)) {
    if (!u.is_object()) continue;
    for (const char* k : {"UnhealthyNode", "PeerNode", "UnhealthyPort", "PeerPort"}) {
      LearnName(Field(u, k), false);
    }
  }
}

void Anonymiser::LearnText(std::string_view text) {
  static const RE2 kNode(R"((Switch|Computer)\s*:\s*([A-Za-z0-9][A-Za-z0-9._;-]*))");
  static const RE2 kPeer(R"(Peer Port ([A-Za-z0-9][A-Za-z0-9._;-]*))");
  static const RE2 kUser(R"(\b[Uu]ser:? '?([A-Za-z0-9][A-Za-z0-9._@-]*))");
  static const RE2 kSerial(R"(S/N:\s*([A-Za-z0-9]+))");
  static const RE2 kAddress(R"((\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}))");
  re2::StringPiece in(text.data(), text.size());
  std::string kind, name;
  while (RE2::FindAndConsume(&in, kNode, &kind, &name)) LearnName(name, kind == "Switch");
  in = re2::StringPiece(text.data(), text.size());
  while (RE2::FindAndConsume(&in, kPeer, &name)) LearnName(name, false);
  in = re2::StringPiece(text.data(), text.size());
  while (RE2::FindAndConsume(&in, kUser, &name)) LearnUser(name);
  in = re2::StringPiece(text.data(), text.size());
  while (RE2::FindAndConsume(&in, kSerial, &name)) LearnSerial(name);
  in = re2::StringPiece(text.data(), text.size());
  while (RE2::FindAndConsume(&in, kAddress, &name)) LearnAddress(name);
}

std::string Anonymiser::Guid(std::string_view hex) {
  const std::string key = AsciiLower(hex);
  auto it = guids_.find(key);
  if (it != guids_.end()) return it->second;
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(Fnv1a(key_, key)));  // NOLINT(runtime/int)
  return guids_[key] = buf;
}

const std::string* Anonymiser::NameOf(const std::string& token) const {
  const std::string lower = AsciiLower(token);
  if (auto n = names_.find(lower); n != names_.end()) return &n->second;
  // "node01.cluster.local" where "node01" is known: the whole name, domain and all.
  if (size_t dot = lower.find('.'); dot != std::string::npos && dot > 0 && !IsAddress(lower)) {
    if (auto n = names_.find(lower.substr(0, dot)); n != names_.end()) return &n->second;
  }
  return nullptr;
}

std::string Anonymiser::ApplyToken(std::string_view token) {
  // A GUID: 16 hex digits, alone, after 0x, or before "_<n>" (a port name); 32 are a GID.
  const bool prefixed =
      token.size() >= 18 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X');
  const size_t start = prefixed ? 2 : 0;
  size_t hex = start;
  while (hex < token.size() && IsHex(token[hex])) ++hex;
  const size_t digits = hex - start;
  const bool port_name = digits == 16 && hex < token.size() && token[hex] == '_';
  if ((digits == 16 || digits == 32) && (hex == token.size() || port_name)) {
    const std::string_view g = token.substr(start, digits);
    if (!AllDigits(g) || prefixed || port_name) {
      bool upper = false;
      for (char c : g) upper = upper || (c >= 'A' && c <= 'F');
      std::string mapped = Guid(g.substr(0, 16)) + (digits == 32 ? Guid(g.substr(16)) : "");
      if (upper) mapped = AsciiUpper(mapped);
      return std::string(token.substr(0, start)) + mapped + std::string(token.substr(hex));
    }
  }
  // A word ending a sentence keeps its full stop.
  std::string t(token);
  std::string dots;
  while (t.size() > 1 && t.back() == '.' && !IsAddress(t)) {
    dots.push_back('.');
    t.pop_back();
  }
  if (auto s = serials_.find(t); s != serials_.end()) return s->second + dots;
  if (auto a = addresses_.find(t); a != addresses_.end()) return a->second + dots;
  if (const std::string* n = NameOf(t)) return *n + dots;
  return t + dots;
}

std::string Anonymiser::Apply(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (!IsTokenChar(text[i])) {
      out.push_back(text[i++]);
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsTokenChar(text[end])) ++end;
    out += ApplyToken(text.substr(i, end - i));
    i = end;
  }
  // A credential, wherever it stands (inside a longer word too).
  for (const auto& secret : secrets_) {
    for (size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at)) {
      out.replace(at, secret.size(), "redacted");
    }
  }
  return out;
}

std::string Anonymiser::ApplyJson(const std::string& body) {
  // Ordered: the answer keeps its fields' order.
  auto doc = nlohmann::ordered_json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Apply(body);
  ApplyStrings(&doc, this);
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

Anonymiser::Counts Anonymiser::counts() const {
  return {guids_.size(), names_.size(), serials_.size(), addresses_.size()};
}

}  // namespace ufmr::app
