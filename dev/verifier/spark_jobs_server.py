#!/usr/bin/env python3
"""The shared Spark driver for the suites' product jobs (jobs/rewrite.py, readback.py, view_check.py
run through the `rewrite:` command of test/helpers/rewrite.ts): one driver JVM, started with the very
spark-submit options the command names, that the jobs attach to one at a time instead of starting a
JVM each (a job's CPU ~13 s → ~4 s once the JVM is warm; docs/timings.md). Started on demand by
spark_jobs_client.py, one server per command and environment (its directory is named by their hash).

    spark_jobs_server.py --dir D [--idle-seconds 600] [--max-jobs 40] -- <spark-submit> [--master M]
                         [--jars J] [--conf K=V]...

The server listens on 127.0.0.1 (its port in D/port) and hands out one lease at a time: a client
sends one JSON line {"op": "lease", "jobsHash", "queueSeconds"} and gets {"ok": true, "port",
"secret", "jvm"} (the driver's Py4J gateway) or {"ok": false, "reason"} (it then runs spark-submit
itself). The lease lasts until the client sends {"op": "done"}. A client that goes away without it
(killed with its process group, as the product kills a job on cancel or deadline) takes the driver
with it: the holder and its JVM are killed before the next lease, so a killed job never writes beside
its retry, exactly as with a JVM of its own; a new driver starts at once. A lease whose job files
differ from the ones the driver served (jobs/*.py changed) restarts the driver first (Spark ships a
path's file to its Python workers once). {"op": "status"} answers {"jvm", "jobs", "restarts"}.
The server exits after --idle-seconds without a lease, when D is removed, or on SIGTERM (dev/test.sh
stops it with the stack), killing its driver. Dev/test tooling, never the product.

    spark_jobs_server.py --hold D -- <spark-submit options>
The holder (a process group of its own: python, spark-submit's JVM and Spark's Python workers): starts
the driver with the options, writes D/gateway.json, and lives until killed or its server is gone.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional

START_TIMEOUT = 300.0


def log(msg: str) -> None:
    sys.stdout.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [spark-jobs] {msg}\n")
    sys.stdout.flush()


def gone(pid: int) -> bool:
    """No such process, or a zombie (killed, not yet reaped by whoever adopted it)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def submit_options(argv: List[str]) -> Dict[str, Any]:
    """The spark-submit options the client accepts (its --master, --jars, --conf), as builder settings."""
    out: Dict[str, Any] = {"master": "local[*]", "conf": {}}
    i = 0
    while i < len(argv):
        opt, val = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        if val is None:
            raise ValueError(f"{opt} has no value")
        if opt == "--master":
            out["master"] = val
        elif opt == "--jars":
            out["conf"]["spark.jars"] = val
        elif opt == "--conf" and "=" in val:
            k, v = val.split("=", 1)
            out["conf"][k] = v
        else:
            raise ValueError(f"spark-submit option {opt} is not one the shared driver takes")
        i += 2
    return out


def hold(directory: str, argv: List[str]) -> int:
    """The holder: the driver JVM with the command's options, its gateway in D/gateway.json."""
    from pyspark.sql import SparkSession

    parent = os.getppid()
    opts = submit_options(argv[1:])
    b = SparkSession.builder.master(opts["master"]).appName("him-spark-jobs")
    for k, v in opts["conf"].items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    p = spark.sparkContext._gateway.java_parameters
    jvm = int(spark.sparkContext._jvm.ProcessHandle.current().pid())
    tmp = os.path.join(directory, f"gateway.json.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"port": p.port, "secret": p.auth_token, "jvm": jvm, "holder": os.getpid()}, f)
    os.chmod(tmp, 0o600)
    os.replace(tmp, os.path.join(directory, "gateway.json"))
    while os.getppid() == parent:  # the server is gone: so is the driver (the group is killed)
        time.sleep(1)
    os.killpg(os.getpgid(0), signal.SIGKILL)
    return 0


class Holder:
    """The driver: started in its own process group, (re)started and killed by the server."""

    def __init__(self, directory: str, argv: List[str]) -> None:
        self.dir, self.argv = directory, argv
        self.proc: Optional[subprocess.Popen] = None
        self.info: Dict[str, Any] = {}
        self.restarts = -1

    def start(self) -> None:
        gateway = os.path.join(self.dir, "gateway.json")
        if os.path.exists(gateway):
            os.remove(gateway)
        log_file = open(os.path.join(self.dir, "driver.log"), "ab")
        cmd = [sys.executable, os.path.abspath(__file__), "--hold", self.dir, "--", *self.argv]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, start_new_session=True)
        log_file.close()
        self.info = {}
        self.restarts += 1

    def ready(self, timeout: float) -> bool:
        t0 = time.monotonic()
        gateway = os.path.join(self.dir, "gateway.json")
        while time.monotonic() - t0 < timeout:
            if self.proc is None or self.proc.poll() is not None:
                return False
            if os.path.exists(gateway):
                with open(gateway, encoding="utf-8") as f:
                    self.info = json.load(f)
                return True
            time.sleep(0.1)
        return False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait(30)
        jvm = self.info.get("jvm")
        for _ in range(300):  # the JVM is in the group: wait until it is gone too
            if not jvm or gone(int(jvm)):
                break
            time.sleep(0.1)
        self.proc, self.info = None, {}


class Server:
    def __init__(self, cfg: argparse.Namespace) -> None:
        self.cfg = cfg
        self.lock = threading.Lock()
        self.holder = Holder(cfg.dir, cfg.argv)
        self.jobs_hash: Optional[str] = None
        self.jobs = 0
        self.served = 0
        self.last = time.monotonic()

    def restart(self, why: str) -> None:
        log(f"starting a driver ({why})")
        self.holder.kill()
        self.holder.start()
        self.served = 0

    def lease(self, conn: socket.socket, rfile: Any, req: Dict[str, Any]) -> None:
        send = lambda body: conn.sendall((json.dumps(body) + "\n").encode("utf-8"))  # noqa: E731
        queue = float(req.get("queueSeconds") or 120)
        if not self.lock.acquire(timeout=queue):
            return send({"ok": False, "reason": f"the shared driver was busy for {queue:.0f} s"})
        try:
            jobs_hash = str(req.get("jobsHash") or "")
            if self.jobs_hash is not None and jobs_hash != self.jobs_hash:
                self.restart("the job files changed")
            elif self.served >= self.cfg.max_jobs:
                self.restart(f"{self.served} jobs served")
            elif not self.holder.alive():
                self.restart("none running")
            self.jobs_hash = jobs_hash
            if not self.holder.ready(START_TIMEOUT):
                self.holder.kill()
                return send({"ok": False, "reason": "the shared driver did not start (see its driver.log)"})
            t0 = time.monotonic()
            send({"ok": True, **{k: self.holder.info[k] for k in ("port", "secret", "jvm")}})
            line = rfile.readline()
            self.jobs += 1
            self.served += 1
            done = line.strip() and json.loads(line).get("op") == "done"
            log(f"job {self.jobs} on JVM {self.holder.info.get('jvm')}: {'done' if done else 'the client went away'} in {time.monotonic() - t0:.1f} s")
            if not done:
                self.restart("a job's client went away mid-job: its driver is killed with it")
            elif not self.holder.alive():
                self.restart("the driver died during a job")
        finally:
            self.last = time.monotonic()
            self.lock.release()

    def handle(self, conn: socket.socket) -> None:
        with conn, conn.makefile("r", encoding="utf-8") as rfile:
            try:
                req = json.loads(rfile.readline() or "{}")
                if req.get("op") == "lease":
                    self.lease(conn, rfile, req)
                elif req.get("op") == "status":
                    info = {"jvm": self.holder.info.get("jvm"), "jobs": self.jobs, "restarts": self.holder.restarts}
                    conn.sendall((json.dumps(info) + "\n").encode("utf-8"))
            except (OSError, ValueError) as e:
                log(f"a connection failed: {type(e).__name__}: {e}")

    def stop(self, why: str) -> None:
        log(f"stopping: {why}")
        try:
            os.remove(os.path.join(self.cfg.dir, "port"))  # first: no client connects to a server going away
        except OSError:
            pass
        self.holder.kill()
        for f in ("gateway.json", "server.pid"):
            try:
                os.remove(os.path.join(self.cfg.dir, f))
            except OSError:
                pass
        os._exit(0)

    def watch(self) -> None:
        while True:
            time.sleep(2)
            if not os.path.isdir(self.cfg.dir):
                self.stop(f"{self.cfg.dir} is gone")
            idle = time.monotonic() - self.last
            if idle > self.cfg.idle_seconds and self.lock.acquire(blocking=False):
                self.stop(f"no job for {idle:.0f} s")


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir")
    p.add_argument("--hold")
    p.add_argument("--idle-seconds", type=float, default=600)
    p.add_argument("--max-jobs", type=int, default=40)
    p.add_argument("argv", nargs=argparse.REMAINDER)
    cfg = p.parse_args(argv)
    cfg.argv = cfg.argv[1:] if cfg.argv[:1] == ["--"] else cfg.argv
    if cfg.hold:
        return hold(cfg.hold, cfg.argv)
    submit_options(cfg.argv[1:])  # refuse what the holder could not start, before listening
    srv = Server(cfg)
    signal.signal(signal.SIGTERM, lambda *_: srv.stop("SIGTERM"))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    with open(os.path.join(cfg.dir, "server.pid"), "w", encoding="utf-8") as f:
        f.write(f"{os.getpid()}\n")
    srv.restart("the server starts")
    tmp = os.path.join(cfg.dir, f"port.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"{sock.getsockname()[1]}\n")
    os.replace(tmp, os.path.join(cfg.dir, "port"))
    log(f"listening on 127.0.0.1:{sock.getsockname()[1]}; driver options {cfg.argv[1:]}")
    threading.Thread(target=srv.watch, daemon=True).start()
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=srv.handle, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
