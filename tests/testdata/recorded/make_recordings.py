#!/usr/bin/env python3
"""Builds the recordings in this folder, one per documented shape of UFM's answers, from NVIDIA's
own examples (the fixtures in ../rest/, each with its source in ../rest/README.md): every object
is a documented example with its values replaced, never a field added or dropped. The fabric is
the same in each: two leaf switches joined by one link, two hosts with an adapter on each leaf,
and a third host with one adapter (its only link). A person isolated leaf-a's port 1 before the
service ran (the unhealthy ports list, Condition MANUAL).

  leaf-a 1 (1/1/1)  <-> node-01 adapter 1   the person's isolation
  leaf-a 2 (1/1/2)  <-> node-02 adapter 1   a link that really fails
  leaf-a 3 (1/2/1)  <-> node-03 adapter 1   node-03's only link
  leaf-b 1 (1/1/1)  <-> node-01 adapter 2
  leaf-b 2 (1/1/2)  <-> node-02 adapter 2
  leaf-a 33 (1/17/1) <-> leaf-b 33 (1/17/1)

Run it from anywhere: python3 tests/testdata/recorded/make_recordings.py
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REST = os.path.join(HERE, "..", "rest")


def example(name, index=None):
    with open(os.path.join(REST, name)) as f:
        doc = json.load(f)
    if isinstance(doc, dict) and "data" in doc:
        doc = doc["data"]
    return copy.deepcopy(doc if index is None else doc[index])


def documented(ex, values):
    """The example with values replaced: every key must be one of the example's."""
    out = copy.deepcopy(ex)
    for key, value in values.items():
        if key not in out:
            raise KeyError(f"{key} is not a field of the documented example")
        out[key] = value
    return out


LEAF_A, LEAF_B = "9c0591030090e000", "fc6a1c0300244e00"
HOSTS = {  # host -> [(port GUID, leaf, leaf port)], and its system GUID
    "node-01": ("e41d2d0300062300", [("e41d2d0300062380", LEAF_A, 1), ("e41d2d0300062390", LEAF_B, 1)]),
    "node-02": ("e41d2d0300062400", [("e41d2d0300062480", LEAF_A, 2), ("e41d2d0300062490", LEAF_B, 2)]),
    "node-03": ("e41d2d0300062500", [("e41d2d0300062580", LEAF_A, 3)]),
}
LEAF_NAMES = {LEAF_A: "leaf-a", LEAF_B: "leaf-b"}
LABELS = {1: "1/1/1", 2: "1/1/2", 3: "1/2/1", 33: "1/17/1"}
# Cables: what ?cable_info=true says of each link. One with a serial of "N/A" (none), one that UFM
# knows nothing of ({}), as IBM CAST's UFM inventory client meets them.
SERIALS = {
    ("e41d2d0300062380", 1): "MT2330FT09101",
    ("e41d2d0300062480", 1): "MT2330FT09102",
    ("e41d2d0300062580", 1): "MT2330FT09105",
    ("e41d2d0300062390", 1): "N/A",
    ("e41d2d0300062490", 1): None,
    (LEAF_A, 33): "MT2330FT09118",
}


def device(shape, k):
    """A host's adapter k (1-based): HCA-k before 6.17's examples, mlx5_<k-1> from them."""
    return f"HCA-{k}" if shape["version"] < 617 else f"mlx5_{k - 1}"


def ports(shape):
    # The field sets of a real UFM's ports answer (ports_host_mlx5.json: a switch port, a host
    # port, Mellanox/ufm_sdk_3.0 16faf03a).
    sw_ex, host_ex = example("ports_host_mlx5.json", 0), example("ports_host_mlx5.json", 1)
    out = []
    peers = {}
    for host, (system, adapters) in HOSTS.items():
        for k, (guid, leaf, n) in enumerate(adapters, 1):
            peers[(leaf, n)] = (f"{guid}_1", host, f"{host} {device(shape, k)}", "HCA-%d/1" % k, guid)
            peers[(guid, 1)] = (f"{leaf}_{n}", LEAF_NAMES[leaf], f"{LEAF_NAMES[leaf]}:{LABELS[n]}", LABELS[n], leaf)
    peers[(LEAF_A, 33)] = (f"{LEAF_B}_33", "leaf-b", "leaf-b:1/17/1", "1/17/1", LEAF_B)
    peers[(LEAF_B, 33)] = (f"{LEAF_A}_33", "leaf-a", "leaf-a:1/17/1", "1/17/1", LEAF_A)
    for leaf in (LEAF_A, LEAF_B):
        for n in sorted(p for (l, p) in peers if l == leaf):
            peer, peer_name, peer_desc, peer_dname, peer_guid = peers[(leaf, n)]
            name = LEAF_NAMES[leaf]
            out.append(documented(sw_ex, {
                "name": f"{leaf}_{n}", "guid": leaf, "systemID": leaf, "system_name": name,
                "node_description": f"{name}:{LABELS[n]}", "dname": LABELS[n], "number": n,
                "external_number": n, "path": f"default / Switch: {name} / NA / {LABELS[n]}",
                "peer": peer, "peer_guid": peer_guid, "peer_node_guid": peer_guid,
                "peer_node_name": peer_name, "peer_node_description": peer_desc,
                "peer_port_dname": peer_dname, "lid": 2 if leaf == LEAF_A else 3,
                "active_speed": "NDR", "tier": 2}))
    for host, (system, adapters) in HOSTS.items():
        for k, (guid, leaf, n) in enumerate(adapters, 1):
            peer, peer_name, peer_desc, peer_dname, peer_guid = peers[(guid, 1)]
            out.append(documented(host_ex, {
                "name": f"{guid}_1", "guid": guid, "systemID": system, "system_name": host,
                "node_description": f"{host} {device(shape, k)}", "dname": f"HCA-{k}/1",
                "number": 1, "external_number": 1,
                "path": f"default / Computer: {host} / NA / HCA-{k}/1", "peer": peer,
                "peer_guid": peer_guid, "peer_node_guid": peer_guid, "peer_node_name": peer_name,
                "peer_node_description": peer_desc, "peer_port_dname": peer_dname,
                "lid": 100 + len(out), "active_speed": "NDR"}))
    return out


def cable_info(serial):
    if serial is None:
        return {}  # UFM knows nothing of the cable
    return {"part_number": "MCP4Y10-N001", "length": "1 m", "serial_number": serial,
            "identifier": "OSFP", "technology": "Copper cable- unequalized", "revision": "A3"}


def links(shape, port_list):
    by_name = {p["name"]: p for p in port_list}
    ends = []
    for host, (system, adapters) in HOSTS.items():
        for guid, leaf, n in adapters:
            ends.append((f"{leaf}_{n}", f"{guid}_1", SERIALS[(guid, 1)], system))
    ends.append((f"{LEAF_A}_33", f"{LEAF_B}_33", SERIALS[(LEAF_A, 33)], None))
    out = []
    for a, b, serial, host_system in ends:
        pa, pb = by_name[a], by_name[b]
        if shape["version"] >= 620:
            # REST guide 6.20.0, Links REST API, "Get All Links" (links_6_20.json).
            link = documented(example("links_6_20.json", 0), {
                "source_guid": pa["guid"], "source_port": str(pa["number"]),
                "destination_guid": pb["guid"], "destination_port": str(pb["number"]),
                "source_port_dname": pa["dname"], "source_port_name": a,
                "destination_port_dname": pb["dname"], "destination_port_name": b,
                "source_port_node_description": pa["node_description"],
                "destination_port_node_description": pb["node_description"],
                "name": f"{a}:{b}", "capabilities": []})
        else:
            # REST guide 6.11.1 (to 6.19.3), Links REST API (links_6_11.json): a host end is given
            # by the host system's GUID; only "name" names its port.
            link = documented(example("links_6_11.json", 0), {
                "source_guid": pa["guid"], "source_port": str(pa["number"]),
                "destination_guid": host_system or pb["guid"],
                "destination_port": str(pb["number"]), "source_port_dname": pa["dname"],
                "destination_port_dname": pb["dname"], "name": f"{a}:{b}"})
        link["cable_info"] = cable_info(serial)  # ?cable_info=true (IBM CAST's UFM client)
        out.append(link)
    return out


def events(shape):
    # UFM's history before the service runs: the layout's first documented example.
    if shape["version"] < 617:
        return [example("events_6_16.json", 0)]
    return [example("events_6_17.json", 0)]


def unhealthy_ports():
    # REST API guide, Unhealthy Ports (unhealthy_ports.json): leaf-a's port 1, isolated by a
    # person before the service ran.
    return [documented(example("unhealthy_ports.json", 0), {
        "UnhealthyGUID": LEAF_A, "UnhealthyPortNumber": 1, "UnhealthyNode": "leaf-a",
        "UnhealthyPort": "leaf-a/1/1/1", "UnhealthyPortDname": "1/1/1",
        "PeerGUID": "e41d2d0300062380", "PeerPortNumber": 1, "PeerNode": "node-01",
        "PeerPort": "node-01/HCA-1/1", "PeerPortDname": "HCA-1/1", "PeerLID": "102"})]


def telemetry(shape, port_list):
    # The primary endpoint as NVIDIA's manual lists its keys (node_guid, port_guid, port_num) from
    # 6.17's recordings; the older as the PDR plugin reads them (Node_GUID, port_guid,
    # Port_Number). A host row's port number is the adapter's place on its host, not UFM's 1
    # (NVIDIA's Grafana plugin: "port_num in the telemetry is different from the ufm").
    keys = "node_guid,port_guid,port_num" if shape["version"] >= 617 else "Node_GUID,port_guid,Port_Number"
    counters = ("PortXmitDataExtended,PortRcvDataExtended,PortXmitPktsExtended,"
                "PortRcvPktsExtended,SymbolErrorCounterExtended,LinkErrorRecoveryCounterExtended,"
                "LinkDownedCounterExtended,PortRcvErrorsExtended,"
                "PortRcvRemotePhysicalErrorsExtended,PortRcvSwitchRelayErrorsExtended")
    lines = [f"timestamp,source_id,tag,{keys},{counters}"]
    for p in port_list:
        number = p["number"]
        if p["description"] == "Computer IB Port":
            number = int(p["dname"].split("-")[1].split("/")[0])
        lines.append(f"1712228785304112,127.0.0.1:9001,,0x{p['systemID']},0x{p['guid']},{number},"
                     "8555412824,8555412000,118825178,118825100,0,0,1,0,0,0")
    return "\n".join(lines) + "\n"


SHAPES = [
    {"dir": "6.10-6.16", "version": 616, "ufm_version": "6.16"},
    {"dir": "6.17-6.19", "version": 619, "ufm_version": "6.19"},
    {"dir": "6.20-6.22", "version": 622, "ufm_version": "6.22"},
]


def main():
    for shape in SHAPES:
        d = os.path.join(HERE, shape["dir"])
        os.makedirs(d, exist_ok=True)
        port_list = ports(shape)
        files = {
            "ufm.json": {"ufm_version": shape["ufm_version"],
                         "recorded_by": "tests/testdata/recorded/make_recordings.py",
                         "sources": "tests/testdata/rest/README.md"},
            "ports.json": port_list,
            "links.json": links(shape, port_list),
            "events.json": events(shape),
            "unhealthy_ports.json": unhealthy_ports(),
            "jobs.json": [],
        }
        for name, doc in files.items():
            with open(os.path.join(d, name), "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
        with open(os.path.join(d, "telemetry.csv"), "w") as f:
            f.write(telemetry(shape, port_list))


if __name__ == "__main__":
    main()
