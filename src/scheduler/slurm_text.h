// SlurmText: Slurm's command output as the Slurm backend asks for it (sinfo and squeue with
// '|'-separated fields), read into SchedulerNode and SchedulerJob. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "scheduler/scheduler.h"

namespace ufmr::slurm_text {

// The sinfo fields the backend asks for, in order (`sinfo -N -h -O <kNodeFormat>`).
inline constexpr const char* kNodeFormat = "NodeList:0|,StateComplete:0|,Reason:0|";
// The squeue fields (`squeue -h -o <kJobFormat>`): id, user, name, node count, state. The job
// name comes last: it may hold '|'.
inline constexpr const char* kJobFormat = "%i|%u|%D|%T|%j";

// One node per line ("gpu-node-0001|mixed+drain|ufm-remediator #42: ...|"); a node listed more
// than once (one line per partition) is given once. A line without the fields is an error.
Result<std::vector<SchedulerNode>> ParseNodes(std::string_view text);
// A node's state from sinfo's StateComplete ("idle+drain", "mixed+drain+not_responding").
void ReadState(std::string_view state, SchedulerNode* node);
Result<std::vector<SchedulerJob>> ParseJobs(std::string_view text);

}  // namespace ufmr::slurm_text
