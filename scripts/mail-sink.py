#!/usr/bin/python3
# A mailbox for the demo and the tests: an SMTP server on loopback (Debian's python3-aiosmtpd)
# that keeps every mail it is sent as a file, <dir>/<n>.eml, and a line of JSON in
# <dir>/mails.jsonl (sender, recipients, the authenticated user, whether STARTTLS was used, the
# mail). Not a mail relay: nothing is sent on.
#
#   scripts/mail-sink.py --dir DIR [--port N] [--port-file F] [--tls-cert C --tls-key K]
#                        [--auth USER:PASSWORD]
#
# --tls-cert/--tls-key offer STARTTLS and refuse mail without it; --auth requires AUTH (PLAIN or
# LOGIN, after STARTTLS) with that user and password. --port 0 (the default) takes a free port and
# writes it to --port-file. Runs until SIGTERM or SIGINT.
import argparse
import json
import os
import signal
import ssl
import sys
import threading

try:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult
except ImportError:
    sys.exit("mail-sink: needs python3-aiosmtpd (scripts/install-deps.sh installs it)")


class Mailbox:
    def __init__(self, folder):
        self.folder = folder
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.count += 1
            n = self.count
        data = envelope.content.decode("utf-8", errors="replace")
        with open(os.path.join(self.folder, f"{n}.eml"), "w", encoding="utf-8") as f:
            f.write(data)
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "auth_user": (session.auth_data.login.decode()
                          if session.auth_data and hasattr(session.auth_data, "login")
                          else None),
            "tls": session.ssl is not None,
            "data": data,
        }
        with open(os.path.join(self.folder, "mails.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        return "250 Message accepted"


def authenticator(user, password):
    def check(server, session, envelope, mechanism, auth_data):
        ok = (getattr(auth_data, "login", None) == user.encode()
              and getattr(auth_data, "password", None) == password.encode())
        return AuthResult(success=ok, handled=False, auth_data=auth_data)
    return check


def main():
    p = argparse.ArgumentParser(description="an SMTP mailbox on loopback")
    p.add_argument("--dir", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file")
    p.add_argument("--tls-cert")
    p.add_argument("--tls-key")
    p.add_argument("--auth")
    a = p.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    kwargs = {}
    if a.tls_cert:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(a.tls_cert, a.tls_key)
        kwargs.update(tls_context=ctx, require_starttls=True)
    if a.auth:
        user, _, password = a.auth.partition(":")
        kwargs.update(authenticator=authenticator(user, password), auth_required=True,
                      auth_require_tls=bool(a.tls_cert))
    else:
        kwargs.update(auth_require_tls=False)
    port = a.port
    if port == 0:
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    controller = Controller(Mailbox(a.dir), hostname="127.0.0.1", port=port,
                            server_hostname="localhost", **kwargs)
    controller.start()
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.rename(a.port_file + ".tmp", a.port_file)
    print(f"mail-sink: listening on 127.0.0.1:{port}, mail in {a.dir}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    done.wait()
    controller.stop()


if __name__ == "__main__":
    main()
