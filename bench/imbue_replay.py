#!/usr/bin/env python3
"""Runs Imbue's find_problematic_events.py over a local UFM event log, for the side-by-side in
bench/replay_bench.sh.

The script is not part of this repository: get it from github.com/imbue-ai/cluster-health
(ufm_events/find_problematic_events.py) and pass its path. It needs python3-attr and
python3-requests. Its `process-logs` reads UFM's event log over scp and a peer-port map from a
file of its own repository; here the log is the given file and the map is empty (the script only
prints a message for ports without a peer, sent to /dev/null here with the rest of its output).
Nothing else of it is changed: the time measured is its own parsing, pruning and deciding.

usage: imbue_replay.py SCRIPT EVENT_LOG ACTIONS_OUT
Prints one line: "<seconds> <actions>".
"""
import contextlib
import importlib.util
import os
import pathlib
import sys
import time


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(sys.argv) != 2 else sys.stdout)
        return 0 if len(sys.argv) == 2 else 2
    script, event_log, actions_out = sys.argv[1:]
    spec = importlib.util.spec_from_file_location("find_problematic_events", script)
    if spec is None or spec.loader is None:
        print(f"imbue_replay: cannot load {script}", file=sys.stderr)
        return 2
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    @contextlib.contextmanager
    def local_log():
        yield pathlib.Path(event_log)

    module.download_event_log_locally = local_log
    module.read_peer_port_mapping = lambda: {}
    devnull = open(os.devnull, "w")
    module.ERROR_FILE = devnull
    start = time.monotonic()
    with contextlib.redirect_stdout(devnull):
        module.process_logs(actions_out)
    seconds = time.monotonic() - start
    with open(actions_out) as f:
        actions = sum(1 for _ in f)
    print(f"{seconds:.2f} {actions}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
