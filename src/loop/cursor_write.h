// CursorWrite: where an input has been read to, to record with the pass's findings in one
// transaction (Store::Tx::SetCursor): after a restart the input resumes there. Plain data.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace ufmr {

struct CursorWrite {
  std::string source;  // "rest_events", "event_log"
  int64_t position = 0;
  nlohmann::json state;
};

}  // namespace ufmr
