#!/usr/bin/env python3
"""Small JSON queries for the dashboard e2e test and the demo (reads the document on stdin).

  jsonq.py leaf-host-port [N]   /sim/links -> a port name on the switch side of the N-th (default 0)
                                link between a leaf switch and a host
  jsonq.py switch-port [N]      /sim/links -> a port name on the N-th leaf-spine link
  jsonq.py describe PORT        /sim/links -> "switch label <-> peer label" of PORT's link
  jsonq.py peer PORT            /sim/links -> the port name at the other end of PORT's link
  jsonq.py ticket PORT          /api/tickets -> "<id> <state>" of the newest ticket on PORT's link
  jsonq.py hosts                /sim/links -> the hosts' system names, one per line
  jsonq.py host-of PORT         /sim/links -> the system name of the host on PORT's link
  jsonq.py other-rail PORT      /sim/links -> the switch-side port of the same host's next link
"""
import json
import re
import sys

PORT_RE = re.compile(r"^(0x)?[0-9a-fA-F]{16}_\d+$")


def port_names(obj):
    """All port names ("<guid>_<n>") in a JSON value, in document order."""
    out = []
    if isinstance(obj, dict):
        for v in obj.values():
            out.extend(port_names(v))
    elif isinstance(obj, list):
        for v in obj:
            out.extend(port_names(v))
    elif isinstance(obj, str) and PORT_RE.match(obj):
        out.append(obj)
    return out


def links(doc):
    if isinstance(doc, dict):
        doc = doc.get("links", doc)
    return doc if isinstance(doc, list) else []


def pick(doc, want_spine, n):
    found = []
    for link in links(doc):
        text = json.dumps(link).lower()
        names = port_names(link)
        # ufm-sim: {"a": {"port": ...}, "b": {...}}, "a" being the switch (leaf) side.
        if isinstance(link, dict) and isinstance(link.get("a"), dict) and link["a"].get("port"):
            names = [link["a"]["port"]] + names
        if len(names) < 2:
            continue
        has_spine = "spine" in text
        if has_spine == want_spine:
            found.append(names[0])
    if len(found) <= n:
        sys.exit("no suitable link found")
    return found[n]


def host_links(doc):
    """(switch-side port, host system name) of every leaf-host link, in document order."""
    out = []
    for link in links(doc):
        if not isinstance(link, dict):
            continue
        a, b = link.get("a") or {}, link.get("b") or {}
        if "HCA" in str(b.get("node_description", "")):
            out.append((str(a.get("port", "")), str(b.get("system_name", ""))))
    return out


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    doc = json.load(sys.stdin)
    if cmd == "leaf-host-port":
        print(pick(doc, False, int(sys.argv[2]) if len(sys.argv) > 2 else 0))
    elif cmd == "switch-port":
        print(pick(doc, True, int(sys.argv[2]) if len(sys.argv) > 2 else 0))
    elif cmd == "describe":
        port = sys.argv[2].lower()
        for link in links(doc):
            if port in [n.lower() for n in port_names(link)]:
                ends = [link.get(k) or {} for k in ("a", "b")] if isinstance(link, dict) else []
                print(" <-> ".join(f"{e.get('system_name', '?')} {e.get('label', '')}".strip() for e in ends))
                return
        sys.exit(1)
    elif cmd == "peer":
        port = sys.argv[2].lower()
        for link in links(doc):
            ends = [link.get(k) or {} for k in ("a", "b")] if isinstance(link, dict) else []
            names = [str(e.get("port", "")).lower() for e in ends]
            if port in names and len(ends) == 2:
                print(ends[1 - names.index(port)].get("port"))
                return
        sys.exit(1)
    elif cmd == "hosts":
        seen = []
        for _, host in host_links(doc):
            if host not in seen:
                seen.append(host)
        print("\n".join(seen))
    elif cmd in ("host-of", "other-rail"):
        port = sys.argv[2].lower()
        pairs = host_links(doc)
        host = next((h for p, h in pairs if p.lower() == port), None)
        if host is None:
            sys.exit(1)
        if cmd == "host-of":
            print(host)
            return
        other = next((p for p, h in pairs if h == host and p.lower() != port), None)
        if other is None:
            sys.exit(1)
        print(other)
    elif cmd == "ticket":
        port = sys.argv[2].lower()
        tickets = doc.get("tickets", []) if isinstance(doc, dict) else []
        for t in tickets:  # newest first
            names = [n.lower() for n in port_names(t.get("ports", []))]
            if port in names or str(t.get("action_port") or "").lower() == port:
                print(t.get("id"), t.get("state"))
                return
        sys.exit(1)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
