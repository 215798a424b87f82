#include "loop/rest_event_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "ingest/rest_event.h"

namespace ufmr {

namespace {
constexpr const char* kEventsCursor = "rest_events";
}  // namespace

void RestEventSource::Poll(const Emit& emit, std::vector<PendingAlert>* alerts) {
  if (!cursor_ && !Resume()) return;
  auto events = Fetch();
  if (!events.ok()) return;
  p_.inputs.Ok("ufm_events", p_.clock.Now(),
               events->errors.empty()
                   ? ""
                   : std::to_string(events->errors.size()) + " malformed events skipped last poll");
  for (const auto& err : events->errors) {
    spdlog::warn("skipped a malformed UFM event: {}", err);
    p_.metrics.Add("ufmr_parse_errors_total{source=\"rest_events\"}");
  }
  std::string not_after = CheckIds(events->events, alerts);
  EmitNew(events->events, not_after, emit);
}

bool RestEventSource::Resume() {
  auto tx = p_.store.Begin();
  if (!tx.ok()) {
    spdlog::warn("cannot read the event cursor: {}", tx.status().ToString());
    p_.inputs.Failed("ufm_events", p_.clock.Now(), "cannot read the event cursor");
    return false;
  }
  cursor_ = tx.value()->Cursor(kEventsCursor);
  written_cursor_ = cursor_;
  written_newest_ = cursor_;
  auto state = tx.value()->CursorState(kEventsCursor);
  newest_time_ = state.value("newest_timestamp", "");
  reread_until_ = state.value("newest_id", int64_t{0});
  reread_horizon_.reset();
  // On the footing of the times of the events read again (UFM's stamp, never later than now:
  // EmitNew), so a UFM whose clock runs ahead puts no hold behind it.
  if (TimePoint t;
      reread_until_ > 0 && ParseUfmTimestamp(newest_time_, p_.config.ufm.utc_offset_s, &t)) {
    reread_horizon_ = std::min(t, p_.clock.Now());
  }
  if (!cursor_) {
    SkipHistory();
    return false;
  }
  spdlog::info("resuming events after id {}", *cursor_);
  return true;
}

void RestEventSource::SkipHistory() {
  // First start: the history UFM holds predates this service. Begin at its newest event.
  auto events = Fetch();
  if (!events.ok()) return;
  p_.inputs.Ok("ufm_events", p_.clock.Now(), "");
  int64_t newest = events->events.empty() ? 0 : events->events.back().id;
  cursor_ = newest;
  if (!events->events.empty()) newest_time_ = events->events.back().timestamp;
  spdlog::info("first start for fabric '{}': skipping {} historical events (up to id {})",
               p_.config.fabric, events->events.size(), newest);
}

Result<ParsedEvents> RestEventSource::Fetch() {
  auto events = p_.ufm.GetEvents();
  if (!events.ok()) {
    spdlog::warn("event poll failed: {}", events.status().ToString());
    p_.metrics.Add("ufmr_ufm_errors_total{call=\"events\"}");
    p_.inputs.Failed("ufm_events", p_.clock.Now(), events.status().message());
  }
  return events;
}

std::string RestEventSource::CheckIds(const std::vector<UfmEvent>& list,
                                      std::vector<PendingAlert>* alerts) {
  const int64_t cursor = *cursor_;
  if (list.empty() || list.back().id >= cursor) {
    if (cursor > 0) ReportGap(list, cursor, alerts);
    return "";
  }
  // UFM's ids went backwards: a reinstall, or its event store was reset or restored. Only events
  // stamped later than the newest one already read are new.
  std::string not_after = newest_time_;
  size_t old = 0;
  for (const auto& e : list) old += !not_after.empty() && e.timestamp <= not_after;
  std::string message = "UFM event ids went back from " + std::to_string(cursor) + " to " +
                        std::to_string(list.back().id) +
                        " (UFM reinstalled or its event store reset): " + std::to_string(old) +
                        " events stamped at or before " + (not_after.empty() ? "?" : not_after) +
                        " were taken as already seen and not replayed; " +
                        std::to_string(list.size() - old) + " later ones are read";
  spdlog::error("{}", message);
  p_.metrics.Add("ufmr_event_id_regressions_total");
  alerts->push_back({"event_id_regression",
                     message,
                     {{"cursor", cursor}, {"newest_id", list.back().id}, {"skipped", old}}});
  cursor_ = 0;
  return not_after;
}

void RestEventSource::ReportGap(const std::vector<UfmEvent>& list, int64_t cursor,
                                std::vector<PendingAlert>* alerts) {
  // Ids UFM no longer holds between the cursor and the newest event: lost to this service.
  int64_t lost = 0, prev = cursor;
  std::string ranges;
  for (const auto& e : list) {
    if (e.id <= prev) continue;
    if (e.id > prev + 1) {
      lost += e.id - prev - 1;
      if (!ranges.empty()) ranges += ", ";
      ranges +=
          std::to_string(prev + 1) + (e.id - 1 > prev + 1 ? " to " + std::to_string(e.id - 1) : "");
    }
    prev = e.id;
  }
  if (lost == 0) return;
  std::string message = std::to_string(lost) + " UFM events (ids " + ranges +
                        ") were gone from UFM before they could be read (UFM retention, or the "
                        "service was down); faults they reported may be missed";
  spdlog::error("{}", message);
  p_.metrics.Add("ufmr_event_id_gaps_total");
  p_.metrics.Add("ufmr_events_lost_total", static_cast<double>(lost));
  alerts->push_back({"event_id_gap", message, {{"cursor", cursor}, {"lost", lost}}});
}

void RestEventSource::EmitNew(const std::vector<UfmEvent>& list, const std::string& not_after,
                              const Emit& emit) {
  TimePoint now = p_.clock.Now();
  for (const auto& e : list) {
    if (e.id <= *cursor_) continue;
    cursor_ = e.id;
    if (!not_after.empty() && e.timestamp <= not_after) continue;  // an old event, not replayed
    Observation o = ToObservation(e, now);
    o.reread = e.id <= reread_until_;
    if (o.reread) {
      // Read again after a restart, with everything since the cursor: taken as received now,
      // events minutes apart would arrive as one burst, and a count rule (three links of a
      // switch within 20 s) would see one that never was. Its time is when UFM stamped it
      // (never later than now).
      TimePoint stamped;
      if (ParseUfmTimestamp(o.ufm_timestamp, p_.config.ufm.utc_offset_s, &stamped) &&
          stamped < now) {
        o.time = stamped;
      }
    }
    emit(o);
    if (e.timestamp > newest_time_) newest_time_ = e.timestamp;
  }
}

std::optional<CursorWrite> RestEventSource::CursorToWrite(std::optional<int64_t> oldest_in_use) {
  // Never persist past an event that only memory still holds (a hold or a count window): after
  // a restart it is read again.
  std::optional<int64_t> safe = cursor_;
  if (safe && oldest_in_use) safe = std::min(*safe, *oldest_in_use - 1);
  to_write_ = safe;
  // The newest id read moves too (held below by windows, `safe` may not): a restart needs it.
  if (!safe || (safe == written_cursor_ && cursor_ == written_newest_)) return std::nullopt;
  return CursorWrite{kEventsCursor,
                     *safe,
                     {{"newest_timestamp", newest_time_}, {"newest_id", cursor_.value_or(*safe)}}};
}

void RestEventSource::Written() {
  written_cursor_ = to_write_;
  written_newest_ = cursor_;
}

}  // namespace ufmr
