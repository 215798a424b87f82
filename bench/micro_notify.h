// Micro benchmark of notifications (PostgreSQL, env UFMR_BENCH_DB_URL): BM_NotifyStorm, a storm
// of new tickets (their timeline events written as the record stage writes them) routed,
// grouped into one message and handed to a receiver by the Notifier, end to end through its
// tables; notifications/s. Registered by micro_bench.cc.
#pragma once

namespace ufmr::bench {

void RegisterNotifyBenchmarks();

}  // namespace ufmr::bench
