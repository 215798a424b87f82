// UTF-8 hygiene for text from UFM: invalid byte sequences (and NULs) become U+FFFD, so every
// string the service stores or serves is valid UTF-8 (safe for JSON and PostgreSQL) and one odd
// byte never costs a whole input. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ufmr {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is invalid (or a NUL).
size_t Utf8SequenceLength(std::string_view s, size_t i);

// The position of the first byte from `from` on that starts no valid UTF-8 sequence (or is a
// NUL), or npos when there is none. ASCII is checked 8 bytes at a time.
size_t FirstInvalidUtf8(std::string_view s, size_t from = 0);

// Copies s into *out with every invalid byte and every NUL replaced by U+FFFD. Returns true if
// anything was replaced.
bool SanitizeUtf8(std::string_view s, std::string* out);

// Text from a request, made safe to write into a log line: valid UTF-8 (as SanitizeUtf8), every
// control character (a newline would forge a line) and backslash written as \xNN, at most `max`
// bytes of the input (cut on a character boundary, then "...").
std::string ForLog(std::string_view s, size_t max = 64);

}  // namespace ufmr
