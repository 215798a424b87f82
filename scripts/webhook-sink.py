#!/usr/bin/python3
# A webhook receiver for the demo: an HTTP server on loopback that answers 200 to every POST and
# appends it to <dir>/hooks.jsonl (the time, the path, the Idempotency-Key header, the body as
# JSON), and prints each notification's title as it arrives.
#
#   scripts/webhook-sink.py --dir DIR --port N
#
# Runs until SIGTERM or SIGINT.
import argparse
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def handler(folder):
    class Hook(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
            try:
                doc = json.loads(body)
            except ValueError:
                doc = {"unparsed": body.decode("utf-8", errors="replace")}
            record = {"at": time.time(), "path": self.path,
                      "idempotency_key": self.headers.get("Idempotency-Key"), "body": doc}
            with open(os.path.join(folder, "hooks.jsonl"), "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
            for n in doc.get("notifications", []) if isinstance(doc, dict) else []:
                print("webhook-sink: " + str(n.get("title")), flush=True)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass
    return Hook


def main():
    p = argparse.ArgumentParser(description="a webhook receiver on loopback")
    p.add_argument("--dir", required=True)
    p.add_argument("--port", type=int, required=True)
    a = p.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", a.port), handler(a.dir))
    print(f"webhook-sink: listening on 127.0.0.1:{a.port}, messages in {a.dir}/hooks.jsonl",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
