// UfmClaim: one UFM, one fabric. Each fabric's leader records the UFM it acts on (table
// fabric_ufm, schema 008). A leader that finds an older claim on the same UFM by another fabric
// whose leader is alive (its leader lock held, pg_locks) does not act: two fabric names on one
// UFM (a copied config, a shared environment file) would double every limit (disable cap, rate
// limit, breaker) and file each fault twice. The oldest claim acts; the others wait, raise an
// alert (kind ufm_shared) and say so in the log, and take over when the older one's leader is
// gone. Checked when an instance starts leading and every 10 s after. The loop's thread only.
#pragma once

#include <string>

#include "base/clock.h"
#include "base/metrics.h"
#include "store/store.h"

namespace ufmr {

class UfmClaim {
 public:
  UfmClaim(Store& store, std::string ufm_url, const Clock& clock, Metrics& metrics);

  // Whether this fabric's leader may act on its UFM (call only while holding the leader lock).
  // A database error keeps the last answer: false until one check has succeeded.
  bool Clear();
  const std::string& conflict() const { return conflict_; }  // the other fabric, "" if none

 private:
  Store& store_;
  std::string ufm_url_;  // lower-cased, no trailing '/'
  const Clock& clock_;
  Metrics& metrics_;
  TimePoint next_check_{};
  bool clear_ = false;
  std::string conflict_;
};

}  // namespace ufmr
