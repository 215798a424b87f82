#include "store/node_drain.h"

namespace ufmr {

std::string DrainReasonPrefix(int64_t ticket_id) {
  return "ufm-remediator #" + std::to_string(ticket_id) + ":";
}

std::string DrainReason(int64_t ticket_id, const std::string& rule, const std::string& port) {
  return DrainReasonPrefix(ticket_id) + " " + rule + " on " + port;
}

}  // namespace ufmr
