#include "telemetry/error_counters.h"

namespace ufmr {

const std::set<std::string>& ErrorCounters() {
  static const std::set<std::string> k = {"SymbolErrorCounter",
                                          "SymbolErrorCounterExtended",
                                          "LinkDownedCounter",
                                          "LinkDownedCounterExtended",
                                          "LinkErrorRecoveryCounter",
                                          "LinkErrorRecoveryCounterExtended",
                                          "PortRcvErrors",
                                          "PortRcvErrorsExtended",
                                          "PortXmitDiscards",
                                          "PortXmitDiscardsExtended",
                                          "LocalLinkIntegrityErrors",
                                          "ExcessiveBufferOverrunErrors",
                                          "PortRcvRemotePhysicalErrors",
                                          "UnknownBlockCounter",
                                          "phy_effective_errors",
                                          "phy_symbol_errors",
                                          "link_down_events",
                                          "raw_ber"};
  return k;
}

}  // namespace ufmr
