#include "ufm/ufm_json.h"

#include <algorithm>
#include <cctype>

#include "base/utf8.h"

namespace ufmr {

Result<nlohmann::json> ParseUfmList(const std::string& body, const std::string& what,
                                    const std::vector<std::string>& keep) {
  std::string clean;  // only when the body needs it: a copy of a 60 MB answer is not free
  const bool replaced =
      FirstInvalidUtf8(body) != std::string_view::npos && SanitizeUtf8(body, &clean);
  nlohmann::json::parser_callback_t filter = nullptr;
  if (!keep.empty()) {
    // Keys of the top level (a {"data": [...]} wrapper) stay; deeper ones only if listed.
    filter = [&keep](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      if (event != nlohmann::json::parse_event_t::key || depth <= 1) return true;
      const auto& key = parsed.get_ref<const std::string&>();
      return std::find(keep.begin(), keep.end(), key) != keep.end();
    };
  }
  nlohmann::json doc = nlohmann::json::parse(replaced ? clean : body, filter, false);
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
