#include "loop/live_rules.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "act/decided_once.h"
#include "rules/rule_loader.h"

namespace ufmr {

namespace {

// Cheap change detection for the rules folder: each *.yaml's name, size and modification time.
std::string RulesFingerprint(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> parts;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    auto ext = e.path().extension().string();
    if (ext != ".yaml" && ext != ".yml") continue;
    std::error_code fe;
    auto size = fs::file_size(e.path(), fe);
    auto time = fs::last_write_time(e.path(), fe).time_since_epoch().count();
    parts.push_back(e.path().filename().string() + ":" + std::to_string(size) + ":" +
                    std::to_string(time));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += p + ";";
  return out;
}

}  // namespace

LiveRules::LiveRules(const Config& config, const Inventory& inventory, Metrics& metrics,
                     std::shared_ptr<const RuleSet> rules)
    : config_(config),
      inventory_(inventory),
      metrics_(metrics),
      engine_(std::move(rules), &inventory),
      fingerprint_(RulesFingerprint(config.rules.dir)) {
  Snapshot();
}

LiveRules::Reload LiveRules::MaybeReload(bool forced, TimePoint now, PendingAlert* alert) {
  if (!forced) {
    if (config_.rules.reload_check_interval_s <= 0) return Reload::kNone;
    if (!check_.Due(now, config_.rules.reload_check_interval_s)) return Reload::kNone;
  }
  std::string fingerprint = RulesFingerprint(config_.rules.dir);
  if (!forced && fingerprint == fingerprint_) return Reload::kNone;
  fingerprint_ = fingerprint;
  auto start = std::chrono::steady_clock::now();
  auto loaded = LoadRulesDir(config_.rules.dir);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  metrics_.Set("ufmr_rules_reload_duration_seconds", seconds);
  for (const auto& d : loaded.diagnostics) {
    (d.warning ? spdlog::warn("rules: {}", d.ToString())
               : spdlog::error("rules: {}", d.ToString()));
  }
  if (!loaded.ok()) {
    ReportFailure(loaded, alert);
    return Reload::kFailed;
  }
  metrics_.Add("ufmr_rules_reloads_total{result=\"ok\"}");
  metrics_.Set("ufmr_rules_last_reload_success", 1);
  if (loaded.rules->hash == engine_.rules().hash) return Reload::kLoaded;  // touched, not changed
  std::string was = engine_.rules().hash;
  RuleEngine next(loaded.rules, &inventory_);
  next.AdoptState(std::move(engine_));
  engine_ = std::move(next);
  Snapshot();
  metrics_.Set("ufmr_rules_loaded", static_cast<double>(engine_.rules().rules.size()));
  spdlog::info("rules reloaded from {}: {} rules, hash {} (was {}), in {:.1f} ms",
               config_.rules.dir, engine_.rules().rules.size(), engine_.rules().hash, was,
               seconds * 1000);
  return Reload::kLoaded;
}

void LiveRules::ReportFailure(const RuleLoadResult& loaded, PendingAlert* alert) {
  int errors = 0;
  nlohmann::json diags = nlohmann::json::array();
  for (const auto& d : loaded.diagnostics) {
    if (d.warning) continue;
    ++errors;
    diags.push_back(d.ToJson());
  }
  spdlog::error("rules reload failed with {} errors; still deciding with rules {}", errors,
                engine_.rules().hash);
  metrics_.Add("ufmr_rules_reloads_total{result=\"error\"}");
  metrics_.Set("ufmr_rules_last_reload_success", 0);
  std::string first = diags.empty() ? ""
                                    : diags[0].value("file", "") + ":" +
                                          std::to_string(diags[0].value("line", 0)) + ": " +
                                          diags[0].value("message", "");
  *alert = {"rules_reload",
            "Rules reload failed (" + std::to_string(errors) + " errors; first: " + first +
                "). Still using rules " + engine_.rules().hash + ".",
            {{"diagnostics", diags}, {"kept_hash", engine_.rules().hash}}};
}

void LiveRules::Observe(Sifting& s, FilterVerdict verdict, std::vector<Finding>* out) {
  const Observation& o = s.observation();
  if (verdict == FilterVerdict::kDrop) return;
  if (verdict == FilterVerdict::kNoteLinkDown) return engine_.NoteLinkDown(o, s.ports());
  if (s.soak_ends) {
    // Under soak, a sign past the rule's clear level fails verification at once: no count, no
    // hold.
    if (const Rule* broken = engine_.BreaksSoak(o)) {
      out->push_back(SoakSign(*broken, o, *s.soak_ends));
      return;
    }
  }
  const size_t before = out->size();
  engine_.Observe(o, out);
  if (o.reread) {
    // Findings rebuilt from events read again after a restart: not news for a soak either.
    for (size_t i = before; i < out->size(); ++i) MarkReadAgain(&(*out)[i]);
  }
}

void LiveRules::MarkReadAgain(Finding* f) {
  f->evidence["reread"] = true;
  // The episode was the last leader's, and it is over for this one: the rule counts the link
  // afresh from here (a link rule stays active after it fires, and held so it would swallow the
  // link's next fault, read fresh in the same poll). Only this rule's: another rule's hold on the
  // link (a cut still due) is news of its own.
  if (f->scope == RuleScope::kPort || f->scope == RuleScope::kLink) {
    engine_.ForgetRule(f->rule, f->link_key);
  }
}

void LiveRules::Tick(TimePoint now, std::optional<TimePoint> horizon, std::vector<Finding>* out) {
  // The last leader held from when it received the event, up to a UFM answering slowly or a poll
  // later than UFM's stamp this one holds from: only a hold that ran out this well before its
  // horizon was surely that leader's to fire (a later one is decided, unless its trigger was).
  constexpr double kMarginS = 10;
  const size_t before = out->size();
  engine_.Tick(now, out);
  if (!horizon) return;
  for (size_t i = before; i < out->size(); ++i) {
    Finding& f = (*out)[i];
    if (FromEventsReadAgain(f) && SecondsFrom(f.time, *horizon) >= kMarginS) MarkReadAgain(&f);
  }
}

Finding LiveRules::SoakSign(const Rule& broken, const Observation& o,
                            const std::vector<std::string>& ends) {
  Finding f;
  f.rule = broken.name;
  f.action = broken.action;
  f.mode = broken.mode;
  f.scope = broken.scope;
  f.severity = broken.severity;
  f.link_key = LinkKey(ends);
  f.ports = ends;
  f.time = o.time;
  f.rules_hash = engine_.rules().hash;
  f.reason = "during verification: " +
             (o.kind == Observation::Kind::kEvent ? o.name : o.counter + " increased");
  f.evidence = {{"observations", nlohmann::json::array()},
                {"during_soak", true},
                {"rules_hash", f.rules_hash}};
  f.observed.push_back(std::make_shared<const Observation>(o));
  return f;
}

std::string LiveRules::hash() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hash_;
}

double LiveRules::SoakFor(const Ticket& t) const {
  // Also called from HTTP threads (a repair report): the pipeline thread's snapshot, not the
  // engine's rules, which a reload may replace meanwhile.
  std::lock_guard<std::mutex> lock(mu_);
  auto it = soak_by_rule_.find(t.rule);
  return it != soak_by_rule_.end() ? it->second : config_.remediation.soak_s;
}

void LiveRules::Snapshot() {
  std::map<std::string, double> soaks;
  for (const auto& r : engine_.rules().rules) {
    if (r.soak_s > 0) soaks[r.name] = r.soak_s;
  }
  std::lock_guard<std::mutex> lock(mu_);
  hash_ = engine_.rules().hash;
  soak_by_rule_ = std::move(soaks);
}

}  // namespace ufmr
