#include "config/telemetry_columns.h"

#include <cctype>

#include "base/text.h"

namespace ufmr {

namespace {

bool SameIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string Trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

const std::vector<std::string_view>& KnownTelemetryColumns() {
  static const std::vector<std::string_view> k = {
      // Identifiers.
      "timestamp", "port_guid", "port_num", "node_guid", "Link_speed_active", "Link_width_active",
      // The primary endpoint's counters (PortCountersExtended and friends).
      "PortXmitDataExtended", "PortRcvDataExtended", "PortXmitPktsExtended", "PortRcvPktsExtended",
      "PortUnicastXmitPkts", "PortUnicastRcvPkts", "PortMulticastXmitPkts", "PortMulticastRcvPkts",
      "SymbolErrorCounterExtended", "LinkErrorRecoveryCounterExtended", "LinkDownedCounterExtended",
      "PortRcvErrorsExtended", "PortRcvRemotePhysicalErrorsExtended",
      "PortRcvSwitchRelayErrorsExtended", "PortXmitDiscardsExtended",
      "PortXmitConstraintErrorsExtended", "PortRcvConstraintErrorsExtended",
      "LocalLinkIntegrityErrorsExtended", "ExcessiveBufferOverrunErrorsExtended",
      "VL15DroppedExtended", "PortXmitWaitExtended",
      // PortCounters (32-bit and narrower).
      "PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts", "SymbolErrorCounter",
      "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
      "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards",
      "PortXmitConstraintErrors", "PortRcvConstraintErrors", "LocalLinkIntegrityErrors",
      "ExcessiveBufferOverrunErrors", "VL15Dropped", "PortXmitWait", "UnknownBlockCounter",
      // The secondary endpoint's (low_freq_debug) counters, and physical-layer ones.
      "Symbol_Errors", "Effective_Errors", "Link_Down_IB", "phy_symbol_errors",
      "phy_effective_errors", "link_down_events"};
  return k;
}

std::string_view CanonicalTelemetryColumn(std::string_view name) {
  for (std::string_view known : KnownTelemetryColumns()) {
    if (SameIgnoringCase(known, name)) return known;
  }
  return {};
}

Result<TelemetryColumns> TelemetryColumns::Make(
    const std::map<std::string, std::string>& ours_to_theirs) {
  TelemetryColumns out;
  for (const auto& [ours, theirs_raw] : ours_to_theirs) {
    const std::string_view canonical = CanonicalTelemetryColumn(ours);
    if (canonical.empty()) {
      return Status::InvalidArgument("unknown counter name '" + ours +
                                     "' (docs/TELEMETRY.md lists the names a column map may use)");
    }
    const std::string theirs = Trimmed(theirs_raw);
    if (theirs.empty()) {
      return Status::InvalidArgument(ours + ": empty column name (give the endpoint's column)");
    }
    const std::string key = AsciiLower(theirs);
    for (const auto& [seen, seen_ours] : out.theirs_to_ours_) {
      if (seen == key && seen_ours != canonical) {
        return Status::InvalidArgument("column '" + theirs + "' is given for both " + seen_ours +
                                       " and " + std::string(canonical));
      }
    }
    for (const auto& [seen, seen_ours] : out.theirs_to_ours_) {
      if (seen_ours == canonical) {
        return Status::InvalidArgument(std::string(canonical) + " is mapped twice");
      }
    }
    out.theirs_to_ours_.emplace_back(key, std::string(canonical));
  }
  return out;
}

std::string_view TelemetryColumns::Rename(std::string_view name) const {
  for (const auto& [theirs, ours] : theirs_to_ours_) {
    if (SameIgnoringCase(theirs, name)) return ours;
  }
  std::string_view canonical = CanonicalTelemetryColumn(name);
  return canonical.empty() ? name : canonical;
}

}  // namespace ufmr
