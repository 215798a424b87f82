#include "loop/event_log_source.h"

#include <spdlog/spdlog.h>

namespace ufmr {

namespace {
constexpr const char* kEventLogCursor = "event_log";
}  // namespace

bool EventLogSource::Open() {
  std::optional<LogPosition> resume;
  auto tx = p_.store.Begin();
  if (!tx.ok()) {
    spdlog::warn("cannot read the event log cursor: {}", tx.status().ToString());
    return false;
  }
  nlohmann::json state;
  try {
    state = tx.value()->CursorState(kEventLogCursor);
  } catch (const std::exception& e) {
    spdlog::warn("cannot read the event log cursor: {}", e.what());
    return false;
  }
  if (state.contains("position")) {
    auto p = LogPosition::FromJson(state["position"].dump());
    if (p.ok()) {
      resume = p.value();
      written_ = state["position"];
    } else {
      spdlog::warn("event log cursor unreadable ({}); starting at the end of the file",
                   p.status().message());
    }
  }
  LogTailerOptions options;
  options.rotated_suffixes = {p_.config.event_log.rotated_suffix};
  options.start_at_end = !resume;  // first start: the file's history predates the service
  tailer_ = std::make_unique<LogTailer>(p_.config.event_log.path, resume, options);
  return true;
}

void EventLogSource::Handle(const RawLogEntry& raw, TimePoint now, const Emit& emit) {
  LogEntry entry;
  Status s = ParseEventLogEntry(raw, &entry);
  if (!s.ok()) {
    p_.metrics.Add("ufmr_parse_errors_total{source=\"event_log\"}");
    spdlog::warn("{} at byte {}: {}", tailer_->path(), raw.offset, s.message());
    return;
  }
  emit(ToObservation(entry, now));
}

void EventLogSource::Poll(const Emit& emit) {
  if (!tailer_ && !Open()) return;
  const TimePoint now = p_.clock.Now();
  TailPoll poll = tailer_->Poll();
  for (const auto& n : poll.notices) spdlog::info("event log: {}", n.message);
  if (!poll.status.ok()) {
    spdlog::warn("event log: {}", poll.status.message());
    p_.inputs.Failed("event_log", now, poll.status.message());
  } else {
    p_.inputs.Ok("event_log", now, tailer_->path());
  }
  RawLogEntry raw;
  for (const LogLine& l : poll.lines) {
    if (assembler_.Add(l.text, l.offset, l.inode, &raw)) Handle(raw, now, emit);
  }
  if (poll.lines.empty() && assembler_.Flush(&raw)) Handle(raw, now, emit);  // the writer is idle
  Advance(now, emit, &raw);
}

void EventLogSource::Advance(TimePoint now, const Emit& emit, RawLogEntry* raw) {
  std::optional<LogPosition> at;
  if (auto held = assembler_.pending()) {
    // The cursor points at the start of an entry still being assembled, not past it.
    at = tailer_->PositionAt(held->file_id, held->offset);
    if (!at && assembler_.Flush(raw)) Handle(*raw, now, emit);
  }
  auto cursor = nlohmann::json::parse((at ? *at : tailer_->position()).ToJson(), nullptr, false);
  if (!cursor.is_discarded()) cursor_ = cursor;
}

std::optional<CursorWrite> EventLogSource::CursorToWrite() const {
  if (!cursor_ || cursor_ == written_) return std::nullopt;
  return CursorWrite{
      kEventLogCursor, cursor_->value("offset", int64_t{0}), {{"position", *cursor_}}};
}

}  // namespace ufmr
