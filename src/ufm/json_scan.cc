#include "ufm/json_scan.h"

namespace ufmr {

namespace {

constexpr int kMaxDepth = 256;  // deeper nesting is refused, not recursed into

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp == 0) cp = 0xFFFD;  // a NUL is no text the service keeps (base/utf8.h)
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

std::string JsonScan::error() const {
  return error_.empty() ? "" : "at byte " + std::to_string(error_at_) + ": " + error_;
}

bool JsonScan::Fail(const char* what) {
  if (error_.empty()) {
    error_ = what;
    error_at_ = pos_;
  }
  pos_ = text_.size();  // nothing more is read
  return false;
}

void JsonScan::SkipSpace() {
  while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
}

bool JsonScan::Expect(char c) {
  SkipSpace();
  if (pos_ < text_.size() && text_[pos_] == c) {
    ++pos_;
    return true;
  }
  return Fail(c == ':' ? "':' expected" : "unexpected character");
}

JsonScan::Kind JsonScan::Peek() {
  if (failed()) return Kind::kBad;
  SkipSpace();
  if (pos_ >= text_.size()) return Kind::kEnd;
  switch (text_[pos_]) {
    case '{':
      return Kind::kObject;
    case '[':
      return Kind::kArray;
    case '"':
      return Kind::kString;
    case 't':
      return Kind::kTrue;
    case 'f':
      return Kind::kFalse;
    case 'n':
      return Kind::kNull;
    default:
      return text_[pos_] == '-' || IsDigit(text_[pos_]) ? Kind::kNumber : Kind::kBad;
  }
}

bool JsonScan::Enter(char open) {
  if (!Expect(open)) return false;
  SkipSpace();
  const char close = open == '{' ? '}' : ']';
  if (pos_ < text_.size() && text_[pos_] == close) {
    ++pos_;
    return false;
  }
  if (pos_ >= text_.size()) return Fail("unexpected end");
  return true;
}

bool JsonScan::Next(char close) {
  SkipSpace();
  if (pos_ >= text_.size()) return failed() ? false : Fail("unexpected end");
  const char c = text_[pos_++];
  if (c == ',') return true;
  if (c == close) return false;
  --pos_;
  return Fail("',' or a close expected");
}

bool JsonScan::Key(std::string* key) {
  SkipSpace();
  if (pos_ >= text_.size() || text_[pos_] != '"') return Fail("a key expected");
  return ScanString(key) && Expect(':');
}

bool JsonScan::String(std::string* out) {
  if (Peek() != Kind::kString) return Fail("a string expected");
  return ScanString(out);
}

bool JsonScan::Text(std::string* out) {
  out->clear();
  const Kind kind = Peek();
  if (kind == Kind::kString) return ScanString(out);
  if (kind == Kind::kNull) return ScanLiteral("null");
  const size_t start = pos_;
  if (!Skip()) return false;
  const std::string_view raw = text_.substr(start, pos_ - start);
  if (kind != Kind::kObject && kind != Kind::kArray) {
    out->assign(raw);
    return true;
  }
  // Without the whitespace between tokens (strings kept as written).
  bool in_string = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (in_string) {
      out->push_back(c);
      if (c == '\\') {
        out->push_back(raw[++i]);
      } else if (c == '"') {
        in_string = false;
      }
    } else if (!IsSpace(c)) {
      out->push_back(c);
      in_string = c == '"';
    }
  }
  return true;
}

bool JsonScan::Skip() { return SkipValue(0); }

bool JsonScan::AtEnd() {
  SkipSpace();
  return !failed() && pos_ == text_.size();
}

bool JsonScan::SkipValue(int depth) {
  switch (Peek()) {
    case Kind::kString:
      return ScanString(nullptr);
    case Kind::kNumber:
      return ScanNumber();
    case Kind::kTrue:
      return ScanLiteral("true");
    case Kind::kFalse:
      return ScanLiteral("false");
    case Kind::kNull:
      return ScanLiteral("null");
    case Kind::kEnd:
      return Fail("unexpected end");
    case Kind::kBad:
      return Fail("unexpected character");
    case Kind::kObject:
    case Kind::kArray:
      break;
  }
  if (depth >= kMaxDepth) return Fail("nested too deep");
  const bool object = text_[pos_] == '{';
  const char close = object ? '}' : ']';
  if (!Enter(object ? '{' : '[')) return !failed();
  do {
    if (object && !Key(nullptr)) return false;
    if (!SkipValue(depth + 1)) return false;
  } while (Next(close));
  return !failed();
}

bool JsonScan::ScanLiteral(std::string_view word) {
  if (text_.substr(pos_, word.size()) != word) return Fail("unexpected character");
  pos_ += word.size();
  return true;
}

bool JsonScan::ScanNumber() {
  const size_t start = pos_;
  auto digits = [&] {
    const size_t from = pos_;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    return pos_ > from;
  };
  if (text_[pos_] == '-') ++pos_;
  if (pos_ < text_.size() && text_[pos_] == '0') {
    ++pos_;
  } else if (!digits()) {
    return Fail("a digit expected");
  }
  if (pos_ < text_.size() && text_[pos_] == '.') {
    ++pos_;
    if (!digits()) return Fail("a digit expected after '.'");
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    if (!digits()) return Fail("a digit expected in the exponent");
  }
  return pos_ > start;
}

bool JsonScan::ScanString(std::string* out) {
  if (out) out->clear();
  ++pos_;             // the opening quote
  size_t run = pos_;  // the start of the bytes not copied yet
  while (pos_ < text_.size()) {
    const unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      if (out) out->append(text_, run, pos_ - run);
      ++pos_;
      return true;
    }
    if (c < 0x20) return Fail("a control character in a string");
    if (c != '\\') {
      ++pos_;
      continue;
    }
    if (out) out->append(text_, run, pos_ - run);
    ++pos_;
    std::string scratch;
    if (!Escape(out ? out : &scratch)) return false;
    run = pos_;
  }
  return Fail("a string without its end");
}

bool JsonScan::Escape(std::string* out) {
  if (pos_ >= text_.size()) return Fail("a string without its end");
  const char c = text_[pos_++];
  switch (c) {
    case '"':
      out->push_back('"');
      return true;
    case '\\':
      out->push_back('\\');
      return true;
    case '/':
      out->push_back('/');
      return true;
    case 'b':
      out->push_back('\b');
      return true;
    case 'f':
      out->push_back('\f');
      return true;
    case 'n':
      out->push_back('\n');
      return true;
    case 'r':
      out->push_back('\r');
      return true;
    case 't':
      out->push_back('\t');
      return true;
    case 'u':
      break;
    default:
      return Fail("an unknown escape");
  }
  auto hex4 = [&](uint32_t* v) {
    if (pos_ + 4 > text_.size()) return false;
    *v = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = HexValue(text_[pos_ + i]);
      if (h < 0) return false;
      *v = *v * 16 + static_cast<uint32_t>(h);
    }
    pos_ += 4;
    return true;
  };
  uint32_t cp = 0;
  if (!hex4(&cp)) return Fail("a \\u escape needs four hex digits");
  if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail("a lone low surrogate");
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    uint32_t low = 0;
    if (text_.substr(pos_, 2) != "\\u") return Fail("a high surrogate without its low one");
    pos_ += 2;
    if (!hex4(&low) || low < 0xDC00 || low > 0xDFFF) {
      return Fail("a high surrogate without its low one");
    }
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  AppendUtf8(cp, out);
  return true;
}

}  // namespace ufmr
