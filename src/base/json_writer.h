// JsonWriter: appends JSON text to a string as it goes, for answers too large to build as a
// nlohmann::json tree first (the ticket list: building the tree cost more than the database).
// Commas are placed by the writer; strings are escaped, and invalid UTF-8 (and NUL) becomes
// U+FFFD, as everywhere the service serves text. Not thread-safe; one per answer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ufmr {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // Inside an object: the next value's key.
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view s);
  JsonWriter& Int(int64_t v);
  // Finite numbers with up to `decimals` digits after the point (trailing zeros kept short);
  // NaN and infinities are written as null.
  JsonWriter& Number(double v, int decimals = 3);
  JsonWriter& Bool(bool v);
  JsonWriter& Null();
  // A string, or null when it is empty.
  JsonWriter& StringOrNull(std::string_view s) { return s.empty() ? Null() : String(s); }

  // Room for n more characters, so a large answer does not grow its text step by step.
  void Reserve(size_t n) { out_.reserve(out_.size() + n); }

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

  // s as a JSON string literal (with quotes), escaped and UTF-8-clean.
  static void AppendQuoted(std::string_view s, std::string* out);

 private:
  void BeforeValue();
  std::string out_;
  std::vector<bool> first_;  // per open object/array: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace ufmr
