#include "scheduler/slurm_text.h"

#include <charconv>
#include <set>

#include "config/secret_mask.h"

namespace ufmr::slurm_text {

namespace {

// The '|'-separated fields of a line; at most `max` (the last keeps any further '|').
std::vector<std::string_view> Fields(std::string_view line, size_t max) {
  std::vector<std::string_view> fields;
  while (fields.size() + 1 < max) {
    size_t bar = line.find('|');
    if (bar == std::string_view::npos) break;
    fields.push_back(line.substr(0, bar));
    line.remove_prefix(bar + 1);
  }
  fields.push_back(line);
  return fields;
}

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s;
}

// The lines of `text` that hold something.
template <typename F>
Status ForEachLine(std::string_view text, F&& f) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = Trimmed(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.empty()) continue;
    if (Status s = f(line); !s.ok()) return s;
  }
  return Status::Ok();
}

std::string Excerpt(std::string_view line) { return SecretMask::Global().Excerpt(line, 120); }

}  // namespace

void ReadState(std::string_view state, SchedulerNode* node) {
  node->state = std::string(state);
  node->drain = false;
  node->busy = false;
  while (!state.empty()) {
    size_t plus = state.find('+');
    std::string_view word = state.substr(0, plus);
    // sinfo's short suffixes ("*" not responding, "~" powered off, ...) are not states.
    while (!word.empty() && !(word.back() >= 'a' && word.back() <= 'z')) word.remove_suffix(1);
    if (word == "drain" || word == "drained" || word == "draining") node->drain = true;
    if (word == "allocated" || word == "mixed" || word == "completing" || word == "draining") {
      node->busy = true;
    }
    state.remove_prefix(plus == std::string_view::npos ? state.size() : plus + 1);
  }
}

Result<std::vector<SchedulerNode>> ParseNodes(std::string_view text) {
  std::vector<SchedulerNode> nodes;
  std::set<std::string, std::less<>> seen;
  Status s = ForEachLine(text, [&](std::string_view line) {
    // The reason is the rest of the line but the last field's '|': it may hold '|' itself.
    auto f = Fields(line, 3);
    if (f.size() < 3 || Trimmed(f[0]).empty()) {
      return Status::InvalidArgument("sinfo: expected 'node|state|reason|', got '" + Excerpt(line) +
                                     "'");
    }
    std::string_view name = Trimmed(f[0]);
    if (!seen.insert(std::string(name)).second) return Status::Ok();
    SchedulerNode node;
    node.name = std::string(name);
    ReadState(Trimmed(f[1]), &node);
    std::string_view reason = f[2];
    if (!reason.empty() && reason.back() == '|') reason.remove_suffix(1);
    reason = Trimmed(reason);
    node.reason = reason == "none" ? "" : std::string(reason);
    nodes.push_back(std::move(node));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return nodes;
}

Result<std::vector<SchedulerJob>> ParseJobs(std::string_view text) {
  std::vector<SchedulerJob> jobs;
  Status s = ForEachLine(text, [&](std::string_view line) {
    auto f = Fields(line, 5);
    int nodes = 0;
    if (f.size() < 5 ||
        std::from_chars(f[2].data(), f[2].data() + f[2].size(), nodes).ec != std::errc()) {
      return Status::InvalidArgument("squeue: expected 'id|user|nodes|state|name', got '" +
                                     Excerpt(line) + "'");
    }
    jobs.push_back(SchedulerJob{std::string(f[0]), std::string(f[1]), std::string(f[4]), nodes,
                                std::string(f[3])});
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return jobs;
}

}  // namespace ufmr::slurm_text
