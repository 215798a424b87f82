// Scheduler: the job scheduler the fabric's hosts run their jobs under, as the service needs it:
// a node's state and drain reason, draining and resuming a node, and the jobs on a node. One
// backend today, Slurm (slurm_cli.h); `scheduler.backend: none` means no scheduler. Errors:
// NotFound for a node the scheduler does not know, Unavailable for a scheduler that did not
// answer (try again later), InvalidArgument for a request it refused.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace ufmr {

struct SchedulerNode {
  std::string name;
  std::string state;   // the scheduler's own words: "mixed+drain", "idle", "down+not_responding"
  std::string reason;  // why it is drained or down, as whoever drained it wrote it
  bool drain = false;  // drained or draining (no new jobs start on it)
  bool busy = false;   // jobs still run (or are completing) on it

  bool drained() const { return drain && !busy; }
  bool draining() const { return drain && busy; }
};

struct SchedulerJob {
  std::string id;
  std::string user;
  std::string name;
  int nodes = 0;      // nodes the job runs on
  std::string state;  // RUNNING, COMPLETING, ...
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual Result<SchedulerNode> Node(const std::string& name) = 0;
  // No new jobs on the node; the running ones finish. `reason` is what people see.
  virtual Status Drain(const std::string& name, const std::string& reason) = 0;
  // Jobs may run on the node again.
  virtual Status Resume(const std::string& name) = 0;
  virtual Result<std::vector<SchedulerJob>> Jobs(const std::string& node) = 0;
  // How many nodes the scheduler knows (the drain cap's percent is of these).
  virtual Result<int> NodeCount() = 0;
};

}  // namespace ufmr
