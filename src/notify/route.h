// RouteTree: the notify.route tree compiled (its match_re patterns once), and the walk that says
// which receivers hear of a notification, in which group: as Alertmanager routes an alert. A
// node takes a notification when every match and match_re of it holds for the notification's
// labels (a label it lacks is ""); its children are tried in order, and the first that takes it
// ends the walk unless that child says continue; a node none of whose children took it is where
// the notification goes (its receiver, its grouping and timings). Immutable once built; safe to
// share between threads.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"

namespace ufmr {

using Labels = std::map<std::string, std::string>;

// Where one notification goes: a receiver, and the group it joins there.
struct RouteMatch {
  std::string receiver;
  // The route's place in the tree ("0.2": the root's first child's third) and the values of its
  // group_by labels: notifications with the same key go out together.
  std::string group_key;
  Labels group_labels;  // the group_by labels and their values
  double group_wait_s = 0;
  double group_interval_s = 0;
  double repeat_interval_s = 0;
};

class RouteTree {
 public:
  explicit RouteTree(const Config::Notify::Route& root);
  ~RouteTree();
  RouteTree(RouteTree&&) noexcept;
  RouteTree& operator=(RouteTree&&) noexcept;

  // Every place the notification goes (none: no node takes it, or the one that does names no
  // receiver). A receiver reached by two routes gets it in each route's group.
  std::vector<RouteMatch> Match(const Labels& labels) const;

 private:
  struct Node;
  std::unique_ptr<const Config::Notify::Route> config_;  // the nodes point into it
  std::unique_ptr<Node> root_;
};

}  // namespace ufmr
