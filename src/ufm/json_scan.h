// JsonScan: a pull reader of JSON text, for UFM's large answers (100,000 ports of some 30 fields
// each): the caller walks the document and keeps the fields it wants, and everything else is
// checked and skipped without building a tree. The whole text is validated as it is walked (RFC
// 8259 grammar; strings' escapes decoded, surrogate pairs joined); the first error stops the scan
// and is kept, with its byte offset. Works on text the caller owns; not thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ufmr {

class JsonScan {
 public:
  enum class Kind { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull, kEnd, kBad };

  explicit JsonScan(std::string_view text) : text_(text) {}

  // The kind of the next value (whitespace skipped), without consuming it.
  Kind Peek();
  // Consumes `open` ('{' or '['): true when the container has a first member, false when it is
  // empty (its close consumed too) or on an error.
  bool Enter(char open);
  // After a member: consumes ',' (true: another follows) or `close` (false).
  bool Next(char close);
  // An object's key and its ':'.
  bool Key(std::string* key);
  // A string value, decoded.
  bool String(std::string* out);
  // A value as text: a string decoded, a number as written, true or false, null as "", an object
  // or array as its JSON without whitespace.
  bool Text(std::string* out);
  // Checks and skips one value.
  bool Skip();
  // Only whitespace is left (the document ends after its one value).
  bool AtEnd();

  bool failed() const { return !error_.empty(); }
  // "at byte N: what", or "" while nothing failed.
  std::string error() const;

 private:
  void SkipSpace();
  bool Fail(const char* what);
  bool Expect(char c);
  bool ScanString(std::string* out);  // out may be null: checked, not kept
  bool ScanNumber();
  bool ScanLiteral(std::string_view word);
  bool SkipValue(int depth);
  bool Escape(std::string* out);

  std::string_view text_;
  size_t pos_ = 0;
  size_t error_at_ = 0;
  std::string error_;
};

}  // namespace ufmr
