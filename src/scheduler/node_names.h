// NodeNames: a host as UFM names it ("gpu-node-0001 HCA-1"'s node, "gpu-node-0001") to its
// node name in the scheduler. The same name by default; with `scheduler.node_pattern` (RE2) and
// `scheduler.node_name` (its rewrite, "\1"), the rewrite of the pattern's match. A host the
// pattern does not match has no node. Thread-safe once made.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/status.h"

namespace re2 {
class RE2;
}

namespace ufmr {

class NodeNames {
 public:
  // InvalidArgument when the pattern does not compile or the rewrite names a group it lacks.
  static Result<NodeNames> Make(const std::string& pattern, const std::string& rewrite);
  NodeNames();
  ~NodeNames();
  NodeNames(NodeNames&&) noexcept;
  NodeNames& operator=(NodeNames&&) noexcept;

  std::optional<std::string> Of(const std::string& host) const;

 private:
  std::unique_ptr<re2::RE2> pattern_;  // null: the same name
  std::string rewrite_;
};

}  // namespace ufmr
