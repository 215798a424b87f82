// Crash points: named places in an action's life where a test can make the service die as if
// killed with SIGKILL (kill -9), to prove that a restart neither loses nor repeats the action.
// Armed only by the environment variable UFMR_CRASH_AT=<name> (read once); otherwise a no-op.
// Names: decided, submitted_marked, sent, job_recorded, job_done, confirmed, announced.
#pragma once

namespace ufmr {

// Dies at once (SIGKILL to itself) when UFMR_CRASH_AT names this point.
void CrashPoint(const char* name);

}  // namespace ufmr
