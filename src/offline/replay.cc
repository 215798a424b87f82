#include "offline/replay.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "filter/manual_marks.h"
#include "filter/recent_disables.h"
#include "ingest/event_subjects.h"
#include "rules/rule_engine.h"
#include "telemetry/telemetry.h"
#include "ufm/inventory.h"
#include "ufm/ports_answer.h"

namespace ufmr {

namespace {

bool ReadWhole(const std::string& path, std::string* out) {
  // Straight into the string, sized first: a 50 MB ports.json is held once, not twice.
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  const std::streamoff size = in.tellg();
  if (size < 0) return false;
  out->resize(static_cast<size_t>(size));
  in.seekg(0);
  return static_cast<bool>(in.read(out->data(), size)) || size == 0;
}

// The decision stage's questions, answered from what the replay has decided so far.
class ReplayContext final : public DecisionContext {
 public:
  ReplayContext(const Inventory& inventory, const ManualMarks& marks, const SilenceSet& silences,
                const std::unordered_set<std::string>& learned)
      : inventory_(inventory), marks_(marks), silences_(silences), learned_(learned) {
    // Every port known now is from the saved port list: the replay learns the rest.
    inventory_.ForEachPort([&](const PortInfo& p) {
      if (std::string key = Inventory::NodeKeyOf(p); !key.empty()) listed_nodes_.insert(key);
    });
  }
  // The replay alone changes its inventory, and not while it decides.
  const PortInfo* Port(const std::string& name) override { return inventory_.Peek(name); }
  std::optional<OpenTicketInfo> OpenTicket(const std::string& entity) override {
    auto it = tickets_.find(entity);
    if (it == tickets_.end()) return std::nullopt;
    return it->second;
  }
  const Silence* Silenced(const SilenceSubject& subject, TimePoint t) override {
    return silences_.Match(subject, t);
  }
  bool AnySilences() override { return silences_.size() > 0; }
  std::string OwnedByPerson(const std::string& port) override {
    std::string why = marks_.Why(port);
    if (!why.empty()) return why;
    // The port as Port() keeps it for the decisions (not a copy made for each question).
    const PortInfo* p = inventory_.Peek(port);
    return p && p->disabled() ? "disabled in UFM's saved port list" : "";
  }
  std::vector<std::string> HeldPorts() override { return held_; }
  int FabricPorts() override { return static_cast<int>(inventory_.size()); }
  // A switch known only from the events' text is not judged (its other links are unknown, not
  // absent); a host is: cutting its last link is the worse mistake.
  // Whether every port of the node was learned is whether no port of the saved list sits on it,
  // known once (a spine of a wide fabric has a thousand ports, and this is asked for every
  // finding that could cut one).
  std::vector<NodeLink> NodeLinks(const PortInfo& port) override {
    if (port.is_switch() && learned_.count(port.name) > 0) {
      const std::string key = Inventory::NodeKeyOf(port);
      if (key.empty() || listed_nodes_.count(key) == 0) return {};
    }
    return inventory_.NodeLinks(port);
  }
  int ActionsSince(TimePoint since) override {
    return static_cast<int>(
        std::count_if(cuts_.begin(), cuts_.end(), [&](TimePoint t) { return t >= since; }));
  }
  std::optional<TimePoint> LastActionOn(const std::string& port) override {
    auto it = last_action_.find(port);
    if (it == last_action_.end()) return std::nullopt;
    return it->second;
  }
  bool BreakerTripped() override { return tripped_; }
  int CountActingFinding(TimePoint t, double window_s) override {
    acting_.push_back(t);
    auto since = t - std::chrono::duration_cast<TimePoint::duration>(Seconds(window_s));
    while (!acting_.empty() && acting_.front() < since) acting_.pop_front();
    return static_cast<int>(acting_.size());
  }
  void TripBreaker(const Decision&, int) override { tripped_ = true; }

  void Record(const Decision& d) {
    if (d.kind == DecisionKind::kSuppressed || d.kind == DecisionKind::kFinding) return;
    // A storm is one ticket (the breaker's), not one per link.
    if (d.guard == "breaker") return;
    auto [it, added] =
        tickets_.emplace(d.entity, OpenTicketInfo{static_cast<int64_t>(tickets_.size() + 1)});
    if (d.acts()) {
      it->second.acted = true;
      held_.push_back(d.port);
      cuts_.push_back(d.time);
      last_action_[d.port] = d.time;
    }
  }

 private:
  const Inventory& inventory_;
  const ManualMarks& marks_;
  const SilenceSet& silences_;
  const std::unordered_set<std::string>& learned_;
  std::unordered_set<std::string> listed_nodes_;             // NodeKeyOf the saved list's ports
  std::unordered_map<std::string, OpenTicketInfo> tickets_;  // by entity: looked up per finding
  std::vector<std::string> held_;
  std::vector<TimePoint> cuts_;
  std::unordered_map<std::string, TimePoint> last_action_;
  std::deque<TimePoint> acting_;
  bool tripped_ = false;
};

constexpr int kLinkUpEvent = 328;
constexpr int kLinkDownEvent = 329;

// Whether the replay's own state reads an event's ports: the link's state (328 up, 329 down), a
// disable (336: a person's or the live service's), a person's unhealthy mark (702, MANUAL).
// RecentDisables::Covers reads every event's, but only to keep it from the rules.
bool ReadsPorts(int event_type) {
  return event_type == kLinkUpEvent || event_type == kLinkDownEvent ||
         RecentDisables::Reads(event_type) || ManualMarks::Reads(event_type);
}

// Ports the saved port list lacks, learned from how events name them.
size_t LearnPorts(const Observation& o, const std::vector<PortSubject>* read, Inventory* inventory,
                  std::unordered_set<std::string>* learned_names) {
  // The event names ports the inventory has, all of them: nothing to learn, and its text is not
  // read again (the common case once the fabric is known). An event whose object names no port
  // may name some in its message.
  if (!o.ports.empty() && std::all_of(o.ports.begin(), o.ports.end(), [&](const std::string& p) {
        return inventory->Contains(p);
      })) {
    return 0;
  }
  std::vector<PortSubject> extracted;
  if (!read) extracted = ExtractPortSubjects(o.description);
  const std::vector<PortSubject>& named = read ? *read : extracted;
  // The ports the event's object names are the authority: the old Link form's message names a
  // host by its node GUID ("e41d2d0300ff4938 (Computer: ...) : 2" for port e41d2d0300ff4939_2),
  // which is no port's name.
  std::vector<const PortSubject*> kept;
  for (const auto& s : named) {
    if (o.ports.empty() || std::find(o.ports.begin(), o.ports.end(), s.port) != o.ports.end()) {
      kept.push_back(&s);
    }
  }
  size_t learned = 0;
  for (const PortSubject* subject : kept) {
    const PortSubject& s = *subject;
    if (inventory->Contains(s.port)) continue;
    PortInfo p;
    p.name = s.port;
    p.guid = s.port.substr(0, s.port.find('_'));
    p.system_name = s.node;
    p.node_description = s.label.empty() ? s.node : s.node + ":" + s.label;
    p.description = s.is_switch ? "Switch IB Port" : "Computer IB Port";
    p.label = s.label;
    p.logical_state = "Active";  // until the events say otherwise
    p.physical_state = "Link Up";
    try {
      p.number = std::stoi(s.port.substr(s.port.find('_') + 1));
    } catch (const std::exception&) {
    }
    if (kept.size() == 2) p.peer = kept[0]->port == s.port ? kept[1]->port : kept[0]->port;
    inventory->Upsert(p);
    learned_names->insert(p.name);
    ++learned;
  }
  return learned;
}

Result<std::vector<Silence>> LoadSilences(const std::string& path) {
  std::string text;
  if (!ReadWhole(path, &text)) return Status::NotFound("cannot read " + path);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_object() && doc.contains("silences")) doc = doc["silences"];
  if (!doc.is_array()) return Status::InvalidArgument(path + ": expected a JSON list of silences");
  std::vector<Silence> out;
  for (size_t i = 0; i < doc.size(); ++i) {
    const auto& j = doc[i];
    std::string where = path + ": silence " + std::to_string(i) + ": ";
    if (!j.is_object()) return Status::InvalidArgument(where + "expected an object");
    // The API's own output is accepted as is: fields may be null.
    auto field = [&](const char* key, const std::string& fallback = "") {
      auto it = j.find(key);
      return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
    };
    Silence s;
    auto id = j.find("id");
    s.id =
        id != j.end() && id->is_number_integer() ? id->get<int64_t>() : static_cast<int64_t>(i + 1);
    s.port = field("port");
    s.switch_ = field("switch");
    s.host = field("host");
    s.reason = field("reason");
    auto starts = ParseIsoTime(field("created_at", "1970-01-01T00:00:00Z"));
    auto ends = ParseIsoTime(field("expires_at"));
    if (!starts.ok())
      return Status::InvalidArgument(where + "created_at: " + starts.status().message());
    if (!ends.ok())
      return Status::InvalidArgument(where + "expires_at: " + ends.status().message());
    s.created_at = starts.value();
    s.expires_at = ends.value();
    Status valid = ValidateSilence(s);
    if (!valid.ok()) return Status::InvalidArgument(where + valid.message());
    out.push_back(std::move(s));
  }
  return out;
}

struct SnapshotFile {
  TimePoint time;
  std::string path;
};

// What a replay skipped, and why: the first 20.
void Note(ReplayStats* stats, const std::string& e) {
  if (stats->errors.size() < 20) stats->errors.push_back(e);
}

// The saved /resources/ports response, if any, into *inventory.
Status LoadPorts(const std::string& ports_file, Inventory* inventory, ReplayStats* stats) {
  if (ports_file.empty()) return Status::Ok();
  const auto start = std::chrono::steady_clock::now();
  int skipped = 0;
  Result<PortTable> ports = Status::NotFound("cannot read the ports file " + ports_file);
  {
    std::string body;  // freed before the inventory is filled
    if (!ReadWhole(ports_file, &body)) return ports.status();
    ports = ParsePortTable(body, &skipped);
  }
  if (!ports.ok()) {
    return Status::InvalidArgument(ports_file + ": " + ports.status().message());
  }
  if (skipped > 0) Note(stats, ports_file + ": " + std::to_string(skipped) + " ports skipped");
  inventory->Replace(ports.value());
  stats->listed_ports = inventory->size();
  stats->ports_load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::Ok();
}

Result<SilenceSet> LoadSilenceSet(const std::string& silences_file) {
  if (silences_file.empty()) return SilenceSet();
  auto list = LoadSilences(silences_file);
  if (!list.ok()) return list.status();
  return SilenceSet(std::move(list.value()));
}

// The CSV files `path` names: itself, or the *.csv files in a folder.
Result<std::vector<std::string>> TelemetryFiles(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".csv") files.push_back(e.path().string());
    }
  } else if (fs::exists(path, ec)) {
    files.push_back(path);
  } else {
    return Status::NotFound("no such telemetry file or folder: " + path);
  }
  return files;
}

// A snapshot's sample time; a snapshot that does not parse, or has no time, is noted and skipped.
Result<std::optional<SnapshotFile>> ReadSnapshotTime(const std::string& file, ReplayStats* stats) {
  std::string text;
  if (!ReadWhole(file, &text)) return Status::NotFound("cannot read " + file);
  auto snap = ParseTelemetryCsv(text);
  if (!snap.ok()) {
    Note(stats, file + ": " + snap.status().message());
    return std::optional<SnapshotFile>();
  }
  int64_t us = 0;
  for (int64_t t : snap->time_us) us = std::max(us, t);
  if (us == 0) {
    Note(stats, file + ": no timestamp column: skipped (replay needs the recorded time)");
    return std::optional<SnapshotFile>();
  }
  return std::optional<SnapshotFile>(SnapshotFile{
      TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(us))),
      file});
}

// The telemetry snapshots among `paths` (CSV files, or folders of them), ordered by their own
// sample time.
Result<std::vector<SnapshotFile>> FindSnapshots(const std::vector<std::string>& paths,
                                                ReplayStats* stats) {
  std::vector<SnapshotFile> snapshots;
  for (const auto& path : paths) {
    auto files = TelemetryFiles(path);
    if (!files.ok()) return files.status();
    for (const auto& f : files.value()) {
      auto snapshot = ReadSnapshotTime(f, stats);
      if (!snapshot.ok()) return snapshot.status();
      if (snapshot.value()) snapshots.push_back(std::move(*snapshot.value()));
    }
  }
  std::sort(snapshots.begin(), snapshots.end(), [](const auto& a, const auto& b) {
    return a.time < b.time || (a.time == b.time && a.path < b.path);
  });
  return snapshots;
}

// Feeds the snapshots to the pipeline in time order, as the events' clock reaches them.
class SnapshotFeed {
 public:
  SnapshotFeed(std::vector<SnapshotFile> snapshots, ReplayPipeline* pipeline, ReplayStats* stats)
      : snapshots_(std::move(snapshots)), pipeline_(pipeline), stats_(stats) {}

  // Every snapshot taken by `t` (all of them without a time) not fed yet.
  void Until(std::optional<TimePoint> t) {
    for (; next_ < snapshots_.size() && (!t || snapshots_[next_].time <= *t); ++next_) {
      const auto& s = snapshots_[next_];
      std::string text;
      if (!ReadWhole(s.path, &text)) return;
      auto snap = ParseTelemetryCsv(text);
      if (!snap.ok()) continue;
      for (const auto& e : snap->errors) Note(stats_, s.path + ": " + e);
      ++stats_->telemetry_files;
      stats_->telemetry_samples += snap->rows();
      pipeline_->Telemetry(snap.value(), s.time);
    }
  }

 private:
  std::vector<SnapshotFile> snapshots_;
  ReplayPipeline* pipeline_;
  ReplayStats* stats_;
  size_t next_ = 0;
};

// The event log, entry by entry, with the snapshots taken up to each entry fed before it.
Status ReplayEventLog(const ReplayOptions& options, ReplayPipeline* pipeline, SnapshotFeed* feed,
                      ReplayStats* stats) {
  EventLogReadOptions read;
  read.utc_offset_s = options.utc_offset_s;
  read.jobs = options.jobs;
  read.progress = options.progress;
  return ReadEventLogFile(options.event_log, read, [&](ReadEntry& e) {
    ++stats->events;
    if (!e.error.empty()) {
      ++stats->bad_entries;
      Note(stats, options.event_log + ": byte " + std::to_string(e.offset) + ": " + e.error);
      return;
    }
    feed->Until(e.obs.time);
    stats->learned_ports += pipeline->Event(std::move(e.obs), e.named_read ? &e.named : nullptr);
  });
}

}  // namespace

Status RunReplay(std::shared_ptr<const RuleSet> rules, const ReplayOptions& options,
                 const ReplayPipeline::Sink& sink, ReplayStats* stats) {
  Inventory inventory;
  if (Status loaded = LoadPorts(options.ports_file, &inventory, stats); !loaded.ok()) {
    return loaded;
  }
  auto silences = LoadSilenceSet(options.silences_file);
  if (!silences.ok()) return silences.status();
  auto snapshots = FindSnapshots(options.telemetry, stats);
  if (!snapshots.ok()) return snapshots.status();
  ReplayPipeline pipeline(rules, options.policy, &inventory, std::move(silences.value()),
                          [&](Decision&& d) {
                            ++stats->decisions[DecisionKindName(d.kind)];
                            sink(std::move(d));
                          });
  SnapshotFeed feed(std::move(snapshots.value()), &pipeline, stats);
  if (!options.event_log.empty()) {
    if (Status replayed = ReplayEventLog(options, &pipeline, &feed, stats); !replayed.ok()) {
      return replayed;
    }
  }
  feed.Until(std::nullopt);
  pipeline.Finish();
  stats->findings = pipeline.findings();
  return Status::Ok();
}

struct ReplayPipeline::Impl {
  Impl(std::shared_ptr<const RuleSet> r, DecisionPolicy policy, Inventory* inv, SilenceSet s,
       Sink out)
      : rules(std::move(r)),
        inventory(inv),
        silences(std::move(s)),
        engine(rules, inventory),
        decider(policy),
        ctx(*inventory, marks, silences, learned),
        intake(Config::Telemetry{}, nullptr,
               [inv](const std::string& port) -> std::optional<LinkRate> {
                 auto info = inv->Get(port);
                 if (!info) return std::nullopt;
                 LinkRate rate = ParseLinkRate(info->active_speed, info->active_width);
                 if (!rate.known()) return std::nullopt;
                 return rate;
               }),
        sink(std::move(out)) {
    // Replay's decisions carry no evidence: the observations are not built into it.
    engine.SetEvidenceObservations(false);
    engine.SetRememberSubjects(false);  // resolving again costs it less than remembering
    intake.SetInterest(rules->counters);
    intake.UseInventory(inventory);  // host rows by port_guid, as in the service
  }

  void Decide() {
    for (const auto& f : pending) {
      ++findings;
      Decision d = decider.Decide(f, ctx);
      ctx.Record(d);
      if (d.acts() && (f.scope == RuleScope::kPort || f.scope == RuleScope::kLink)) {
        engine.Forget(f.link_key);  // as the service does once it takes the link out
      }
      sink(std::move(d));
    }
    pending.clear();
  }

  void Advance(TimePoint t) {
    if (clock && t <= *clock) return;
    clock = t;
    engine.Tick(t, &pending);
    Decide();
  }

  std::shared_ptr<const RuleSet> rules;
  Inventory* inventory;
  SilenceSet silences;
  ManualMarks marks;
  RecentDisables disables;
  std::unordered_set<std::string> learned;  // ports known only from the events' text
  RuleEngine engine;
  Decider decider;
  ReplayContext ctx;
  TelemetryIntake intake;
  Sink sink;
  std::vector<Finding> pending;
  std::optional<TimePoint> clock;
  size_t findings = 0;
};

ReplayPipeline::ReplayPipeline(std::shared_ptr<const RuleSet> rules, DecisionPolicy policy,
                               Inventory* inventory, SilenceSet silences, Sink sink)
    : impl_(std::make_unique<Impl>(std::move(rules), policy, inventory, std::move(silences),
                                   std::move(sink))) {}

ReplayPipeline::~ReplayPipeline() = default;

size_t ReplayPipeline::Event(const Observation& o) { return Event(Observation(o)); }

size_t ReplayPipeline::Event(Observation&& o) { return Event(std::move(o), nullptr); }

size_t ReplayPipeline::Event(Observation&& o, const std::vector<PortSubject>* named) {
  impl_->Advance(o.time);
  size_t learned =
      LearnPorts(o, o.ports.empty() ? named : nullptr, impl_->inventory, &impl_->learned);
  // Most of a log is events no rule and nothing below reads (GID out of service): their ports
  // are not looked up.
  if (!impl_->engine.Considers(o) && !ReadsPorts(o.event_type)) return learned;
  // The event's ports, and those it names only as "<node>:<label>" found in the inventory.
  std::vector<std::string> found;
  if (!o.port_refs.empty()) found = impl_->engine.PortsOf(o);
  const std::vector<std::string>& ports = o.port_refs.empty() ? o.ports : found;
  if (o.event_type == kLinkUpEvent || o.event_type == kLinkDownEvent) {
    // The fabric as the events tell it: which links are up (the last-link guard counts them).
    for (const auto& name : ports)
      impl_->inventory->SetLinkState(name, o.event_type == kLinkUpEvent);
  }
  impl_->marks.Observe(o, ports);
  // A recorded 336 is a person's disable or the live service's own: either way, what the link
  // then reports is not for the rules, as in the service (RecentDisables, and for its own cuts
  // OwnDisableFilter).
  impl_->disables.Note(o, ports, [](const std::string&) { return false; });
  if (impl_->disables.Covers(o, ports, *impl_->inventory)) {
    impl_->engine.NoteLinkDown(o, ports);  // the link's uptime starts again all the same
  } else {
    // An event that names its ports only as "<node>:<label>": the engine would look them up
    // again (RuleEngine::Observe), so it gets them found.
    if (o.ports.empty()) o.ports = std::move(found);
    // Not moved: the reader parses its next entry into the same strings. A rule that keeps the
    // event (a window, a hold, a flapping count) copies it (EventView::shared); one whose match
    // is a finding at once reads it in place.
    impl_->engine.Observe(static_cast<const Observation&>(o), &impl_->pending);
  }
  impl_->Decide();
  return learned;
}

void ReplayPipeline::Telemetry(const TelemetrySnapshot& snapshot, TimePoint t) {
  impl_->Advance(t);
  impl_->intake.Ingest(snapshot, false, t,
                       [this](const Observation& o) { impl_->engine.Observe(o, &impl_->pending); });
  impl_->Decide();
}

void ReplayPipeline::AdvanceTo(TimePoint t) { impl_->Advance(t); }

void ReplayPipeline::Finish() {
  if (!impl_->clock) return;
  double longest = 0;
  for (const auto& r : impl_->rules->rules) longest = std::max(longest, r.for_s);
  impl_->Advance(*impl_->clock + std::chrono::duration_cast<TimePoint::duration>(Seconds(longest)));
}

size_t ReplayPipeline::findings() const { return impl_->findings; }

}  // namespace ufmr
