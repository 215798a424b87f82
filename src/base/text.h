// Small ASCII text helpers shared by every stage: case folding and trimming for protocol words,
// header names and column names (never for text meant for people, which may be any UTF-8). Pure
// functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace ufmr {

// s with ASCII letters folded to lower (upper) case; other bytes unchanged, whatever the locale.
std::string AsciiLower(std::string_view s);
std::string AsciiUpper(std::string_view s);
// The same, in place (no copy: a parser folding 100,000 names).
void AsciiLowerInPlace(std::string* s);

// s without leading and trailing spaces and tabs.
std::string_view TrimBlanks(std::string_view s);
// s without leading and trailing ASCII white space (space, tab, CR, LF, VT, FF).
std::string_view TrimSpace(std::string_view s);

// Standard base64 with padding (RFC 4648): MIME words, HTTP basic credentials.
std::string Base64Encode(std::string_view in);

// Levenshtein distance of two short texts (bytes), for "did you mean".
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace ufmr
