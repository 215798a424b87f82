#include "catalog/event_types.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "base/text.h"
#include "catalog/csv_records.h"

namespace ufmr {
namespace ufm_tables {
extern const std::string_view kEventTableCsv;
}  // namespace ufm_tables

namespace {

std::vector<UfmEventType> ParseTable() {
  std::vector<UfmEventType> rows;
  for (const auto& f : ReadCsvRecords(ufm_tables::kEventTableCsv, /*skip_header=*/true)) {
    if (f.size() < 6 || f[0].empty()) continue;
    UfmEventType t;
    t.id = std::atoi(f[0].c_str());
    t.name = f[1];
    t.severity = f[2];
    t.object_type = f[3];
    t.message_template = f[4];
    t.category = f[5];
    rows.push_back(std::move(t));
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return rows;
}

}  // namespace

std::string UfmSeverity(std::string_view severity) {
  const std::string lower = AsciiLower(TrimBlanks(severity));
  for (const char* s : {"Info", "Minor", "Warning", "Critical"}) {
    if (lower == AsciiLower(s)) return s;
  }
  return std::string(severity);
}

const std::vector<UfmEventType>& UfmEventTypes() {
  static const std::vector<UfmEventType> table = ParseTable();
  return table;
}

const UfmEventType* FindUfmEventType(int id) {
  const auto& t = UfmEventTypes();
  auto it = std::lower_bound(t.begin(), t.end(), id,
                             [](const UfmEventType& r, int v) { return r.id < v; });
  return it != t.end() && it->id == id ? &*it : nullptr;
}

const UfmEventType* FindUfmEventTypeByName(std::string_view name) {
  std::string key = AsciiLower(TrimBlanks(name));
  for (const auto& r : UfmEventTypes()) {
    if (AsciiLower(r.name) == key) return &r;
  }
  return nullptr;
}

std::string ClosestUfmEventName(std::string_view name) {
  std::string key = AsciiLower(TrimBlanks(name));
  const UfmEventType* best = nullptr;
  size_t best_d = 0;
  for (const auto& r : UfmEventTypes()) {
    size_t d = EditDistance(key, AsciiLower(r.name));
    if (!best || d < best_d) {
      best = &r;
      best_d = d;
    }
  }
  return best ? best->name : "";
}

const UfmEventType* ClosestUfmEventType(int id) {
  const UfmEventType* best = nullptr;
  for (const auto& r : UfmEventTypes()) {
    if (!best || std::abs(r.id - id) < std::abs(best->id - id)) best = &r;
  }
  return best;
}

namespace {

// The length of the printf slot at tmpl[i] ('%'), or 0 when it is not one ("%%" is a literal).
size_t SlotLength(std::string_view tmpl, size_t i) {
  size_t k = i + 1;
  if (k < tmpl.size() && tmpl[k] == '(') {
    size_t close = tmpl.find(')', k);
    if (close == std::string_view::npos) return 0;
    k = close + 1;
  }
  while (k < tmpl.size() && (std::isdigit(static_cast<unsigned char>(tmpl[k])) || tmpl[k] == '-' ||
                             tmpl[k] == '.' || tmpl[k] == 'l')) {
    ++k;
  }
  if (k >= tmpl.size() || std::string_view("sdixXfgu").find(tmpl[k]) == std::string_view::npos) {
    return 0;
  }
  return k + 1 - i;
}

}  // namespace

std::string FillTemplate(std::string_view tmpl, const std::vector<std::string>& args) {
  std::string out;
  size_t next_arg = 0;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    size_t len = tmpl[i] == '%' ? SlotLength(tmpl, i) : 0;
    if (len == 0) {
      out.push_back(tmpl[i]);
      continue;
    }
    if (next_arg < args.size()) out += args[next_arg];
    ++next_arg;
    i += len - 1;
  }
  return out;
}

bool ReadTemplateSlots(std::string_view tmpl, std::string_view message,
                       std::vector<std::string_view>* slots) {
  slots->clear();
  tmpl = TrimBlanks(tmpl);
  message = TrimSpace(message);
  size_t t = 0, m = 0;
  while (t < tmpl.size()) {
    size_t len = tmpl[t] == '%' ? SlotLength(tmpl, t) : 0;
    if (len == 0) {  // a literal byte
      if (m >= message.size() || message[m] != tmpl[t]) return false;
      ++t;
      ++m;
      continue;
    }
    t += len;
    // The literal after the slot, up to the next slot or the end, ends it.
    size_t next = tmpl.find('%', t);
    std::string_view literal = tmpl.substr(t, next == std::string_view::npos ? next : next - t);
    size_t end = literal.empty() ? message.size() : message.find(literal, m);
    if (t >= tmpl.size()) end = message.size();
    if (end == std::string_view::npos) return false;
    slots->push_back(TrimBlanks(message.substr(m, end - m)));
    m = end;
  }
  return m == message.size();
}

}  // namespace ufmr
