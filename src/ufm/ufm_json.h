// Reading UFM's JSON answers: the list a resource returns (bare, or wrapped in {"data": [...]}
// by versions that page), made valid UTF-8 first so one odd byte costs one field, not the answer;
// and the text of a field that UFM sends as a string, a number or null. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/text.h"

namespace ufmr {

// `what` names the answer in errors ("events", "links", ...). The ports answer, the largest, is
// read in one pass without a tree (ParsePortTable, ports_answer.h).
Result<nlohmann::json> ParseUfmList(const std::string& body, const std::string& what);

// The field as text: a string as is, another value as JSON ("33"), missing or null as "".
std::string JsonText(const nlohmann::json& object, const char* key);

}  // namespace ufmr
