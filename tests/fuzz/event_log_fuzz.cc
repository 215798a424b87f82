// libFuzzer target: UFM event-log text (any bytes) through the tailer's path: lines into
// EventLogAssembler, each entry through ParseEventLogEntry and ToObservation. Also the whole
// input as one entry. Never a crash; an entry's ports must be what ObjectPortName and
// ExtractPortNames (RE2) find in its object, else in its message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "ingest/event_log.h"
#include "ingest/port_names.h"
#include "ufm/ufm_event.h"

namespace {

void Check(const ufmr::LogEntry& entry) {
  const ufmr::TimePoint received = ufmr::FromEpochSeconds(1.7e9);
  ufmr::Observation o = ufmr::ToObservation(entry, received);
  if (o.ports != entry.ports) std::abort();
  // The object and the message are scanned apart (a "<guid> (" in the object does not close in
  // the message), each as the RE2 definition finds names in it: the IBPort object's own port,
  // then the object's names, and the message's only when those are none; no repeats.
  std::vector<std::string> want;
  auto add = [&want](const std::string& name) {
    if (std::find(want.begin(), want.end(), name) == want.end()) want.push_back(name);
  };
  std::string own = ufmr::ObjectPortName(entry.object_type, entry.object, entry.dev_id);
  if (!own.empty()) add(own);
  for (const auto& name : ufmr::ExtractPortNames(entry.object)) add(name);
  if (want.empty()) {
    for (const auto& name : ufmr::ExtractPortNames(entry.message)) add(name);
  }
  if (entry.ports != want) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ufmr::LogEntry entry;
  if (ufmr::ParseEventLogEntry(text, &entry).ok()) Check(entry);

  // A small cap, so the fuzzer reaches the assembler's truncation with small inputs.
  ufmr::EventLogAssembler assembler(512);
  ufmr::RawLogEntry raw;
  uint64_t offset = 0;
  size_t at = 0;
  while (at <= text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    if (assembler.Add(text.substr(at, nl - at), offset, &raw) &&
        ufmr::ParseEventLogEntry(raw, &entry).ok()) {
      Check(entry);
    }
    offset += nl - at + 1;
    at = nl + 1;
  }
  if (assembler.Flush(&raw) && ufmr::ParseEventLogEntry(raw, &entry).ok()) Check(entry);
  return 0;
}
