// What the filters are told of this service's own holds, as two narrow interfaces: the ports it
// holds out of service (kept by the act stage: OwnPorts) and the repaired links it watches
// (SoakWatch). The filter stage reads them and links neither the store nor the act stage. Read on
// the pipeline thread only.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"

namespace ufmr {

class HeldPorts {
 public:
  virtual ~HeldPorts() = default;
  // Whether this service holds any port disabled (or is disabling one).
  virtual bool AnyDisabled() const = 0;
  // Whether this service holds the port disabled, or is disabling it.
  virtual bool HoldsDisabled(const std::string& port) const = 0;
  // Whether this service holds the port isolated (its own 702 MANUAL is not a person's).
  virtual bool HoldsIsolated(const std::string& port) const = 0;
  // Whether this service had the port disabled at `at` (by UFM's stamp): from just before its
  // disable to a minute after its enable. An event read again after a restart is judged by when
  // UFM stamped it, though the port may be back since: its disable's 336 and link-down are still
  // this service's, not a person's or a fault.
  virtual bool DisabledAt(const std::string& port, TimePoint at) const = 0;
  // The same for an isolation: its 702 MANUAL, read again, is not a person's.
  virtual bool IsolatedAt(const std::string& port, TimePoint at) const = 0;
};

class SoakingLinks {
 public:
  virtual ~SoakingLinks() = default;
  virtual bool AnyUnderSoak() const = 0;
  // Whether the link of these two ends (or one, its peer unknown) is under soak.
  virtual bool UnderSoak(const std::vector<std::string>& ends) const = 0;
};

}  // namespace ufmr
