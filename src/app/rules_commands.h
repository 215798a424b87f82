// The commands network engineers run on rules, offline: `rules check`, `rules test` and
// `replay`. Each takes its arguments after the command words and returns the process exit code.
#pragma once

#include "app/cli.h"

namespace ufmr::app {

// rules check PATH... [--format text|json]: exit 0 when valid, 1 with the diagnostics when not.
int RulesCheck(const CommandLine& cl);
// rules test PATH... [--format text|json]: exit 0 when every test passes.
int RulesTest(const CommandLine& cl);
// replay --rules PATH --event-log FILE [--telemetry FILE_OR_DIR ...] [--ports FILE]
//        [--silences FILE] [--utc-offset +HH:MM] [--max-disabled N] [--format jsonl|text]
//        [--jobs N] [--progress]: --jobs parses the event log on N threads (the rules stay on
//        one, in order); --progress (or a terminal on stderr) shows lines, rate and log time.
int Replay(const CommandLine& cl);

}  // namespace ufmr::app
