#include "ufm/ufm_json.h"

#include <algorithm>
#include <cctype>

#include "base/utf8.h"

namespace ufmr {

Result<nlohmann::json> ParseUfmList(const std::string& body, const std::string& what) {
  std::string clean;  // only when the body needs it: a copy of a 60 MB answer is not free
  const bool replaced =
      FirstInvalidUtf8(body) != std::string_view::npos && SanitizeUtf8(body, &clean);
  nlohmann::json doc = nlohmann::json::parse(replaced ? clean : body, nullptr, false);
  if (doc.is_discarded()) return Status::InvalidArgument(what + " response is not valid JSON");
  if (doc.is_object() && doc.contains("data")) doc = std::move(doc["data"]);
  if (!doc.is_array()) return Status::InvalidArgument(what + " response is not a JSON array");
  return doc;
}

std::string JsonText(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace ufmr
