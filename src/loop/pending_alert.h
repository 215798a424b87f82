// PendingAlert: an alert for the dashboard (lost or replayed events, a failed rules reload), held
// until the pass records it with its input cursors, in the same transaction. Plain data.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ufmr {

struct PendingAlert {
  std::string kind;
  std::string message;
  nlohmann::json details;
};

}  // namespace ufmr
