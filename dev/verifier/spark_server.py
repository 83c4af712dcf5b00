#!/usr/bin/env python3
"""The long-lived Spark verifier: one JVM for the verifier scripts' Spark reads instead of one per call
(the stack component `spark-verifier`, dev/stack/components/spark-verifier.ts).

    spark_server.py --port N --jars-dir DIR [--driver-memory 1536m] [--scratch DIR] [--max-requests N]

This process is the supervisor: a small HTTP JSON server on 127.0.0.1 and the worker process
(spark_worker.py) holding the one SparkSession, restarted whenever it is lost.
  GET  /health → 200 {"ok": true, "pid", "worker", "jvm", "requests", "restarts", "startSeconds"} once
       the worker's Spark is up, else 503 {"ok": false, ...}.
  POST /run {script, args, cwd, dir, env, timeoutSeconds, queueSeconds} → {code, stdout, stderr,
       jvm, worker, seconds} — what `python <script>.py args` would have printed and exited with — or
       {fallback: true, reason}: the client (spark_client.py) then runs the script in a process of
       its own. Requests run one at a time (a lock); one waiting longer than queueSeconds, one past
       timeoutSeconds (the worker and its JVM are killed and restarted), one that killed the JVM, and
       one the worker refuses (a setting fixed at the JVM's start) all answer fallback.
Dev/test tooling; logs (the JVM's included) go to stdout/stderr, the stack's log file.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spark_worker  # noqa: E402

START_TIMEOUT = 300.0


def log(msg: str) -> None:
    sys.stdout.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [spark-verifier] {msg}\n")
    sys.stdout.flush()


class Worker:
    """The worker process, (re)started in the background; `ready` while its Spark is up."""

    def __init__(self, cfg: argparse.Namespace) -> None:
        self.cfg = cfg
        self.ready = threading.Event()
        self.proc: Optional[Any] = None
        self.conn: Optional[Any] = None
        self.info: Dict[str, Any] = {}
        self.restarts = -1
        self.requests = 0

    def start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        args = (child, self.cfg.jars_dir, self.cfg.driver_memory, self.cfg.scratch, self.cfg.max_requests)
        proc = ctx.Process(target=spark_worker.serve, args=args, name="him-spark-worker")
        proc.start()
        child.close()
        self.proc, self.conn, self.info = proc, parent, {}
        self.restarts += 1
        threading.Thread(target=self._await_ready, args=(proc, parent), daemon=True).start()

    def _await_ready(self, proc: Any, conn: Any) -> None:
        t0 = time.monotonic()
        try:
            if conn.poll(START_TIMEOUT):
                info = conn.recv()
                if proc is self.proc:
                    self.info = info
                    self.ready.set()
                    log(f"worker {info.get('worker')} ready: JVM {info.get('jvm')} in {info.get('startSeconds')} s")
                    return
        except (EOFError, OSError):
            pass
        log(f"worker {proc.pid} did not start in {round(time.monotonic() - t0)} s")

    def kill(self) -> None:
        self.ready.clear()
        proc = self.proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the worker leads its group: its JVM goes with it
        except OSError:
            pass
        proc.kill()
        proc.join(10)

    def restart(self, why: str) -> None:
        log(f"restarting the worker: {why}")
        self.kill()
        self.start()

    def run(self, req: Dict[str, Any], timeout: float) -> Dict[str, Any]:
        """One request on a ready worker (the caller holds the lock)."""
        assert self.conn is not None
        self.requests += 1
        try:
            self.conn.send(req)
            if not self.conn.poll(timeout):
                self.restart(f"request {req.get('script')} ran past its {timeout:.0f} s")
                return {"fallback": True, "reason": f"timed out after {timeout:.0f} s; the server's JVM was restarted"}
            ans: Dict[str, Any] = self.conn.recv()
        except (EOFError, OSError) as e:
            self.restart(f"the worker died during {req.get('script')} ({type(e).__name__})")
            return {"fallback": True, "reason": "the server's worker died during the request; restarted"}
        if ans.get("exiting"):
            self.restart(str(ans.get("reason") or f"served {ans.get('served')} requests"))
        return ans


class Server:
    def __init__(self, cfg: argparse.Namespace) -> None:
        self.cfg = cfg
        self.lock = threading.Lock()
        self.worker = Worker(cfg)

    def health(self) -> Dict[str, Any]:
        w = self.worker
        return {
            "ok": w.ready.is_set(),
            "pid": os.getpid(),
            "worker": w.info.get("worker"),
            "jvm": w.info.get("jvm"),
            "startSeconds": w.info.get("startSeconds"),
            "requests": w.requests,
            "restarts": w.restarts,
        }

    def run(self, req: Dict[str, Any]) -> Dict[str, Any]:
        t0 = time.monotonic()
        queue = float(req.get("queueSeconds") or 40)
        timeout = float(req.get("timeoutSeconds") or 540)
        if not self.lock.acquire(timeout=queue):
            return {"fallback": True, "reason": f"busy for {queue:.0f} s"}
        try:
            if not self.worker.ready.wait(max(0.0, queue - (time.monotonic() - t0))):
                return {"fallback": True, "reason": "the server's Spark is (re)starting"}
            ans = self.worker.run(req, timeout)
        finally:
            self.lock.release()
        log(f"{req.get('script')}: {'fallback: ' + str(ans.get('reason')) if ans.get('fallback') else 'exit ' + str(ans.get('code'))} in {time.monotonic() - t0:.2f} s")
        return ans


def handler(server: Server) -> type:
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: Dict[str, Any]) -> None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            if self.path != "/health":
                return self._send(404, {"error": f"no {self.path}"})
            h = server.health()
            self._send(200 if h["ok"] else 503, h)

        def do_POST(self) -> None:  # noqa: N802
            if self.path != "/run":
                return self._send(404, {"error": f"no {self.path}"})
            try:
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8"))
                if not isinstance(req, dict):
                    raise ValueError("not a JSON object")
            except ValueError as e:
                return self._send(400, {"fallback": True, "reason": f"bad request: {e}"})
            ans = server.run(req)
            self._send(503 if ans.get("fallback") else 200, ans)

        def log_message(self, fmt: str, *args: Any) -> None:
            pass  # one line per request from Server.run instead

    return Handler


def main(argv: list) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--jars-dir", default=os.environ.get("HIM_SPARK_JARS_DIR"))
    p.add_argument("--driver-memory", default="1536m")
    p.add_argument("--scratch", default=None, help="Spark's local dir (default: the system's temp dir)")
    p.add_argument("--max-requests", type=int, default=500, help="requests one JVM serves before a fresh one")
    cfg = p.parse_args(argv)
    srv = Server(cfg)
    httpd = ThreadingHTTPServer(("127.0.0.1", cfg.port), handler(srv))
    httpd.daemon_threads = True

    def stop(signum: int, _frame: Any) -> None:
        log(f"signal {signum}: stopping the worker and its JVM")
        srv.worker.kill()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    srv.worker.start()
    log(f"listening on 127.0.0.1:{cfg.port}; jars {cfg.jars_dir}")
    httpd.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
