#!/usr/bin/env python3
"""Macro benchmarks: the real service, ufm-sim and a throwaway PostgreSQL over loopback.

  bench/macro_bench.py detection [--faults N] [--poll S]
      Detection latency: link-downs injected one at a time into the simulated UFM, each on a
      different host and spread over the leaves (so no switch- or host-level rule explains them
      away); for each, the time from the event's appearance in UFM (the fault's creation in the
      simulator) to the disable request reaching it. The shipped rules, with link_down's 30 s
      hold set to 0 (the hold is policy, not detection). Target: p99 <= poll interval + 1 s.
  bench/macro_bench.py steady [--seconds S]
      Steady state: a fabric of about 100,000 ports, telemetry every 10 s, events polled twice a
      second, no faults: the service's CPU (user + system, as a share of one core) and its peak
      RSS over S seconds after a warm-up. Targets: <= 10 % of one core, <= 512 MB.

  bench/macro_bench.py storm [--events N]
      An event storm: leaf switches of the 100,000-port fabric reboot one after another over about
      10 s (each takes its ~196 links down and, 3 s later, up: some 394 events), N events in all
      (default 50,000), with a real link fault on a switch that stays up every second. Figures:
      how long after the last storm event the service has read every event (ufmr_events_total),
      with none lost; the decisions (each real fault disabled exactly once, no port of a
      rebooting switch disabled); the service's peak RSS. Targets: drained within 10 s, RSS <=
      512 MB.

Prints one tab-separated row per figure: figure, value, target, ok|MISS (scripts/bench collects
them). Needs the build's ufm-remediator and ufm-sim (BUILD_DIR, default build), PostgreSQL
(scripts/pg-temp.sh) and curl-free Python 3. Logs are kept in BUILD_DIR/macro_bench/.
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import datetime

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(os.environ.get("BUILD_DIR", os.path.join(SRC, "build")))
WORK = os.path.join(BUILD, "macro_bench")
CLK_TCK = os.sysconf("SC_CLK_TCK")
# 256 leaves x 66 hosts x 2 HCAs + 256 x 64 uplinks: 100,352 ports.
BIG_FABRIC = "fat-tree:leaves=256,spines=64,hosts_per_leaf=66,hcas_per_host=2"


def row(figure, value, target, ok):
    print(f"{figure}\t{value}\t{target}\t{'ok' if ok else 'MISS'}", flush=True)


def note(msg):
    print(f"macro_bench: {msg}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_json(url, body=None, timeout=10):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def http_status(url, timeout=5):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


def iso_seconds(text):
    # "2026-11-29T18:46:32.123Z"
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def wait_for(what, fn, timeout, proc=None, every=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what}: the process exited ({proc.returncode})")
        v = fn()
        if v:
            return v
        time.sleep(every)
    raise RuntimeError(f"{what}: not within {timeout} s")


def percentile(values, p):
    s = sorted(values)
    k = (len(s) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


class Rig:
    """PostgreSQL, ufm-sim and `ufm-remediator serve` for one scenario; stops them all."""

    def __init__(self, name):
        self.dir = os.path.join(WORK, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.procs = []
        self.pg_dir = None

    def start_postgres(self):
        self.pg_dir = os.path.join(self.dir, "pg")
        out = subprocess.run([os.path.join(SRC, "scripts/pg-temp.sh"), "start", self.pg_dir],
                             check=True, capture_output=True, text=True)
        self.db_url = out.stdout.strip().splitlines()[-1]

    def start_sim(self, topology):
        ready = os.path.join(self.dir, "sim-ready.json")
        log = open(os.path.join(self.dir, "sim.log"), "w")
        p = subprocess.Popen([os.path.join(BUILD, "ufm-sim"), "--port", "0", "--telemetry-port",
                              "0", "--topology", topology, "--job-delay-ms", "200",
                              "--ready-file", ready], stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(p)
        info = wait_for("ufm-sim", lambda: os.path.exists(ready) and os.path.getsize(ready) > 0
                        and json.load(open(ready)), 300, p)
        self.sim = f"http://127.0.0.1:{info['port']}"
        self.telemetry = f"http://127.0.0.1:{info['telemetry_port']}/csv/metrics"

    def rules(self, hold):
        d = os.path.join(self.dir, "rules")
        shutil.copytree(os.path.join(SRC, "rules"), d)
        links = os.path.join(d, "links.yaml")
        text = open(links).read()
        assert "    for: 30s" in text, "rules/links.yaml: link_down's hold moved"
        open(links, "w").write(text.replace("    for: 30s", f"    for: {hold}", 1))
        return d

    def start_service(self, rules_dir, poll_s, telemetry_s):
        self.api = f"http://127.0.0.1:{free_port()}"
        config = os.path.join(self.dir, "config.yaml")
        with open(config, "w") as f:
            f.write(f"""fabric: bench
ufm:
  url: {self.sim}
  user: admin
  password: "123456"
telemetry:
  url: {self.telemetry}
  interval_s: {telemetry_s}
database:
  url: "{self.db_url}"
  schema_dir: {SRC}/schema
rules:
  dir: {rules_dir}
events:
  poll_interval_s: {poll_s}
http:
  listen: 127.0.0.1
  port: {self.api.rsplit(':', 1)[1]}
auth:
  anonymous_read: true
remediation:
  job_poll_interval_s: 0.2
  max_disabled_ports: 100000
  max_disabled_percent: 50
  max_disabled_per_switch: 1000
  max_actions_per_hour: 100000
  breaker_findings: 100000
""")
        subprocess.run([os.path.join(BUILD, "ufm-remediator"), "db", "migrate", "--config", config],
                       check=True, capture_output=True)
        log = open(os.path.join(self.dir, "serve.log"), "w")
        self.service = subprocess.Popen([os.path.join(BUILD, "ufm-remediator"), "serve", "--config",
                                         config], stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(self.service)
        wait_for("the service's /readyz", lambda: http_status(self.api + "/readyz") == 200, 600,
                 self.service)

    def cpu_seconds(self):
        fields = open(f"/proc/{self.service.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime

    def status_kib(self, key):
        for line in open(f"/proc/{self.service.pid}/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return 0

    def metric(self, name):
        with urllib.request.urlopen(self.api + "/metrics", timeout=10) as r:
            for line in r.read().decode().splitlines():
                if line.startswith(name + " "):
                    return float(line.split()[1])
        return 0.0

    def disables(self):
        """The simulator's disable requests, oldest first: (port, epoch seconds)."""
        return [(a["port"], iso_seconds(a["time"])) for a in http_json(self.sim + "/sim/actions")
                if a["action"] == "disable"]

    def newest_event_id(self):
        req = urllib.request.Request(self.sim + "/ufmRest/app/events")
        req.add_header("Authorization", "Basic YWRtaW46MTIzNDU2")  # admin:123456, the sim's
        with urllib.request.urlopen(req, timeout=30) as r:
            events = json.loads(r.read())
        return max((e["id"] for e in events), default=0)

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
        if self.pg_dir:
            subprocess.run([os.path.join(SRC, "scripts/pg-temp.sh"), "stop", self.pg_dir],
                           capture_output=True)


def is_host(end):
    """Whether a /sim/links end is a host's port: the simulator says so. Its description names
    the adapter as UFM does, "HCA-1" before UFM 6.17 and "mlx5_0" from it, so the word is no
    test."""
    return not end.get("is_switch", "HCA" not in end.get("node_description", ""))


def detection(args):
    rig = Rig("detection")
    try:
        rig.start_postgres()
        # Two HCAs per host on different leaves: a host never loses its last link.
        rig.start_sim("fat-tree:leaves=32,spines=8,hosts_per_leaf=8,hcas_per_host=2")
        rig.start_service(rig.rules("0s"), args.poll, 60)
        links = http_json(rig.sim + "/sim/links")
        by_leaf = {}
        hosts = set()
        for l in links:
            a, b = l["a"], l["b"]
            if not is_host(b):
                continue
            if b["system_name"] in hosts:
                continue  # one link per host: two of a host's links read as a reboot
            hosts.add(b["system_name"])
            by_leaf.setdefault(a["system_name"], []).append((a["port"], b["port"]))
        # Round-robin over the leaves: a leaf sees a fault every leaves * spacing seconds, far
        # more than switch_many_links_down's 20 s window.
        order = []
        while any(by_leaf.values()) and len(order) < args.faults:
            for leaf in sorted(by_leaf):
                if by_leaf[leaf] and len(order) < args.faults:
                    order.append(by_leaf[leaf].pop(0))
        if len(order) < args.faults:
            raise RuntimeError(f"only {len(order)} usable links for {args.faults} faults")
        rng = random.Random(7)
        created = {}
        for sw, host in order:
            f = http_json(rig.sim + "/sim/faults", {"kind": "link_down", "port": host})
            created[sw] = iso_seconds(f["created"])
            time.sleep(rng.uniform(1.0, 2.0))  # lands anywhere in the poll cycle

        try:
            wait_for("a disable for every fault",
                     lambda: len(set(dict(rig.disables())) & set(created))
                     == len(created), 60, rig.service)
        except RuntimeError as e:
            note(str(e))
        acted = dict(rig.disables())
        lat = [acted[sw] - created[sw] for sw in created if sw in acted]
        target = args.poll + 1.0
        if len(lat) < len(created):
            row(f"detection: faults disabled (of {len(created)})", len(lat), len(created), False)
        if not lat:
            return
        p50, p99 = percentile(lat, 50), percentile(lat, 99)
        row(f"detection p50, {1 / args.poll:g} polls/s (s)", f"{p50:.3f}", f"<= {target:g}",
            p50 <= target)
        row(f"detection p99, {1 / args.poll:g} polls/s (s)", f"{p99:.3f}", f"<= {target:g}",
            p99 <= target)
        extra = sorted(set(acted) - set(created))
        row("detection: ports disabled without a fault", len(extra), "0", not extra)
    finally:
        rig.stop()


def steady(args):
    rig = Rig("steady")
    try:
        rig.start_postgres()
        rig.start_sim(BIG_FABRIC)
        rig.start_service(rig.rules("30s"), 0.5, 10)
        time.sleep(args.warmup)
        ports = rig.metric("ufmr_inventory_ports")
        reads0 = rig.metric('ufmr_input_reads_total{input="telemetry",result="ok"}')
        cpu0, t0 = rig.cpu_seconds(), time.time()
        time.sleep(args.seconds)
        cpu1, t1 = rig.cpu_seconds(), time.time()
        reads1 = rig.metric('ufmr_input_reads_total{input="telemetry",result="ok"}')
        cpu_pct = 100.0 * (cpu1 - cpu0) / (t1 - t0)
        peak_mb = rig.status_kib("VmHWM") / 1024.0
        polls = int(reads1 - reads0)
        want_polls = int(args.seconds / 10) - 1
        row(f"steady: ports in the inventory", int(ports), ">= 100000", ports >= 100000)
        row(f"steady: telemetry polls in {args.seconds} s", polls, f">= {want_polls}",
            polls >= want_polls)
        row("steady: service CPU, % of one core", f"{cpu_pct:.1f}", "<= 10", cpu_pct <= 10)
        row("steady: service peak RSS (MB)", f"{peak_mb:.0f}", "<= 512", peak_mb <= 512)
    finally:
        rig.stop()


def storm(args):
    rig = Rig("storm")
    try:
        rig.start_postgres()
        rig.start_sim(BIG_FABRIC)
        rig.start_service(rig.rules("30s"), 0.5, 10)
        links = http_json(rig.sim + "/sim/links")
        leaves = sorted({l["a"]["system_name"] for l in links
                         if is_host(l["b"])})
        links_per_leaf = {}
        for l in links:
            for end in ("a", "b"):
                name = l[end]["system_name"]
                if name in leaves:
                    links_per_leaf[name] = links_per_leaf.get(name, 0) + 1
        per_reboot = 2 + 2 * links_per_leaf[leaves[0]]  # switch down/up and each link down/up
        reboots = max(1, round(args.events / per_reboot))
        if reboots > len(leaves) - 16:
            raise RuntimeError(f"{args.events} events need {reboots} of {len(leaves)} leaves")
        rebooting = leaves[:reboots]
        # Real faults: one host link each, one per leaf, on hosts none of whose links is on a
        # rebooting leaf (a host that lost its other link to a reboot keeps its last one: the
        # last_link guard, rightly).
        leaves_of = {}
        for l in links:
            if is_host(l["b"]):
                leaves_of.setdefault(l["b"]["system_name"], set()).add(l["a"]["system_name"])
        down = set(rebooting)
        real, used_leaves, used_hosts = [], set(), set()
        for l in links:
            a, b = l["a"], l["b"]
            host = b["system_name"]
            if (not is_host(b) or leaves_of[host] & down
                    or a["system_name"] in used_leaves or host in used_hosts):
                continue
            used_leaves.add(a["system_name"])
            used_hosts.add(host)
            real.append((a["port"], b["port"]))
        real = real[:10]
        events0 = rig.metric('ufmr_events_total{source="rest"}')
        first = rig.newest_event_id()
        spacing = 10.0 / reboots
        pending = list(real)
        t0 = time.time()
        next_fault = t0
        for i, leaf in enumerate(rebooting):
            http_json(rig.sim + "/sim/faults", {"kind": "switch_reboot", "switch": leaf,
                                                "down_s": 3})
            if pending and time.time() >= next_fault:
                http_json(rig.sim + "/sim/faults", {"kind": "link_down", "port": pending.pop(0)[1]})
                next_fault += 1.0
            time.sleep(max(0.0, t0 + (i + 1) * spacing - time.time()))
        for _, host in pending:
            http_json(rig.sim + "/sim/faults", {"kind": "link_down", "port": host})
        # The last reboot's links come back 3 s after it went down: that is the storm's end.
        time.sleep(max(0.0, t0 + reboots * spacing + 3.2 - time.time()))
        newest = rig.newest_event_id()
        t_end = time.time()
        read = lambda: rig.metric('ufmr_events_total{source="rest"}') - events0
        try:
            wait_for("the service reading every event", lambda: read() >= newest - first, 120,
                     rig.service, every=0.25)
            drained = time.time() - t_end
        except RuntimeError as e:
            note(str(e))
            drained = float("inf")
        events = read()
        lost = rig.metric("ufmr_events_lost_total")
        # The real faults are acted on (the hold is link_down's 30 s): wait for them.
        want = {sw for sw, _ in real}

        def disables():
            return [port for port, _ in rig.disables()]

        try:
            wait_for("a disable for each real fault", lambda: want <= set(disables()), 90,
                     rig.service, every=1.0)
        except RuntimeError as e:
            note(str(e))
        acted = disables()
        on_rebooted = [p for p in acted if p not in want]
        twice = sorted({p for p in acted if acted.count(p) > 1})
        peak_mb = rig.status_kib("VmHWM") / 1024.0
        row(f"storm: events in UFM ({reboots} switch reboots, {len(want)} link faults)",
            newest - first, f">= {args.events * 0.95:.0f}", newest - first >= args.events * 0.95)
        row("storm: events the service read", int(events), newest - first,
            events >= newest - first)
        row("storm: events lost (UFM's list overflowed)", int(lost), "0", lost == 0)
        row("storm: drained, after its last event (s)", f"{drained:.2f}", "<= 10", drained <= 10)
        row(f"storm: real faults disabled (of {len(want)})", len(want & set(acted)), len(want),
            want <= set(acted))
        row("storm: ports disabled twice, or on a rebooting switch", len(twice) + len(on_rebooted),
            "0", not twice and not on_rebooted)
        row("storm: service peak RSS (MB)", f"{peak_mb:.0f}", "<= 512", peak_mb <= 512)
    finally:
        rig.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="scenario", required=True)
    d = sub.add_parser("detection")
    d.add_argument("--faults", type=int, default=50)
    d.add_argument("--poll", type=float, default=0.5)
    s = sub.add_parser("steady")
    s.add_argument("--seconds", type=int, default=60)
    s.add_argument("--warmup", type=int, default=20)
    st = sub.add_parser("storm")
    st.add_argument("--events", type=int, default=50000)
    args = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    try:
        {"detection": detection, "steady": steady, "storm": storm}[args.scenario](args)
    except Exception as e:  # a rig that does not start is a MISS with the reason, not a trace
        row(f"{args.scenario}: run", f"failed: {e}", "runs", False)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
