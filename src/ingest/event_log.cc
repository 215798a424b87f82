#include "ingest/event_log.h"

#include <array>
#include <string>

#include "base/utf8.h"
#include "catalog/event_types.h"
#include "config/secret_mask.h"
#include "ingest/byte_scan.h"
#include "ingest/event_details.h"
#include "ingest/port_names.h"

namespace ufmr {

namespace {

using byte_scan::FindAny3;
using byte_scan::FitsShape;
using byte_scan::IsAlpha;
using byte_scan::IsBlank;
using byte_scan::IsDigit;
using byte_scan::kLittleEndian;
using byte_scan::Load8;
using byte_scan::Lower;
using byte_scan::MaybeNotPlainAscii;
using byte_scan::Shape;
using byte_scan::Trim;
using byte_scan::Two;
using byte_scan::Upper;
using event_details::Details;
using event_details::DevIdPortName;
using event_details::IsPortObjectType;
using event_details::ListWriter;
using event_details::PortRef;
using event_details::SplitPortRef;

constexpr size_t kExcerptBytes = 120;
constexpr size_t kMaxNameBytes = 200;

// The first line of s, masked (config/secret_mask.h), at most kExcerptBytes, cut on a UTF-8
// boundary (s is valid UTF-8).
std::string Excerpt(std::string_view s) {
  return SecretMask::Global().Excerpt(s.substr(0, s.find('\n')), kExcerptBytes);
}

std::string_view CutUtf8(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

// --- Header ----------------------------------------------------------------------------------

// Reads the fields before the message of one entry's text, left to right.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view s) : s_(s) {}

  size_t pos() const { return i_; }
  // A parse error at the current column, with an excerpt of the entry.
  Status Error(const std::string& what) const {
    return Status::InvalidArgument("event log: " + what + " at column " + std::to_string(i_ + 1) +
                                   ": '" + Excerpt(s_) + "'");
  }
  bool AtEnd() const { return i_ >= s_.size(); }
  char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool LookingAt(std::string_view w) const { return s_.compare(i_, w.size(), w) == 0; }
  void Skip(size_t n) { i_ += n; }

  // At least one blank when `required`.
  bool Blanks(bool required) {
    size_t start = i_;
    while (i_ < s_.size() && IsBlank(s_[i_])) ++i_;
    return !required || i_ > start;
  }

  // "[digits]": up to max_digits digits.
  bool BracketNumber(size_t max_digits, int64_t* out) {
    if (Peek() != '[') return false;
    size_t k = i_ + 1;
    int64_t v = 0;
    while (k < s_.size() && IsDigit(s_[k]) && k - i_ - 1 < max_digits) {
      v = v * 10 + (s_[k] - '0');
      ++k;
    }
    if (k == i_ + 1 || k >= s_.size() || s_[k] != ']') return false;
    *out = v;
    i_ = k + 1;
    return true;
  }

  // "[...]" with nested brackets, on one line: the text inside.
  bool Bracketed(std::string_view* out) {
    if (Peek() != '[') return false;
    int depth = 0;
    const char* d = s_.data();
    const size_t n = s_.size();
    for (size_t k = i_; (k = FindAny3(d, k, n, '[', ']', '\n')) < n; ++k) {
      char c = d[k];
      if (c == '\n') return false;
      if (c == '[') {
        ++depth;
      } else if (--depth == 0) {
        *out = s_.substr(i_ + 1, k - i_ - 1);
        i_ = k + 1;
        return true;
      }
    }
    return false;
  }

  // Letters (the severity).
  std::string_view Letters() {
    size_t start = i_;
    while (i_ < s_.size() && IsAlpha(s_[i_])) ++i_;
    return s_.substr(start, i_ - start);
  }

  // The object type: up to '[' or ':' on this line, trimmed.
  std::string_view ObjectType() {
    size_t start = i_;
    i_ = FindAny3(s_.data(), i_, s_.size(), '[', ':', '\n');
    std::string_view t = s_.substr(start, i_ - start);
    while (!t.empty() && IsBlank(t.back())) t.remove_suffix(1);
    return t;
  }

  std::string_view Rest() const { return i_ < s_.size() ? s_.substr(i_) : std::string_view(); }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// --- Parsing steps ---------------------------------------------------------------------------

// The entry's text as the parser reads it: as the assembler does, for text passed straight in (a
// syslog record can end in NUL), without trailing CR and NUL and leading NUL; invalid UTF-8 and
// NULs replaced (in *cleaned); then trimmed.
std::string_view CleanEntryText(std::string_view text, std::string* cleaned, bool* invalid_utf8) {
  while (!text.empty() && (text.back() == '\0' || text.back() == '\r')) text.remove_suffix(1);
  while (!text.empty() && text.front() == '\0') text.remove_prefix(1);
  *invalid_utf8 = false;
  if (MaybeNotPlainAscii(text)) {
    *invalid_utf8 = SanitizeUtf8(text, cleaned);
    if (*invalid_utf8) text = *cleaned;
  }
  return Trim(text);
}

// "<timestamp> [<index>] [<event id>] <SEVERITY> " (the timestamp's shape is already checked).
Status ParseHead(HeaderParser* h, std::string_view text, LogEntry* out) {
  out->timestamp.assign(text.substr(0, 23));
  h->Skip(23);
  if (!h->Blanks(true)) return h->Error("expected a space after the timestamp");
  int64_t index = 0, event_id = 0;
  if (!h->BracketNumber(18, &index)) return h->Error("expected '[<index>]'");
  out->index = index;
  h->Blanks(false);
  if (!h->BracketNumber(9, &event_id)) return h->Error("expected '[<event id>]'");
  out->event_id = static_cast<int>(event_id);
  if (!h->Blanks(true)) return h->Error("expected a space before the severity");
  std::string_view severity = h->Letters();
  if (severity.empty()) return h->Error("expected a severity (CRITICAL, WARNING, MINOR, INFO)");
  out->severity.resize(severity.size());
  for (size_t k = 0; k < severity.size(); ++k) out->severity[k] = Upper(severity[k]);
  if (!h->Blanks(true)) return h->Error("expected a space after the severity");
  return Status::Ok();
}

// "[Site [<site>]] [<category>]", the site optional, also written as "[Site [<site>]]".
Status ParseSiteAndCategory(HeaderParser* h, LogEntry* out) {
  out->site.clear();
  std::string_view category;
  if (h->LookingAt("Site [")) {
    h->Skip(5);
    std::string_view site;
    if (!h->Bracketed(&site)) return h->Error("unterminated 'Site [...]'");
    out->site.assign(Trim(site));
    h->Blanks(false);
  }
  if (!h->Bracketed(&category)) return h->Error("expected '[<category>]'");
  // The optional site written as "[Site [<site>]]": a bracket holding "Site [...]", then the
  // real category.
  if (out->site.empty() && category.substr(0, 6) == "Site [" && category.back() == ']') {
    h->Blanks(false);
    if (h->Peek() == '[') {
      out->site.assign(Trim(category.substr(6, category.size() - 7)));
      if (!h->Bracketed(&category)) return h->Error("expected '[<category>]'");
    }
  }
  out->category.assign(Trim(category));
  h->Blanks(false);
  return Status::Ok();
}

// "<ObjectType> [<object>] [dev_id: <guid>]: <message>".
Status ParseObjectAndMessage(HeaderParser* h, LogEntry* out) {
  std::string_view object_type = h->ObjectType();
  if (object_type.empty()) return h->Error("expected an object type (Link, Switch, Port, ...)");
  out->object_type.assign(object_type);
  std::string_view object;
  if (h->Peek() == '[') {
    if (!h->Bracketed(&object)) return h->Error("unterminated '[' in the object");
  }
  out->object.assign(Trim(object));
  h->Blanks(false);
  out->dev_id.clear();
  if (h->LookingAt("[dev_id:")) {
    std::string_view dev;
    if (!h->Bracketed(&dev)) return h->Error("unterminated '[dev_id: ...]'");
    dev = Trim(dev.substr(7));
    out->dev_id.resize(dev.size());
    for (size_t k = 0; k < dev.size(); ++k) out->dev_id[k] = Lower(dev[k]);
    h->Blanks(false);
  }
  if (h->Peek() != ':') return h->Error("expected ':' before the message");
  h->Skip(1);
  h->Blanks(false);
  out->message.assign(Trim(h->Rest()));
  return Status::Ok();
}

// The ports, node names, labels, port descriptions, peers and cable serial the object and the
// message name.
void FillDetails(LogEntry* out) {
  out->cable_serial.clear();
  ListWriter ports(&out->ports);
  Details d{
      ListWriter(&out->node_names), ListWriter(&out->labels), ListWriter(&out->port_descriptions),
      ListWriter(&out->peers),      &out->cable_serial,       {}};
  // The event's own port first (an IBPort object's), so a peer is never taken for it.
  event_details::ObjectDetails(out->object_type, out->object, out->dev_id, &ports, &d);
  FoundPortNames found;
  ScanPortNames(out->object, &found);
  for (size_t i = 0; i < found.size(); ++i) ports.Add(found[i]);
  // An object that names ports is the authority: the old Link form's message names the HCA by its
  // node GUID ("e41d2d0300ff4938 (Computer: c931f02p18 HCA-1) : 2" for port e41d2d0300ff4939_2).
  if (ports.size() == 0) {
    ScanPortNames(out->message, &found);
    for (size_t i = 0; i < found.size(); ++i) ports.Add(found[i]);
  }
  ports.Finish();
  event_details::MessageDetails(out->message, &d);
  d.Finish();
}

}  // namespace

// --- Public -----------------------------------------------------------------------------------

bool IsEventLogEntryStart(std::string_view line) {
  // YYYY-MM-DD HH:MM:SS.mmm
  // 0123456789012345678901 2
  if (line.size() < 23) return false;
  const char* p = line.data();
  if constexpr (kLittleEndian) {
    // Bytes 0-7, 8-15 and 15-22 (the last two overlap by one digit).
    static constexpr Shape kDate("####-##-"), kDayTime("## ##:##"), kSeconds("#:##.###");
    if (!FitsShape(Load8(p), kDate) || !FitsShape(Load8(p + 8), kDayTime) ||
        !FitsShape(Load8(p + 15), kSeconds)) {
      return false;
    }
  } else {
    constexpr std::string_view kShape = "####-##-## ##:##:##.###";
    for (size_t k = 0; k < kShape.size(); ++k) {
      if (kShape[k] == '#' ? !IsDigit(p[k]) : p[k] != kShape[k]) return false;
    }
  }
  int month = Two(p + 5), day = Two(p + 8), hour = Two(p + 11), minute = Two(p + 14),
      second = Two(p + 17);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 &&
         second <= 60;
}

EventLogAssembler::EventLogAssembler(size_t max_entry_bytes)
    : max_entry_bytes_(max_entry_bytes == 0 ? kDefaultMaxEntryBytes : max_entry_bytes) {}

bool EventLogAssembler::Add(std::string_view line, uint64_t offset, uint64_t file_id,
                            RawLogEntry* completed) {
  ++stats_.lines;
  // Syslog-forwarded records can end in NUL; a writer that kept its offset across a truncation
  // leaves NULs in front; CR-LF line ends.
  while (!line.empty() && (line.back() == '\0' || line.back() == '\r')) line.remove_suffix(1);
  while (!line.empty() && line.front() == '\0') line.remove_prefix(1);

  const bool start = IsEventLogEntryStart(line);
  bool done = false;
  if (open_ && (start || file_id != current_.file_id)) done = Flush(completed);

  if (!open_) {
    if (Trim(line).empty()) {
      ++stats_.empty_lines_skipped;
      return done;
    }
    current_.text.clear();
    current_.file_id = file_id;
    current_.offset = offset;
    current_.lines = 0;
    current_.truncated = false;
    current_.dropped_bytes = 0;
    current_.starts_with_timestamp = start;
    open_ = true;
  } else {
    ++stats_.continuation_lines;
    Append("\n");
  }
  Append(line);
  ++current_.lines;
  return done;
}

void EventLogAssembler::Append(std::string_view bytes) {
  if (current_.truncated) {
    current_.dropped_bytes += bytes.size();
    return;
  }
  size_t room = max_entry_bytes_ - current_.text.size();
  if (bytes.size() > room) {
    current_.text.append(bytes.data(), room);
    current_.truncated = true;
    current_.dropped_bytes += bytes.size() - room;
    return;
  }
  current_.text.append(bytes.data(), bytes.size());
}

bool EventLogAssembler::Flush(RawLogEntry* completed) {
  if (!open_) return false;
  open_ = false;
  ++stats_.entries;
  if (!current_.starts_with_timestamp) ++stats_.orphan_entries;
  if (current_.truncated) ++stats_.truncated_entries;
  std::swap(*completed, current_);
  return true;
}

std::optional<EventLogAssembler::Pending> EventLogAssembler::pending() const {
  if (!open_) return std::nullopt;
  return Pending{current_.file_id, current_.offset};
}

Status ParseEventLogEntry(std::string_view text, LogEntry* out) {
  std::string cleaned;
  text = CleanEntryText(text, &cleaned, &out->invalid_utf8);
  if (!IsEventLogEntryStart(text)) {
    return Status::InvalidArgument(
        "event log: entry does not start with a timestamp 'YYYY-MM-DD HH:MM:SS.mmm': '" +
        Excerpt(text) + "'");
  }
  HeaderParser h(text);
  if (Status s = ParseHead(&h, text, out); !s.ok()) return s;
  if (Status s = ParseSiteAndCategory(&h, out); !s.ok()) return s;
  if (Status s = ParseObjectAndMessage(&h, out); !s.ok()) return s;
  FillDetails(out);
  out->file_id = 0;
  out->offset = 0;
  out->truncated = false;
  return Status::Ok();
}

Status ParseEventLogEntry(const RawLogEntry& raw, LogEntry* out) {
  Status s = ParseEventLogEntry(raw.text, out);
  out->file_id = raw.file_id;
  out->offset = raw.offset;
  out->truncated = raw.truncated;
  return s;
}

Result<LogEntry> ParseEventLogEntry(std::string_view text) {
  LogEntry e;
  Status s = ParseEventLogEntry(text, &e);
  if (!s.ok()) return s;
  return e;
}

std::string ObjectPortName(std::string_view object_type, std::string_view object,
                           std::string_view dev_id) {
  if (!IsPortObjectType(object_type)) return "";
  std::array<char, 24> name;
  PortRef r = SplitPortRef(object, nullptr, nullptr);
  if (!DevIdPortName(r, dev_id, &name)) return "";
  return std::string(name.data(), 17 + r.number.len);
}

namespace {

// The fields a REST event carries, written straight into a UfmEvent or an Observation: the line's
// severity in REST's spelling ("Warning"); for an id in UFM's event table, the table's name and
// category (as REST gives them: "Link is Down", "Fabric Topology"); for another, the message's
// first words and the line's category in REST's spelling.
template <typename Event>
void FillEventFields(const LogEntry& e, Event* u) {
  u->object_type = e.object_type;
  u->object_name = e.object;
  u->severity = e.severity;
  for (size_t k = 1; k < u->severity.size(); ++k) u->severity[k] = Lower(u->severity[k]);
  if (const UfmEventType* t = FindUfmEventType(e.event_id)) {
    u->name = t->name;
    u->category = t->category;
    if (u->severity.empty()) u->severity = t->severity;
    return;
  }
  std::string_view first = std::string_view(e.message).substr(0, e.message.find('\n'));
  size_t colon = first.find(": ");
  std::string_view name = colon == std::string_view::npos ? first : first.substr(0, colon);
  name = Trim(name);
  while (!name.empty() && name.back() == '.') name.remove_suffix(1);
  u->name.assign(CutUtf8(name, kMaxNameBytes));
  u->category = e.category;
  for (char& c : u->category) {
    if (c == '_') c = ' ';
  }
}

}  // namespace

UfmEvent ToUfmEvent(const LogEntry& e) {
  UfmEvent u;
  u.id = e.index;
  u.event_type = e.event_id;
  FillEventFields(e, &u);
  u.description = e.message;
  u.timestamp = e.timestamp;
  u.object_path = e.object;
  return u;
}

Observation ToObservation(const LogEntry& e, TimePoint received) {
  Observation o;
  FillObservation(e, received, &o);
  return o;
}

namespace {

// FillObservation's fields but the message and the port lists.
void FillObservationFields(const LogEntry& e, TimePoint received, Observation* o) {
  // As ToObservation(ToUfmEvent(e)) would, without the intermediate copies (the hot path of
  // reading the event log).
  o->kind = Observation::Kind::kEvent;
  o->time = received;
  o->source = "event_log";
  o->event_id = e.index;
  o->event_type = e.event_id;
  FillEventFields(e, o);
  o->ufm_timestamp = e.timestamp;
  o->dev_id = e.dev_id;
  o->cable_serial = e.cable_serial;
  o->reread = false;
  o->counter.clear();
  o->delta = o->interval_s = o->value = 0;
}

}  // namespace

void FillObservation(const LogEntry& e, TimePoint received, Observation* o) {
  FillObservationFields(e, received, o);
  o->description = e.message;
  o->ports = e.ports;
  o->port_refs = e.port_descriptions;
}

void FillObservation(LogEntry&& e, TimePoint received, Observation* o) {
  FillObservationFields(e, received, o);
  o->description.swap(e.message);
  o->ports.swap(e.ports);
  o->port_refs.swap(e.port_descriptions);
}

}  // namespace ufmr
