#include "core/db_url.h"

#include <cctype>
#include <set>

namespace ufmr {

namespace {

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The password as written in the URL (before decoding), or "".
std::string RawPassword(const std::string& url) {
  for (const char* scheme : {"postgresql://", "postgres://"}) {
    if (url.rfind(scheme, 0) != 0) continue;
    std::string rest = url.substr(std::string(scheme).size());
    size_t at =
        rest.rfind('@', rest.find_first_of("/?") == std::string::npos ? std::string::npos
                                                                      : rest.find_first_of("/?"));
    if (at == std::string::npos) return "";
    std::string userinfo = rest.substr(0, at);
    size_t colon = userinfo.find(':');
    return colon == std::string::npos ? "" : userinfo.substr(colon + 1);
  }
  // Keyword form: ... password=secret ... or password='se cret'.
  size_t p = url.find("password=");
  while (p != std::string::npos && p > 0 && !std::isspace(static_cast<unsigned char>(url[p - 1])) &&
         url[p - 1] != '&' && url[p - 1] != '?') {
    p = url.find("password=", p + 1);
  }
  if (p == std::string::npos) return "";
  size_t start = p + 9;
  if (start < url.size() && url[start] == '\'') {
    size_t end = start + 1;
    std::string out;
    while (end < url.size() && url[end] != '\'') {
      if (url[end] == '\\' && end + 1 < url.size()) ++end;
      out += url[end++];
    }
    return out;
  }
  size_t end = url.find_first_of(" \t&", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

void ReplaceAll(std::string& text, const std::string& what) {
  if (what.empty()) return;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 3)) {
    text.replace(p, what.size(), "***");
  }
}

}  // namespace

std::string DatabasePassword(const std::string& url) { return PercentDecode(RawPassword(url)); }

std::string RedactDatabasePassword(std::string text, const std::string& url) {
  const std::string raw = RawPassword(url);
  // Longest first, so a decoded form that contains the raw one (or the reverse) goes whole.
  std::set<std::string, bool (*)(const std::string&, const std::string&)> forms(
      [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() > b.size() : a < b;
      });
  forms.insert(raw);
  forms.insert(PercentDecode(raw));
  for (const auto& f : forms) ReplaceAll(text, f);
  return text;
}

}  // namespace ufmr
