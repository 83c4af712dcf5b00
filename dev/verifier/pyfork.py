"""The client of pyfork_server.py: run a verifier script in a child of the warm fork server, as
`PYTHON script.py args` would run it (same stdin, stdout, stderr, environment, directory and exit
status), or exec PYTHON itself when the server does not answer.

    python -S pyfork.py --socket PATH --python PYTHON -- script.py args...
    python -S pyfork.py --socket PATH --python PYTHON -- -c CODE args...

Standard library only and started with -S: ~20 ms, against ~0.6 s for the imports the server holds.
Other interpreter options (-m, -u, ...) run PYTHON itself.
Dev/test tooling; never the product.
"""
import json
import os
import signal
import socket
import struct
import sys

USAGE = "usage: pyfork.py --socket PATH --python PYTHON -- script.py [args...]"


def parse(argv):
    opts = {}
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] in ("--socket", "--python") and i + 1 < len(argv):
            opts[argv[i][2:]] = argv[i + 1]
            i += 2
        else:
            sys.exit(f"pyfork: unexpected argument {argv[i]!r}\n{USAGE}")
    rest = argv[i + 1 :]
    if "python" not in opts or not rest:
        sys.exit(USAGE)
    return opts.get("socket"), opts["python"], rest


def run_own(python, rest):
    os.execv(python, [python, *rest])


def main(argv):
    sock_path, python, rest = parse(argv)
    if not sock_path or (rest[0].startswith("-") and rest[0] != "-c"):
        run_own(python, rest)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sock_path)
    except OSError:
        s.close()
        run_own(python, rest)
    body = json.dumps({"argv": rest, "env": dict(os.environ), "cwd": os.getcwd()}).encode("utf-8")
    socket.send_fds(s, [struct.pack(">I", len(body))], [0, 1, 2])
    s.sendall(body)
    # SIGTERM/SIGINT (a caller's timeout): leave; the server sees the connection close and kills the child.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda n, _f: os._exit(128 + n))
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = s.recv(4096)
        if not chunk:
            sys.stderr.write("pyfork: the fork server closed the connection without an exit status\n")
            return 1
        reply += chunk
    code = int(json.loads(reply.decode("utf-8"))["code"])
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
