// Request bodies of the HTTP API, read as JSON. A body is parsed only when its arrays and objects
// nest at most kMaxBodyDepth deep: the audit log's scrubbing and JSON serialization walk a value
// recursively, and a hostile body of a megabyte of '[' would otherwise exhaust the stack (and
// build a million-node tree) before any check ran. Also the shared readers of the API's
// mutations: a JSON object with only known keys, a string field, a new silence, and the {id} of a
// path.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "decide/silence.h"
#include "http/http_server.h"

namespace ufmr {

// No request the API takes nests deeper than 2; 32 leaves room and bounds the recursion.
inline constexpr int kMaxBodyDepth = 32;

// How deep arrays and objects nest in `text` (0 for a scalar), counting brackets outside strings;
// stops at `stop_above` + 1. Not a validation: the text may still be invalid JSON.
int JsonDepth(std::string_view text, int stop_above);

// `text` parsed; discarded (is_discarded()) when it is not JSON or nests deeper than
// kMaxBodyDepth.
nlohmann::json ParseBodyJson(std::string_view text);

// A JSON object body in which only `allowed` keys may appear ("" counts as {}); string values
// must be free of NUL characters. The error names the fields expected and shows `example`.
Result<nlohmann::json> ReadObject(std::string_view text,
                                  std::initializer_list<std::string_view> allowed,
                                  const std::string& example);

// body[key] as a string into *out; left alone if absent; an error if not a string.
Status StringField(const nlohmann::json& body, const char* key, std::string* out);

// The {id} of a ticket, an alert or a silence: a positive integer (InvalidArgument otherwise).
Result<int64_t> PathId(const HttpRequest& req);

// A silence lasts at most this long, so a forgotten one ends by itself.
inline constexpr double kMaxSilenceSeconds = 30 * 86400;

// The body of POST /api/silences as a Silence created at `now` (validated).
Result<Silence> ReadNewSilence(std::string_view text, TimePoint now);

}  // namespace ufmr
