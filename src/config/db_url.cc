#include "config/db_url.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

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

// The keyword form's password (`password=secret` or `password='se cret'`), or "".
std::string KeywordPassword(const std::string& url) {
  size_t p = url.find("password=");
  while (p != std::string::npos && p > 0 && !std::isspace(static_cast<unsigned char>(url[p - 1]))) {
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
  size_t end = url.find_first_of(" \t", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The passwords a URI may carry, as written (not decoded): the one libpq reads from the user
// info (which ends at the first '@' before any '/'), the text up to the last '@' (what a person
// who put an '@' in the password meant) and the part of it libpq takes for the host, and each
// `password=` query parameter.
std::vector<std::string> UriPasswords(const std::string& url, bool* is_uri) {
  std::vector<std::string> out;
  *is_uri = false;
  for (const char* scheme : {"postgresql://", "postgres://"}) {
    if (url.rfind(scheme, 0) != 0) continue;
    *is_uri = true;
    const std::string rest = url.substr(std::string(scheme).size());
    const size_t slash = rest.find('/');
    const std::string authority = rest.substr(0, slash);
    const size_t first_at = authority.find('@');
    if (first_at != std::string::npos) {
      const std::string userinfo = authority.substr(0, first_at);
      const size_t colon = userinfo.find(':');
      if (colon != std::string::npos) out.push_back(userinfo.substr(colon + 1));
      const size_t last_at = authority.rfind('@');
      const size_t colon_all = authority.find(':');
      if (last_at != first_at && colon_all < last_at) {
        // What was meant as the password, and its tail, which libpq takes for the host.
        out.push_back(authority.substr(colon_all + 1, last_at - colon_all - 1));
        out.push_back(authority.substr(first_at + 1, last_at - first_at - 1));
      }
    }
    const size_t query = rest.find('?');
    if (query != std::string::npos) {
      std::string q = rest.substr(query + 1);
      size_t pos = 0;
      while (pos <= q.size()) {
        size_t amp = q.find('&', pos);
        std::string kv = q.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
        if (kv.rfind("password=", 0) == 0) out.push_back(kv.substr(9));
        if (amp == std::string::npos) break;
        pos = amp + 1;
      }
    }
    break;
  }
  return out;
}

// Every form of every password the string may hold, as written and decoded, longest first.
std::vector<std::string> SecretForms(const std::string& url) {
  bool is_uri = false;
  std::vector<std::string> raw = UriPasswords(url, &is_uri);
  if (!is_uri) raw.push_back(KeywordPassword(url));
  std::set<std::string> forms;
  for (const auto& r : raw) {
    if (r.empty()) continue;
    forms.insert(r);
    forms.insert(PercentDecode(r));
  }
  std::vector<std::string> out(forms.begin(), forms.end());
  std::sort(out.begin(), out.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

void ReplaceAll(std::string& text, const std::string& what) {
  if (what.empty()) return;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 3)) {
    text.replace(p, what.size(), "***");
  }
}

}  // namespace

std::vector<std::string> DatabasePasswordForms(const std::string& url) { return SecretForms(url); }

std::string DatabasePassword(const std::string& url) {
  bool is_uri = false;
  std::vector<std::string> uri = UriPasswords(url, &is_uri);
  if (!is_uri) return KeywordPassword(url);
  return uri.empty() ? "" : PercentDecode(uri.front());
}

std::string RedactDatabasePassword(std::string text, const std::string& url) {
  for (const auto& form : SecretForms(url)) ReplaceAll(text, form);
  return text;
}

}  // namespace ufmr
