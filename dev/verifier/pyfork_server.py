#!/usr/bin/env python3
"""A fork server for the verifier's Python scripts: one interpreter imports pyarrow and PyIceberg once,
then each script a client (pyfork.py) sends runs in a child forked from it, as `python script.py args`
would run it, without paying those imports again (up to ~0.6 CPU s a call; one PyIceberg read of a
table 0.63 → 0.27 CPU s; a whole `npm test` sends ~220 scripts).

    pyfork_server.py --socket PATH

One connection per run. The client sends a 4-byte big-endian length with its stdin, stdout and stderr
(SCM_RIGHTS), then that many bytes of JSON: {"argv": [script, args...], "env": {...}, "cwd": "..."}.
The child starts a session of its own, takes the three descriptors as 0, 1 and 2, the environment,
the directory and sys.argv, and runs the script as __main__ (its directory first on sys.path). The
server answers one JSON line {"code": N}: the child's exit status as subprocess reports it (-SIG when
a signal ended it). A client that goes away before that (its caller's timeout killed it) kills the
child's process group. Only what the scripts import lazily is preloaded; a script's own modules are
imported fresh in every child.
Dev/test tooling (the stack's `verifier` component runs it); never the product.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import runpy
import signal
import socket
import struct
import sys
import threading
import traceback
from typing import Any, Dict, List

PRELOAD = (
    "pyarrow",
    "pyarrow.parquet",
    "pyarrow.orc",
    "pyarrow.fs",
    "pyarrow.compute",
    "pyiceberg.catalog",
    "pyiceberg.catalog.rest",
    "pyiceberg.io.pyarrow",
    "pyiceberg.table",
    "pyiceberg.expressions",
)
HEADER = struct.Struct(">I")
MAX_REQUEST = 16 << 20
# Environment read when those modules load (PyIceberg's config, the interpreter's paths, Arrow's and
# the allocator's settings): a request whose values differ from the server's gets a fresh interpreter.
IMPORT_TIME_ENV = ("PYICEBERG_", "PYTHON", "ARROW_", "LD_", "JE_", "MALLOC_", "HOME")


class Probe(Exception):
    """A connection closed before any request: a health check."""


def recv_exact(conn: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise ConnectionError(f"request cut short after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def read_request(conn: socket.socket) -> tuple[Dict[str, Any], List[int]]:
    head, fds, _flags, _addr = socket.recv_fds(conn, HEADER.size, 3)
    if not head and not fds:
        raise Probe()
    if len(head) < HEADER.size:
        head += recv_exact(conn, HEADER.size - len(head))
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ConnectionError(f"expected 3 descriptors (stdin, stdout, stderr), got {len(fds)}")
    (size,) = HEADER.unpack(head)
    if size > MAX_REQUEST:
        raise ConnectionError(f"request of {size} bytes")
    req = json.loads(recv_exact(conn, size).decode("utf-8"))
    if not isinstance(req.get("argv"), list) or not req["argv"] or not isinstance(req.get("env"), dict):
        raise ConnectionError("request without argv or env")
    return req, fds


def exit_code(code: object) -> int:
    """What the interpreter makes of SystemExit(code)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def import_time_env(env: Dict[str, str]) -> Dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(IMPORT_TIME_ENV)}


def run_main(argv: List[str]) -> None:
    """`python script args` or `python -c code args` in this interpreter."""
    if argv[0] == "-c" and len(argv) >= 2:
        sys.argv = ["-c", *argv[2:]]
        sys.path[0] = ""
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
        return
    script = os.path.abspath(argv[0])
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")


def child(req: Dict[str, Any], fds: List[int], server_env: Dict[str, str]) -> None:
    """In the forked child: become `python script args` and never return."""
    os.setsid()
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # sys.stdin/stdout/stderr stay the interpreter's own objects (its buffering, encoding, -u): emptied,
    # then writing to and reading from the client's descriptors under them.
    sys.stdout.flush()
    sys.stderr.flush()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    for stream in (sys.stdout, sys.stderr):
        if os.isatty(stream.fileno()):
            stream.reconfigure(line_buffering=True)
    env = {str(k): str(v) for k, v in req["env"].items()}
    argv = [str(a) for a in req["argv"]]
    os.environ.clear()
    os.environ.update(env)
    code = 1
    try:
        os.chdir(req.get("cwd") or "/")
        if import_time_env(env) != server_env:
            os.execv(sys.executable, [sys.executable, *argv])
        run_main(argv)
        code = 0
    except SystemExit as e:
        code = exit_code(e.code)
    except BaseException as e:  # noqa: BLE001 — printed as the interpreter prints an uncaught one
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__, "<frozen runpy>"):
            tb = tb.tb_next  # from the script's frames on, as `python script.py` prints it
        traceback.print_exception(type(e), e, tb)
        code = 1
    # sys.exit runs what a script's process runs at its end (atexit, flushing); the server reports the status.
    sys.exit(code)


def watch(conn: socket.socket, pid: int) -> None:
    """Report the child's exit status; kill its group when the client leaves first."""
    done = threading.Event()

    def client_gone() -> None:
        try:
            while conn.recv(4096):
                pass
        except OSError:
            pass
        if not done.is_set():
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    threading.Thread(target=client_gone, daemon=True).start()
    _, status = os.waitpid(pid, 0)
    done.set()
    try:
        conn.sendall((json.dumps({"code": os.waitstatus_to_exitcode(status)}) + "\n").encode("utf-8"))
    except OSError:
        pass
    conn.close()


def serve(path: str) -> None:
    server_env = import_time_env(dict(os.environ))
    for mod in PRELOAD:
        importlib.import_module(mod)
    if os.path.exists(path):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)
    listener.listen(64)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(json.dumps({"ok": True, "socket": path, "pid": os.getpid(), "preloaded": len(PRELOAD)}), flush=True)
    while True:
        conn, _ = listener.accept()
        try:
            conn.settimeout(10)  # a client that stalls mid-request must not hold up the others
            req, fds = read_request(conn)
            conn.settimeout(None)
        except Probe:
            conn.close()
            continue
        except (ConnectionError, OSError, ValueError) as e:
            print(f"pyfork: bad request: {e}", file=sys.stderr, flush=True)
            conn.close()
            continue
        try:
            pid = os.fork()
        except OSError as e:  # no process to be had: the client sees the connection close without a status
            print(f"pyfork: fork failed: {e}", file=sys.stderr, flush=True)
            for fd in fds:
                os.close(fd)
            conn.close()
            continue
        if pid == 0:
            listener.close()
            conn.close()
            child(req, fds, server_env)
        for fd in fds:
            os.close(fd)
        print(f"pyfork: {os.path.basename(str(req['argv'][0]))[:60]} in {pid}", flush=True)
        threading.Thread(target=watch, args=(conn, pid), daemon=True).start()


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--socket", required=True)
    serve(p.parse_args(argv).socket)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
