#include "notify/route.h"

#include <re2/re2.h>

#include <utility>

namespace ufmr {

struct RouteTree::Node {
  const Config::Notify::Route* route = nullptr;
  std::string path;
  std::vector<std::pair<std::string, std::unique_ptr<re2::RE2>>> patterns;  // label, pattern
  std::vector<Node> children;

  // Whether every matcher of this node holds.
  bool Takes(const Labels& labels) const {
    auto value = [&](const std::string& label) {
      auto it = labels.find(label);
      return it == labels.end() ? std::string() : it->second;
    };
    for (const auto& [label, want] : route->match) {
      if (value(label) != want) return false;
    }
    for (const auto& [label, re] : patterns) {
      if (!re->ok() || !re2::RE2::FullMatch(value(label), *re)) return false;
    }
    return true;
  }

  RouteMatch Here(const Labels& labels) const {
    RouteMatch m;
    m.receiver = route->receiver;
    m.group_key = path;
    for (const std::string& label : route->group_by) {
      auto it = labels.find(label);
      const std::string v = it == labels.end() ? "" : it->second;
      m.group_labels[label] = v;
      m.group_key += "|" + label + "=" + v;
    }
    m.group_wait_s = route->group_wait_s;
    m.group_interval_s = route->group_interval_s;
    m.repeat_interval_s = route->repeat_interval_s;
    return m;
  }

  static Node Make(const Config::Notify::Route& r, std::string path) {
    Node n;
    n.route = &r;
    for (const auto& [label, pattern] : r.match_re) {
      n.patterns.emplace_back(label, std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet));
    }
    for (size_t i = 0; i < r.routes.size(); ++i) {
      n.children.push_back(Make(r.routes[i], path + "." + std::to_string(i)));
    }
    n.path = std::move(path);
    return n;
  }

  void Walk(const Labels& labels, std::vector<RouteMatch>* out) const {
    const size_t before = out->size();
    for (const Node& child : children) {
      if (!child.Takes(labels)) continue;
      child.Walk(labels, out);
      if (!child.route->continue_matching) break;
    }
    if (out->size() == before && !route->receiver.empty()) out->push_back(Here(labels));
  }
};

RouteTree::RouteTree(const Config::Notify::Route& root)
    : config_(std::make_unique<Config::Notify::Route>(root)),
      root_(std::make_unique<Node>(Node::Make(*config_, "0"))) {}

RouteTree::~RouteTree() = default;
RouteTree::RouteTree(RouteTree&&) noexcept = default;
RouteTree& RouteTree::operator=(RouteTree&&) noexcept = default;

std::vector<RouteMatch> RouteTree::Match(const Labels& labels) const {
  std::vector<RouteMatch> out;
  if (root_->Takes(labels)) root_->Walk(labels, &out);
  return out;
}

}  // namespace ufmr
