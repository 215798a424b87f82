#!/usr/bin/env python3
"""Writes the event-log fixtures in this folder (run it here after editing; commit the output).

Shapes follow the documented UFM event log format. The first line of reference_samples.log is
IBM CAST's old Link sample (which lacks a timestamp) under a timestamp from another public source,
so not one real line; the other entries put the documented real message bodies (and the REST
samples' events) under headers built from the documented line shape. ibport_samples.log names
each entry's public source.
Several files hold bytes a text editor would mangle (invalid UTF-8, NUL, CR), hence this script.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


LINK_OLD = ("2023-12-20 07:46:24.442 [14599] [329] WARNING [Fabric_Topology] Link [Source "
            "f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1]: Link went down: f4521403008817f0 "
            "(Switch: mellanox-SX6036) : 12 - e41d2d0300a4f482 (Computer: fsgb001 HCA-1) : 1")
LINK_NEW = ("2024-05-28 08:03:05.118 [97214] [329] WARNING Site [default] [Fabric_Topology] Link "
            "[Source 9c0591030090e000_33  TO Dest: fc6a1c0300244e00_8]: Link went down: "
            "(Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
            "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118")
PEER = ("2024-05-28 08:03:09.502 [97215] [702] WARNING Site [default] [Fabric_Notification] Port "
        "[default / Switch: T2-E63-L-U38 / 1/19/2] [dev_id: 0C42A10300E1F2A0]: Peer Port "
        "T2-E63-L-U37:1/19/2 is considered by SM as unhealthy due to FLAPPING.")
GRID = "2017-09-19 10:49:03.018 [227] [352] INFO [Logical_Model] Grid [Grid]: Network Added"
SITE = ("2024-05-28 08:03:05.000 [97213] [67] INFO Site [default] [Fabric_Notification] Site "
        "[default]: MCast Group Deleted")

write("reference_samples.log", "\n".join([LINK_OLD, LINK_NEW, PEER, GRID, SITE]) + "\n")

write("shapes.log", "\n".join([
    # Computer object, CRITICAL
    "2024-06-01 10:00:00.001 [1] [331] CRITICAL [Fabric_Topology] Computer [Computer: fsgb001]: "
    "Node is down: fsgb001",
    # Switch object with name and label, dev_id, MINOR, no Site
    "2024-06-01 10:00:01.002 [2] [110] MINOR [Fabric_Notification] Switch [default / Switch: "
    "T3-E21-N-U47 / 1/17/1] [dev_id: 9c0591030090e000]: Symbol error counter rate threshold "
    "crossed: 9c0591030090e000_33",
    # Switch object without a label, Site prefix
    "2024-06-01 10:00:02.003 [3] [907] CRITICAL Site [default] [Fabric_Topology] Switch "
    "[default / Switch: T4-E45-L-U51] [dev_id: fc6a1c0300244e00]: Switch is down",
    # Port object named by port GUID, mixed-case severity
    "2024-06-01 10:00:03.004 [4] [113] Warning [Fabric_Notification] Port [e41d2d0300062380_3]: "
    "Port receive errors threshold crossed",
    # Site and Grid objects, lower-case severity
    "2024-06-01 10:00:04.005 [5] [67] info Site [default] [Fabric_Notification] Site [default]: "
    "MCast Group Deleted",
    "2024-06-01 10:00:05.006 [6] [352] INFO [Logical_Model] Grid [Grid]: Network Added",
    # A severity outside the documented four
    "2024-06-01 10:00:06.007 [7] [394] MAJOR [Hardware] Switch [default / Switch: T3-E21-N-U47] "
    "[dev_id: 9c0591030090e000]: Module status FAULT",
    # Link up, with 0x-prefixed GUIDs in the message
    "2024-06-01 10:00:07.008 [8] [328] INFO [Fabric_Topology] Link [Source 9c0591030090e000_33  "
    "TO Dest: fc6a1c0300244e00_8]: Link is up: (Switch:T3-E21-N-U47:1/17/1)0x9c0591030090e000:33"
    " - (Switch:T4-E45-L-U51:1/4/2)0xfc6a1c0300244e00:8",
    # The optional site written as "[Site [<site>]]"
    "2024-06-01 10:00:08.009 [9] [336] INFO [Site [default]] [Fabric_Notification] Port "
    "[e41d2d0300062380_3]: Port action disable succeeded",
]) + "\n")

write("multiline.log", "\n".join([
    "2024-06-02 11:00:00.000 [10] [394] CRITICAL [Hardware] Switch [default / Switch: "
    "T3-E21-N-U47] [dev_id: 9c0591030090e000]: Module status FAULT:",
    "  PSU 1: failed",
    "",
    "  FAN 3: speed 0 rpm",
    "2024-06-02 11:00:01.000 [11] [329] WARNING [Fabric_Topology] Link [Source "
    "9c0591030090e000_33  TO Dest: fc6a1c0300244e00_8]: Link went down:",
    "(Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - (Switch:T4-E45-L-U51:1/4/2)"
    "fc6a1c0300244e00:8,",
    "cable S/N: MT2330FT09118",
    "2024-06-02 11:00:02.000 [12] [328] INFO [Fabric_Topology] Link [Source 9c0591030090e000_33  "
    "TO Dest: fc6a1c0300244e00_8]: Link is up",
    "",
    "",
]) + "\n")

# Entries that must fail (each with a reason), among good ones that must still parse.
write("garbage.log", "\n".join([
    "tail of an entry cut by rotation: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33",
    "  and its second line",
    "2024-06-03 12:00:00.000 [20] [328] INFO [Fabric_Topology] Link [Source "
    "9c0591030090e000_33  TO Dest: fc6a1c0300244e00_8]: Link is up",
    "this line is no entry: by the format it continues the one before",
    "2024-06-03 12:00:01.000 garbage after the timestamp",
    "2024-06-03 12:00:02.000 [21] garbage instead of the event id",
    "2024-06-03 12:00:03.000 [22] [329]  [Fabric_Topology] Link [x]: no severity",
    "2024-06-03 12:00:04.000 [23] [329] WARNING Fabric_Topology Link [x]: category without brackets",
    "2024-06-03 12:00:05.000 [24] [329] WARNING [Fabric_Topology] Link [Source never closed: msg",
    "2024-06-03 12:00:06.000 [25] [329] WARNING [Fabric_Topology] Link [x] no colon before message",
    "2024-06-03 12:00:07.000 [26] [329] WARNING [Fabric_Topology] : no object type",
    "2024-06-03 12:00:08.000 [1234567890123456789012] [329] WARNING [Fabric_Topology] Link [x]: "
    "index too long",
    "2024-13-03 12:00:09.000 [27] [329] WARNING [Fabric_Topology] Link [x]: month 13: no entry start",
    "2024-06-03 12:00:10.000",
    "\t\t",
    "2024-06-03 12:00:11.000 [28] [329] WARNING [Fabric_Topology] Link [Source "
    "f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1]: Link went down",
]) + "\n")

write("invalid_utf8.log",
      b"2024-06-04 13:00:00.000 [30] [329] WARNING [Fabric_Topology] Link [Source "
      b"f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1]: Link went down \xff\xfe on "
      b"caf\xc3\xa9 rack\n"
      b"2024-06-04 13:00:01.000 [31] [331] CRITICAL [Fabric_Topology] Computer [Computer: "
      b"n\xc3\x28de-\xe2\x82]: Node is down \xc0\xaf \xed\xa0\x80 end\n"
      b"\xff\xff\xff\xff not an entry, not UTF-8\n"
      b"2024-06-04 13:00:02.000 [32] [328] INFO [Fabric_Topology] Link [Source "
      b"f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1]: Link is up\n")

write("trailing_nul.log",
      b"2024-06-05 14:00:00.000 [40] [329] WARNING [Fabric_Topology] Link [Source "
      b"f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1]: Link went down\x00\n"
      b"2024-06-05 14:00:01.000 [41] [328] INFO [Fabric_Topology] Link [Source "
      b"f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1]: Link is up\x00\r\n"
      b"\x00\x00\x00\x002024-06-05 14:00:02.000 [42] [352] INFO [Logical_Model] Grid [Grid]: "
      b"Network Added\n"
      b"2024-06-05 14:00:03.000 [43] [352] INFO [Logical_Model] Grid [Grid]: NUL\x00inside\n")

write("crlf.log", "\r\n".join([
    LINK_OLD,
    "2024-06-06 15:00:00.000 [50] [394] CRITICAL [Hardware] Switch [default / Switch: "
    "T3-E21-N-U47] [dev_id: 9c0591030090e000]: Module status FAULT:",
    "  PSU 1: failed",
    GRID,
]) + "\r\n")

# One entry of about 200 kB on one line (port names spread through it), then a normal one.
filler = "".join("x%05d (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 " % i for i in range(3800))
write("long_line.log",
      "2024-06-07 16:00:00.000 [60] [329] WARNING [Fabric_Topology] Link [Source "
      "9c0591030090e000_33  TO Dest: fc6a1c0300244e00_8]: Link went down: " + filler +
      "cable S/N: MT2330FT09118\n" + GRID + "\n")

write("empty_lines.log", "\n".join([
    "",
    "   ",
    GRID,
    "",
    SITE,
    "",
]) + "\n")

# IBPort objects and the old Link form, as public sources print them. Each entry says where it is
# from; a "built" entry puts documented pieces together under the documented line shape.
write("ibport_samples.log", "\n".join([
    # IBM CAST, csm_big_data/DataAggregators/README.rst ("UFM Logs"): the event-log line inside the
    # forwarded syslog record, verbatim but on one line (the README wraps it for the page).
    "2016-10-17 15:56:33.245 [5744] [112] WARNING [Hardware] IBPort [default(34) / Switch: "
    "c931ibsw-leaf01 / NA / 16] [dev_id: 248a0703006d40f0]: Link-Downed counter delta threshold "
    "exceeded. Threshold is 0, calculated delta is 1. Peer info: Computer: c931f03p08 HCA-1 / 1.",
    # IBM CAST, the grok_dynamic Logstash filter's spec ("mellanox system event log"): object and
    # message verbatim, under a header built from the documented line shape. The object names port
    # GUIDs (...4939_2), the message the HCA's node GUID (...4938).
    "2016-10-17 15:57:02.118 [5745] [329] WARNING [Fabric_Topology] Link [Source "
    "248a0703006d40f0_12  TO Dest: e41d2d0300ff4939_2]: Link went down: 248a0703006d40f0 (Switch: "
    "c931ibsw-leaf01) : 12 - e41d2d0300ff4938 (Computer: c931f02p18 HCA-1) : 2",
    # Built: the newer IBPort object and the switch form of "Peer info:" as the field notes give
    # them (Imbue's cluster-health script parses both this way); the peer's name and label from the
    # documented newer link message.
    "2024-05-28 08:04:11.020 [97230] [110] WARNING Site [default] [Hardware] IBPort [Default / "
    "Switch: T2-E63-L-U37 / 1/19/2]: Symbol error counter rate threshold exceeded. Peer info: "
    "Default / Switch: T4-E45-L-U51 / 1/4/2.",
    # Built: event 702 with a newer IBPort object; the message is the documented one verbatim.
    "2024-05-28 08:04:12.502 [97231] [702] WARNING Site [default] [Fabric_Notification] IBPort "
    "[Default / Switch: T3-E21-N-U47 / 1/17/1]: Peer Port T2-E63-L-U37:1/19/2 is considered by SM "
    "as unhealthy due to FLAPPING.",
    # Built: the older IBPort form naming a host's port (its dev_id may be the node GUID: no port
    # name is made of it), the peer a switch without labels in the older form.
    "2016-10-17 15:58:00.001 [5746] [113] WARNING [Hardware] IBPort [default(34) / Computer: "
    "c931f03p08 HCA-1 / NA / 1] [dev_id: e41d2d0300ff4938]: Port receive errors threshold "
    "exceeded. Peer info: default(34) / Switch: c931ibsw-leaf01 / NA / 16.",
]) + "\n")
