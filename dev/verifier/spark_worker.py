"""The worker of the long-lived Spark verifier (spark_server.py): one process holding ONE SparkSession
(one JVM), running the verifier scripts' main(argv) one request at a time, the supervisor's requests
arriving over a multiprocessing pipe. Each request gets a fresh SparkSession over the shared JVM
(SparkSession.newSession: its own run-time settings, temp views and catalog manager, so catalog
instances and their table metadata never outlive the request), its Iceberg catalog set at run time
with cache-enabled=false and, unless its name is fixed, a name of its own. What cannot change at run
time (the jars, static settings, Kerberos) makes the request fall back to a process of its own
(spark_client.Fallback). The worker leads its own process group, so the supervisor kills it and its
JVM together. Dev/test tooling.
"""
from __future__ import annotations

import contextlib
import glob
import importlib.util
import io
import os
import sys
import tempfile
import time
import traceback
from typing import Any, Callable, Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import read_table  # noqa: E402
import spark_client  # noqa: E402
from spark_client import Fallback  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = ("read_table", "read_tables", "read_matrix", "spark_sql", "view_check")
EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
# Set on every request's session, as the scripts set them in a process of their own.
RUNTIME = {"spark.sql.session.timeZone": "UTC", "spark.sql.shuffle.partitions": "1"}
# Environment that changes what a fresh process would do and a running JVM cannot take on.
FIXED_ENV = ("KRB5_CONFIG", "KRB5CCNAME", "HADOOP_CONF_DIR", "JAVA_TOOL_OPTIONS")


def watched_files() -> Dict[str, float]:
    """The code a request runs: the verifier scripts and the shipped canonical definition."""
    files = glob.glob(os.path.join(HERE, "*.py")) + [os.path.join(HERE, "..", "..", "jobs", "canonical.py")]
    return {f: os.path.getmtime(f) for f in files if os.path.exists(f)}


class Provider:
    """read_table.SESSION_PROVIDER in the worker: sessions over the one JVM."""

    def __init__(self, base: Any, jars: List[str]) -> None:
        self.base, self.jars, self.n = base, jars, 0
        self.sessions: List[Any] = []

    def session(self, jars: List[str], name: str, conf: Callable[[str], Dict[str, str]], extra: Dict[str, str], fixed: bool) -> Tuple[Any, str]:
        if jars != self.jars:
            raise Fallback(f"the request's jars differ from the server's ({len(jars)} vs {len(self.jars)})")
        for k, v in extra.items():
            if self.base.conf.get(k, None) != v:
                raise Fallback(f"{k}={v} is fixed when the JVM starts")
        self.n += 1
        if not fixed:
            name = f"{name}_r{os.getpid()}_{self.n}"
        s = self.base.newSession()
        for k, v in {**RUNTIME, **conf(name), f"spark.sql.catalog.{name}.cache-enabled": "false"}.items():
            s.conf.set(k, v)
        self.sessions.append(s)
        return s, name

    def release(self, spark: Any) -> None:
        """The request's session is dropped after the request (end_request)."""

    def end_request(self) -> None:
        # The cache manager is shared by every session: nothing a request cached may serve the next one.
        self.base.catalog.clearCache()
        for rdd in list(self.base.sparkContext._jsc.getPersistentRDDs().values()):
            rdd.unpersist()
        self.sessions.clear()


def start_spark(jars: List[str], memory: str, scratch: str) -> Any:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
    from pyspark.sql import SparkSession

    conf = {
        "spark.jars": ",".join(jars),
        "spark.driver.memory": memory,
        # A JVM out of memory exits (the supervisor restarts it) instead of answering from a broken heap.
        # C2 kept (unlike the stack's other service JVMs, dev/stack/util.ts LEAN_JVM): this one JVM serves
        # every suite's Spark reads one at a time, and C1-only code made that queue the run's bottleneck.
        "spark.driver.extraJavaOptions": "-XX:+ExitOnOutOfMemoryError",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        # As many partitions for local data as the scripts' local[1] sessions made: same files written.
        "spark.default.parallelism": "1",
        "spark.local.dir": scratch,
        "spark.sql.warehouse.dir": os.path.join(scratch, "warehouse"),
        "spark.sql.extensions": EXTENSIONS,
        **RUNTIME,
    }
    builder = SparkSession.builder.master("local[2]").appName("him-spark-verifier")
    for k, v in conf.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    warm_up(spark, scratch)
    return spark


def warm_up(spark: Any, scratch: str) -> None:
    """Load what every read needs (Iceberg's catalog, Parquet read and write, Arrow) before the first
    request: a table in a throw-away local catalog of its own session, written and read once."""
    s = spark.newSession()
    s.conf.set("spark.sql.catalog.him_warm_up", "org.apache.iceberg.spark.SparkCatalog")
    s.conf.set("spark.sql.catalog.him_warm_up.type", "hadoop")
    s.conf.set("spark.sql.catalog.him_warm_up.warehouse", "file://" + os.path.join(scratch, "warm-up"))
    s.sql("CREATE TABLE him_warm_up.w.t (id bigint, d decimal(10,2), ts timestamp) USING iceberg")
    s.sql("INSERT INTO him_warm_up.w.t VALUES (1, 1.5, TIMESTAMP '2024-01-01 00:00:00')")
    s.table("him_warm_up.w.t").toArrow()
    s.sql("SELECT count(*) FROM him_warm_up.w.t WHERE id > 0").collect()


def jvm_alive(spark: Any) -> bool:
    try:
        return not spark.sparkContext._jsc.sc().isStopped()
    except Exception:  # the gateway is gone: the JVM died
        return False


@contextlib.contextmanager
def request_context(req: Dict[str, Any]):  # type: ignore[no-untyped-def]
    """The request's environment and working directory for the time of the request."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.update({k: str(v) for k, v in dict(req.get("env") or {}).items()})
    os.chdir(str(req.get("cwd") or saved_cwd))
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def refusal(req: Dict[str, Any], watched: Dict[str, float]) -> str:
    """Why this worker must not run the request ('' when it may)."""
    if req.get("script") not in SCRIPTS:
        return f"script {req.get('script')!r} is not one the server runs ({', '.join(SCRIPTS)})"
    if os.path.realpath(str(req.get("dir", ""))) != os.path.realpath(HERE):
        return f"the request's scripts are in {req.get('dir')}, the server's in {HERE}"
    if watched_files() != watched:
        return "the verifier scripts changed since the server started"
    fixed = [k for k in FIXED_ENV if dict(req.get("env") or {}).get(k) != os.environ.get(k)]
    if fixed:
        return f"{', '.join(fixed)} differ from the server's (set when the JVM starts)"
    return ""


MODULES: Dict[str, Any] = {"read_table": read_table}


def script_module(name: str) -> Any:
    """The verifier script `name`, loaded from this directory by its path: a bare import could find the
    product's job of the same name (jobs/view_check.py), since the scripts put jobs/ first on sys.path.
    read_table is the module SESSION_PROVIDER is set on."""
    if name not in MODULES:
        spec = importlib.util.spec_from_file_location(f"him_verifier_{name}", os.path.join(HERE, f"{name}.py"))
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        MODULES[name] = mod
    return MODULES[name]


def run_script(req: Dict[str, Any]) -> Dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    code: Any = 0
    try:
        with request_context(req), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = script_module(str(req["script"])).main([str(a) for a in req.get("args") or []])
            except SystemExit as e:  # argparse errors and SystemExit(message), as a process would exit
                code = e.code
                if isinstance(code, str):
                    err.write(code + "\n")
                    code = 1
            except Fallback:
                raise
            except Exception:
                traceback.print_exc(file=err)
                code = 1
    except Fallback as e:
        return {"fallback": True, "reason": f"{e}"}
    return {"code": 0 if code is None else int(code), "stdout": out.getvalue(), "stderr": err.getvalue()}


def serve(conn: Any, jars_dir: str, memory: str, scratch_root: str, max_requests: int) -> None:
    """The worker's loop: the supervisor's requests in, answers out, until the pipe closes."""
    os.setsid()  # a group of its own: the supervisor kills it with its JVM
    spark_client.IN_SERVER = True
    watched = watched_files()
    jars = read_table.jar_list(jars_dir)
    scratch = tempfile.mkdtemp(prefix="him-spark-verifier-", dir=scratch_root)
    t0 = time.monotonic()
    spark = start_spark(jars, memory, scratch)
    provider = Provider(spark, jars)
    read_table.SESSION_PROVIDER = provider
    jvm = int(spark.sparkContext._jvm.ProcessHandle.current().pid())
    conn.send({"ready": True, "jvm": jvm, "worker": os.getpid(), "startSeconds": round(time.monotonic() - t0, 2)})
    served = 0
    while True:
        try:
            req = conn.recv()
        except (EOFError, OSError):  # the supervisor is gone
            break
        t1 = time.monotonic()
        reason = refusal(req, watched)
        ans = {"fallback": True, "reason": reason, "restart": "changed" in reason} if reason else run_script(req)
        with contextlib.suppress(Exception):
            provider.end_request()
        if not jvm_alive(spark):
            ans = {"fallback": True, "reason": "the JVM died during the request", "restart": True}
        served += 1
        exiting = bool(ans.get("restart")) or served >= max_requests
        conn.send({**ans, "jvm": jvm, "worker": os.getpid(), "seconds": round(time.monotonic() - t1, 3), "served": served, "exiting": exiting})
        if exiting:
            break
    with contextlib.suppress(Exception):
        spark.stop()
