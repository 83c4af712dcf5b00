#!/usr/bin/env python3
"""The suites' `rewrite:` command in front of spark-submit (test/helpers/rewrite.ts): runs a product
Spark job (jobs/*.py) on the shared driver of spark_jobs_server.py when it can, else execs the very
spark-submit command it was given. The product sees what spark-submit gives it: this process is the
job (its stdout, stderr and exit code are the job's own; killing its process group ends the job, and
the server then kills the driver the job ran on).

    spark_jobs_client.py --dir D [--queue-seconds 120] -- <spark-submit> [options] <job.py> [job args]

Attached to the driver, the job runs in this process as `python job.py args` would under spark-submit,
with two differences the jobs do not see: its SparkSession is a new session of the driver's
(SparkSession.newSession: its own catalogs and run-time settings) and `stop()` leaves the driver up.
It runs on its own spark-submit instead (the same answer, slower) when the options are others than
--master/--jars/--conf, when HIM_SPARK_JOBS=off, when the server is busy past --queue-seconds or its
driver does not start, and when the job asks its session builder for a setting fixed at the JVM's start
that the driver has not (spark.sql.extensions, say). One server per command line and environment the
JVM sees (D/<hash>/), started here when none runs. Dev/test tooling, never the product.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import runpy
import socket
import subprocess
import sys
import time
import traceback
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from spark_jobs_server import submit_options  # noqa: E402

# The environment the driver's JVM (and its Python workers) take at start: a job whose differs needs a
# driver of its own (S3A reads AWS_* there, Kerberos KRB5*, spark-submit JAVA_HOME and SPARK_*).
JVM_ENV = ("AWS_", "KRB5", "HADOOP_", "JAVA_", "SPARK_", "PYSPARK_", "PYTHONPATH", "LD_LIBRARY_PATH", "TZ", "LANG", "LC_")
# Builder settings a job may name that are not the JVM's to compare (the application's name).
IGNORED = ("spark.app.name",)


class Fallback(BaseException):
    """The job needs a JVM of its own; a BaseException so the job's `except Exception` lets it through."""


def note(msg: str) -> None:
    sys.stderr.write(f"[spark-jobs] {msg}\n")
    sys.stderr.flush()


def split_argv(argv: List[str]) -> Tuple[List[str], str, List[str]]:
    """<spark-submit> [options] <job.py> [args] → (submit + options, job, args)."""
    i = 1
    while i < len(argv) and argv[i].startswith("--"):
        i += 2
    if i >= len(argv):
        raise ValueError("no job file after the spark-submit options")
    return argv[:i], argv[i], argv[i + 1 :]


def server_dir(root: str, submit: List[str]) -> str:
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(JVM_ENV))
    key = hashlib.sha256(json.dumps([submit, env]).encode("utf-8")).hexdigest()[:16]
    return os.path.join(root, key)


def jobs_hash(job: str) -> str:
    h = hashlib.sha256()
    for f in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(job)), "*.py"))):
        with open(f, "rb") as fh:
            h.update(f.encode("utf-8") + b"\0" + fh.read() + b"\0")
    return h.hexdigest()


def connect(d: str, submit: List[str]) -> socket.socket:
    """A connection to the server of `d`, started (detached) when none answers."""
    os.makedirs(d, exist_ok=True)
    port_file = os.path.join(d, "port")
    started = False
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60:
        try:
            with open(port_file, encoding="utf-8") as f:
                return socket.create_connection(("127.0.0.1", int(f.read().strip())), timeout=10)
        except (OSError, ValueError):
            pass
        if not started:
            started = start_server(d, submit)
        time.sleep(0.2)
    raise OSError(f"no shared driver server answered in {d}")


def start_server(d: str, submit: List[str]) -> bool:
    """Start the server unless another client is starting it (a lock directory, stale after 60 s)."""
    lock = os.path.join(d, "start.lock")
    try:
        if os.path.isdir(lock) and time.time() - os.path.getmtime(lock) > 60:
            os.rmdir(lock)
        os.mkdir(lock)
    except OSError:
        return True
    try:
        os.remove(os.path.join(d, "port"))
    except OSError:
        pass
    with open(os.path.join(d, "server.log"), "ab") as out:
        cmd = [sys.executable, os.path.join(HERE, "spark_jobs_server.py"), "--dir", d, "--", *submit]
        subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True, cwd=d)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 30 and not os.path.exists(os.path.join(d, "port")):
        time.sleep(0.1)
    os.rmdir(lock)
    return True


def lease(conn: socket.socket, job: str, queue: float) -> Dict[str, Any]:
    conn.sendall((json.dumps({"op": "lease", "jobsHash": jobs_hash(job), "queueSeconds": queue}) + "\n").encode("utf-8"))
    conn.settimeout(queue + 300 + 60)  # the queue, a driver's start, a margin
    line = conn.makefile("r", encoding="utf-8").readline()
    return json.loads(line) if line.strip() else {"ok": False, "reason": "the server closed the connection"}


def attach(grant: Dict[str, Any]) -> Any:
    """This process's SparkContext and a new session over the driver's; stop() made a no-op; the
    builder refusing settings the driver has not."""
    os.environ["PYSPARK_GATEWAY_PORT"] = str(grant["port"])
    os.environ["PYSPARK_GATEWAY_SECRET"] = str(grant["secret"])
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql import SparkSession

    gw = launch_gateway()
    jvm = gw.jvm
    jsc = jvm.org.apache.spark.api.java.JavaSparkContext.fromSparkContext(jvm.org.apache.spark.SparkContext.getOrCreate())
    sc = SparkContext(gateway=gw, jsc=jsc)
    jbase = SparkSession._get_j_spark_session_class(jvm).getDefaultSession().get()
    spark = SparkSession(sc, jsparkSession=jbase.newSession())
    SparkSession.stop = lambda self: None  # type: ignore[method-assign]
    SparkContext.stop = lambda self: None  # type: ignore[method-assign]
    jconf = jsc.sc().conf()
    get_or_create = SparkSession.Builder.getOrCreate

    sql_conf = jvm.org.apache.spark.sql.internal.SQLConf

    def checked(builder: Any) -> Any:
        # An existing session takes the run-time SQL settings (catalogs among them); a static SQL
        # setting or a core one (spark.driver.*, spark.hadoop.*) only a JVM's start does.
        for k, v in builder._options.items():
            if k in IGNORED or (k.startswith("spark.sql.") and not sql_conf.isStaticConfigKey(k)):
                continue
            if not jconf.contains(k) or jconf.get(k) != str(v):
                raise Fallback(f"the job sets {k}={v}, fixed when the JVM starts, and the shared driver has {jconf.get(k, None)}")
        return get_or_create(builder)

    SparkSession.Builder.getOrCreate = checked  # type: ignore[method-assign]
    return spark


def run_job(spark: Any, job: str, args: List[str]) -> int:
    sys.argv = [job, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(job)))
    try:
        runpy.run_path(job, run_name="__main__")
        code: Any = 0
    except SystemExit as e:
        code = e.code
        if isinstance(code, str):
            sys.stderr.write(code + "\n")
            code = 1
    except Fallback:
        raise
    except Exception:  # noqa: BLE001 - as the interpreter reports an uncaught exception
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    spark.catalog.clearCache()  # the cache manager is the driver's: nothing a job cached serves the next
    for rdd in list(spark.sparkContext._jsc.getPersistentRDDs().values()):
        rdd.unpersist()
    return 0 if code is None else int(code)


def main(argv: List[str]) -> int:
    if len(argv) < 4 or argv[0] != "--dir" or "--" not in argv:
        note("usage: spark_jobs_client.py --dir D [--queue-seconds N] -- <spark-submit> [options] <job.py> [args]")
        return 2
    sep = argv.index("--")
    opts, command = argv[:sep], argv[sep + 1 :]
    if not command:
        note("no spark-submit command after --")
        return 2
    queue = float(opts[opts.index("--queue-seconds") + 1]) if "--queue-seconds" in opts else 120.0
    conn: Optional[socket.socket] = None
    try:
        submit, job, args = split_argv(command)
        if os.environ.get("HIM_SPARK_JOBS") == "off":
            raise Fallback("HIM_SPARK_JOBS=off")
        submit_options(submit[1:])
        conn = connect(server_dir(opts[1], submit), submit)
        grant = lease(conn, job, queue)
        if not grant.get("ok"):
            raise Fallback(str(grant.get("reason")))
        try:
            spark = attach(grant)
        except Exception as e:  # noqa: BLE001 - a gateway this process cannot use: spark-submit instead
            raise Fallback(f"attaching to the shared driver failed: {type(e).__name__}: {e}") from e
        code = run_job(spark, job, args)
        conn.sendall(b'{"op": "done"}\n')
        conn.close()
        os._exit(code)  # the gateway's threads must not hold the exit
    except (Fallback, OSError, ValueError) as e:
        note(f"{e}; running spark-submit")
        if conn is not None:
            try:
                conn.sendall(b'{"op": "done"}\n')
                conn.close()
            except OSError:
                pass
    os.execvp(command[0], command)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
