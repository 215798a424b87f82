// Crash points: named places in an action's life where a test can make the service die as if
// killed with SIGKILL (kill -9), to prove that a restart neither loses nor repeats the action.
// Armed only by the environment variable UFMR_CRASH_AT=<name> or <action>:<name> (read once;
// "enable:sent" dies only on an enable); otherwise a no-op.
// Names: decided, submitted_marked, sent, job_recorded, job_done, confirmed, announced; for a
// host's drain in the job scheduler ("drain:<name>"): drain_sent (the scheduler took the drain,
// not yet recorded), drain_released (the host drained and its cut released, committed; the cut
// not yet sent).
#pragma once

#include <string>

namespace ufmr {

// Dies at once (SIGKILL to itself) when UFMR_CRASH_AT names this point (for this action).
void CrashPoint(const char* name, const std::string& action = "");

}  // namespace ufmr
