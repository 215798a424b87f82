#include "catalog/csv_records.h"

namespace ufmr {

namespace {

// One record from `text` at *pos; false at the end.
bool NextRecord(std::string_view text, size_t* pos, std::vector<std::string>* fields) {
  fields->clear();
  size_t i = *pos;
  if (i >= text.size()) return false;
  std::string field;
  bool quoted = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields->push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      field.push_back(c);
    }
  }
  fields->push_back(std::move(field));
  *pos = i + 1;
  return true;
}

}  // namespace

std::vector<std::vector<std::string>> ReadCsvRecords(std::string_view text, bool skip_header) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> fields;
  size_t pos = 0;
  if (skip_header) NextRecord(text, &pos, &fields);
  while (NextRecord(text, &pos, &fields)) {
    if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
    out.push_back(fields);
  }
  return out;
}

}  // namespace ufmr
