#include "scheduler/node_names.h"

#include <re2/re2.h>

namespace ufmr {

NodeNames::NodeNames() = default;
NodeNames::~NodeNames() = default;
NodeNames::NodeNames(NodeNames&&) noexcept = default;
NodeNames& NodeNames::operator=(NodeNames&&) noexcept = default;

Result<NodeNames> NodeNames::Make(const std::string& pattern, const std::string& rewrite) {
  NodeNames names;
  if (pattern.empty()) return names;
  auto re = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
  if (!re->ok()) {
    return Status::InvalidArgument("scheduler.node_pattern: " + re->error());
  }
  std::string why;
  if (!re->CheckRewriteString(rewrite, &why)) {
    return Status::InvalidArgument("scheduler.node_name: " + why);
  }
  names.pattern_ = std::move(re);
  names.rewrite_ = rewrite;
  return names;
}

std::optional<std::string> NodeNames::Of(const std::string& host) const {
  if (host.empty()) return std::nullopt;
  if (!pattern_) return host;
  std::string node;
  if (!re2::RE2::Extract(host, *pattern_, rewrite_, &node) || node.empty()) return std::nullopt;
  return node;
}

}  // namespace ufmr
