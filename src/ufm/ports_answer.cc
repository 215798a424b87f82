#include "ufm/ports_answer.h"

#include <charconv>

#include "base/utf8.h"
#include "ufm/json_scan.h"

namespace ufmr {

namespace {

std::string PortInfo::*FieldOf(std::string_view key) {
  for (const auto& k : kUfmPortKeys) {
    if (k.key.size() == key.size() && k.key == key) return k.field;
  }
  return nullptr;
}

// An integer as a document tree reads one ("3", "-3"; not "3.0" nor "3e0"), into an int.
void IntegerText(const std::string& raw, int* out) {
  if (raw.find_first_of(".eE") != std::string::npos) return;
  long long v = 0;
  auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
  if (ec == std::errc() && end == raw.data() + raw.size()) *out = static_cast<int>(v);
}

// Reads a list's elements into a table: one PortInfo, its strings' room kept from port to port.
class ListReader {
 public:
  ListReader(JsonScan& s, PortTable* out, int* bad) : s_(s), out_(out), bad_(bad) {}

  // The list at the scan's position; false when the text is broken.
  bool Read() {
    *out_ = PortTable();
    *bad_ = 0;
    if (!s_.Enter('[')) return !s_.failed();
    do {
      if (!Element()) return false;
    } while (s_.Next(']'));
    return !s_.failed();
  }

 private:
  bool Element() {
    if (s_.Peek() != JsonScan::Kind::kObject) {
      ++*bad_;
      return s_.Skip();
    }
    for (const auto& k : kUfmPortKeys) (port_.*k.field).clear();
    port_.number = 0;
    if (s_.Enter('{')) {
      do {
        if (!s_.Key(&key_) || !Member()) return false;
      } while (s_.Next('}'));
    }
    if (s_.failed()) return false;
    if (FinishPort(&port_).ok()) {
      out_->Add(port_);
    } else {
      ++*bad_;
    }
    return true;
  }

  bool Member() {
    if (auto field = FieldOf(key_)) return s_.Text(&(port_.*field));
    if (key_ != "number") return s_.Skip();
    const bool number = s_.Peek() == JsonScan::Kind::kNumber;
    if (!s_.Text(&value_)) return false;
    port_.number = 0;
    if (number) IntegerText(value_, &port_.number);
    return true;
  }

  JsonScan& s_;
  PortTable* out_;
  int* bad_;
  PortInfo port_;
  std::string key_, value_;
};

}  // namespace

Result<PortTable> ParsePortTable(std::string_view body, int* skipped) {
  std::string clean;  // only when the body needs it: a copy of a 60 MB answer is not free
  const bool replaced =
      FirstInvalidUtf8(body) != std::string_view::npos && SanitizeUtf8(body, &clean);
  JsonScan s(replaced ? std::string_view(clean) : body);
  PortTable out;
  int bad = 0;
  bool list = false;  // a list was found: bare, or as the "data" of a wrapper
  if (s.Peek() == JsonScan::Kind::kArray) {
    list = ListReader(s, &out, &bad).Read();
  } else if (s.Peek() == JsonScan::Kind::kObject) {
    std::string key;
    if (s.Enter('{')) {
      do {
        if (!s.Key(&key)) break;
        if (key == "data" && s.Peek() == JsonScan::Kind::kArray) {
          list = ListReader(s, &out, &bad).Read();  // the last "data" counts, as in a tree
        } else {
          list = list && key != "data";
          s.Skip();
        }
      } while (s.Next('}'));
    }
  } else {
    s.Skip();
  }
  if (!s.AtEnd()) {
    return Status::InvalidArgument("ports response is not valid JSON (" +
                                   (s.failed() ? s.error() : "text after the list") + ")");
  }
  if (!list) return Status::InvalidArgument("ports response is not a JSON array");
  if (skipped) *skipped = bad;
  return out;
}

}  // namespace ufmr
