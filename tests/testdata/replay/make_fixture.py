#!/usr/bin/env python3
"""Writes a small recorded fabric for the replay tests: ports.json (a saved /resources/ports
response), event.log (UFM's event log) and telemetry/*.csv (UFM Telemetry snapshots every 5
minutes). Three hours of a fabric of two leaves and two spines (each leaf has an uplink to each
spine; fsgb003 has two HCAs, one on each leaf; every other host has one link) in which, in order:
  00:10  leaf-1 port 5 <-> fsgb003 HCA-1 goes down and stays down    -> disable (HCA-2 stays)
  00:20  the uplink leaf-1 port 33 <-> spine port 8 flaps (5 downs)   -> disable once
  00:30+ leaf-2 port 7 <-> fsgb005 ramps up symbol errors (telemetry) -> blocked: fsgb005's only
         link is never cut automatically (its ticket asks to drain the host)
  01:00  fsgb002 reboots (331, its link down, 332, up)                -> nothing cut
  01:30  leaf-2 reboots (907, its links down, 908, up)                -> nothing cut
  02:00  a person isolates leaf-1 port 4 (702 MANUAL); 02:10 it goes down -> blocked
  02:30  leaf-1 port 6's symbol error counter is reset (clear counters) -> nothing
Run it again to regenerate; the output is deterministic."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LEAF1, LEAF2, SPINE = "9c0591030090e000", "9c0591030090f000", "fc6a1c0300244e00"
SPINE2 = "fc6a1c0300255e00"
L1, L2, SP, SP2 = "T3-E21-N-U47", "T3-E22-N-U48", "T4-E45-L-U51", "T4-E46-L-U52"
FSGB003_HCA2 = "e41d2d0300a4f494"  # fsgb003's second HCA, on leaf-2 port 10
HOSTS = {  # host: (guid, leaf guid, leaf name, leaf port)
    "fsgb001": ("e41d2d0300a4f482", LEAF1, L1, 1),
    "fsgb002": ("e41d2d0300a4f483", LEAF1, L1, 3),
    "fsgb004": ("e41d2d0300a4f485", LEAF1, L1, 4),
    "fsgb003": ("e41d2d0300a4f484", LEAF1, L1, 5),
    "fsgb006": ("e41d2d0300a4f487", LEAF1, L1, 6),
    "fsgb005": ("e41d2d0300a4f486", LEAF2, L2, 7),
    "fsgb007": ("e41d2d0300a4f488", LEAF2, L2, 8),
    "fsgb008": ("e41d2d0300a4f489", LEAF2, L2, 9),
}


def label(n):
    return "1/%d/%d" % ((n + 1) // 2, 1 if n % 2 else 2)


def ports():
    out = []

    def sw(guid, name, n, peer):
        out.append({"name": "%s_%d" % (guid, n), "guid": guid, "systemID": guid,
                    "system_name": name, "node_description": "%s:%s" % (name, label(n)),
                    "description": "Switch IB Port", "number": n, "dname": label(n),
                    "logical_state": "Active", "physical_state": "Link Up", "peer": peer,
                    "active_speed": "NDR", "active_width": "4x"})

    for host, (guid, leaf, leaf_name, n) in HOSTS.items():
        sw(leaf, leaf_name, n, guid + "_1")
        out.append({"name": guid + "_1", "guid": guid, "systemID": "0a" + guid[2:],
                    "system_name": host, "node_description": host + " HCA-1",
                    "description": "Computer IB Port", "number": 1,
                    "logical_state": "Active", "physical_state": "Link Up",
                    "peer": "%s_%d" % (leaf, n), "active_speed": "NDR", "active_width": "4x"})
    # fsgb003's second HCA (same system as its first), on leaf-2
    sw(LEAF2, L2, 10, FSGB003_HCA2 + "_1")
    out.append({"name": FSGB003_HCA2 + "_1", "guid": FSGB003_HCA2,
                "systemID": "0a" + HOSTS["fsgb003"][0][2:], "system_name": "fsgb003",
                "node_description": "fsgb003 HCA-2", "description": "Computer IB Port",
                "number": 1, "logical_state": "Active", "physical_state": "Link Up",
                "peer": LEAF2 + "_10", "active_speed": "NDR", "active_width": "4x"})
    sw(LEAF1, L1, 33, SPINE + "_8")
    sw(SPINE, SP, 8, LEAF1 + "_33")
    sw(LEAF2, L2, 33, SPINE + "_9")
    sw(SPINE, SP, 9, LEAF2 + "_33")
    sw(LEAF1, L1, 34, SPINE2 + "_8")
    sw(SPINE2, SP2, 8, LEAF1 + "_34")
    sw(LEAF2, L2, 34, SPINE2 + "_9")
    sw(SPINE2, SP2, 9, LEAF2 + "_34")
    return out


def ts(seconds):
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return "2026-11-02 %02d:%02d:%02d.%03d" % (h, m, s, 0)


events = []


def event(at, eid, severity, text):
    events.append((at, eid, severity, text))


def host_link(host, up):
    guid, leaf, leaf_name, n = HOSTS[host]
    what = "up" if up else "down"
    return ("[Fabric_Topology] Link [Source %s_%d  TO Dest: %s_1]: Link went %s: "
            "%s (Switch: %s) : %d - %s (Computer: %s HCA-1) : 1"
            % (leaf, n, guid, what, leaf, leaf_name, n, guid, host))


def uplink(up):
    what = "up" if up else "down"
    return ("Site [default] [Fabric_Topology] Link [Source %s_33  TO Dest: %s_8]: Link went %s: "
            "(Switch:%s:1/17/1)%s:33 - (Switch:%s:1/4/2)%s:8, cable S/N: MT2330FT09118"
            % (LEAF1, SPINE, what, L1, LEAF1, SP, SPINE))


# Background noise all along: events no rule cares about.
for t in range(0, 3 * 3600, 600):
    event(t + 7, 67, "INFO", "Site [default] [Fabric_Notification] Site [default]: "
          "MCast Group Deleted: ff12:401b:ffff::1")
# 1. a link that goes down and stays down
event(600, 329, "WARNING", host_link("fsgb003", False))
# 2. a flapping uplink
for i in range(5):
    event(1200 + 60 * i, 329, "WARNING", uplink(False))
    event(1200 + 60 * i + 4, 328, "INFO", uplink(True))
# 4. a host reboot
event(3600, 331, "CRITICAL", "[Fabric_Topology] Computer [Computer: fsgb002]: Node is down: fsgb002")
event(3602, 329, "WARNING", host_link("fsgb002", False))
event(3840, 332, "INFO", "[Fabric_Topology] Computer [Computer: fsgb002]: Node is up: fsgb002")
event(3845, 328, "INFO", host_link("fsgb002", True))
# 5. a switch reboot: leaf-2 and all its links
event(5400, 907, "CRITICAL", "Site [default] [Fabric_Topology] Switch [default / Switch: %s] "
      "[dev_id: %s]: Switch is down" % (L2, LEAF2))
for k, host in enumerate(["fsgb005", "fsgb007", "fsgb008"]):
    event(5401 + k, 329, "WARNING", host_link(host, False).replace(LEAF1, LEAF2).replace(L1, L2))
event(5700, 908, "INFO", "Site [default] [Fabric_Topology] Switch [default / Switch: %s] "
      "[dev_id: %s]: Switch is up" % (L2, LEAF2))
for k, host in enumerate(["fsgb005", "fsgb007", "fsgb008"]):
    event(5705 + k, 328, "INFO", host_link(host, True).replace(LEAF1, LEAF2).replace(L1, L2))
# 6. a port a person isolated, which then goes down
event(7200, 702, "WARNING", "Site [default] [Fabric_Notification] Port [default / Switch: %s / %s] "
      "[dev_id: %s]: Peer Port fsgb004 HCA-1:1 is considered by SM as unhealthy due to MANUAL."
      % (L1, label(4), LEAF1))
event(7800, 329, "WARNING", host_link("fsgb004", False))

events.sort(key=lambda e: e[0])
with open(os.path.join(HERE, "event.log"), "w") as f:
    for index, (at, eid, severity, text) in enumerate(events, start=14000):
        f.write("%s [%d] [%d] %s %s\n" % (ts(at), index, eid, severity, text))

with open(os.path.join(HERE, "ports.json"), "w") as f:
    json.dump(ports(), f, indent=1)
    f.write("\n")

# Telemetry: every 5 minutes, the switch side of each host link and the uplinks.
COLS = ["timestamp", "source_id", "tag", "Node_GUID", "port_guid", "Port_Number",
        "PortXmitDataExtended", "PortRcvDataExtended", "SymbolErrorCounterExtended",
        "LinkDownedCounterExtended", "PortRcvErrorsExtended"]
tel = os.path.join(HERE, "telemetry")
os.makedirs(tel, exist_ok=True)
for old in os.listdir(tel):
    os.remove(os.path.join(tel, old))
BASE_US = 1793577600 * 1000000  # 2026-11-02T00:00:00Z
for k, t in enumerate(range(0, 3 * 3600 + 1, 300)):
    rows = []
    sw_ports = [(leaf, n) for (_, leaf, _, n) in HOSTS.values()] + [(LEAF1, 33), (LEAF2, 33)]
    for leaf, n in sw_ports:
        symbol = 0
        if (leaf, n) == (LEAF2, 7) and t >= 1800:
            symbol = 5000 * ((t - 1800) // 300 + 1)  # 1000 a minute: a ramp
        if (leaf, n) == (LEAF1, 6):
            # Accumulated long ago, then cleared at 02:30 and quiet since.
            symbol = 4000000 if t < 9000 else 3
        downs = 0
        if (leaf, n) == (LEAF1, 33) and t >= 1200:
            downs = min(5, (t - 1200) // 60 + 1)
        rows.append([BASE_US + t * 1000000, "ufm", "", "0x" + leaf, "0x" + leaf, n,
                     1000000 * k, 1000000 * k, symbol, downs, 0])
    with open(os.path.join(tel, "snapshot_%03d.csv" % k), "w") as f:
        f.write(",".join(COLS) + "\n")
        for r in rows:
            f.write(",".join(str(c) for c in r) + "\n")
