"""The client side of the long-lived Spark verifier (spark_server.py): a verifier script that needs Spark
sends its own command line to the server when HIM_SPARK_VERIFIER_URL is set, and prints the server's
answer as if it had run itself (same stdout, stderr and exit code). Whenever the server cannot answer
for sure — not running, busy longer than a JVM start costs, restarted after a crash or a hang, a
setting it cannot change at run time — the script runs in its own process as it always did: a
slower answer, never a different one. Dev/test tooling.
"""
from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
# Set by spark_worker.py in the server's worker: a script it runs must not call the server again.
IN_SERVER = False
# The environment a script reads (argparse defaults, S3 keys, the JDBC password).
# Also what a running JVM cannot take on (spark_worker.FIXED_ENV): sent so the server can refuse.
ENV_PREFIXES = ("HIM_", "AWS_", "PG", "KRB5", "HADOOP_CONF_DIR", "JAVA_TOOL_OPTIONS")
DEFAULT_TIMEOUT = 540.0  # one request's run time; past it the server kills and restarts its JVM
DEFAULT_QUEUE_WAIT = 40.0  # longer in the queue than a JVM start costs: run in this process instead


class Fallback(BaseException):
    """Raised inside the server when a request needs what only a fresh process gives (a setting fixed at
    the JVM's start). A BaseException: the scripts' per-table `except Exception` must not swallow it."""


def request_env() -> Dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIXES) and k != "HIM_SPARK_VERIFIER_URL"}


def _float_env(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


def post(url: str, body: Dict[str, object], timeout: float) -> Dict[str, object]:
    """POST JSON, the JSON answer (an HTTP error's JSON body too)."""
    data = json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return json.loads(res.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        return json.loads(e.read().decode("utf-8") or "{}")


def delegate(script: str, argv: List[str]) -> Optional[int]:
    """Run `script`'s main(argv) in the server: its exit code after writing its output here, or None
    when this process must run it itself."""
    url = os.environ.get("HIM_SPARK_VERIFIER_URL")
    # HIM_SPARK_VERIFIER=off: every script in its own process (a JVM per call), e.g. to compare.
    if IN_SERVER or not url or os.environ.get("HIM_SPARK_VERIFIER") == "off":
        return None
    timeout = _float_env("HIM_SPARK_VERIFIER_TIMEOUT", DEFAULT_TIMEOUT)
    queue = _float_env("HIM_SPARK_VERIFIER_QUEUE_WAIT", DEFAULT_QUEUE_WAIT)
    body = {
        "script": script,
        "args": list(argv),
        "cwd": os.getcwd(),
        "dir": HERE,
        "env": request_env(),
        "timeoutSeconds": timeout,
        "queueSeconds": queue,
    }
    try:
        # The server answers within queue + start-up wait + timeout; the margin covers its kill and answer.
        out = post(url.rstrip("/") + "/run", body, queue + timeout + 120)
    except (OSError, ValueError) as e:  # not running, connection reset, timed out, not JSON
        sys.stderr.write(f"[spark-verifier] {url}: {type(e).__name__}: {e}; running in this process\n")
        return None
    if out.get("fallback") or not isinstance(out.get("code"), int):
        sys.stderr.write(f"[spark-verifier] {out.get('reason', 'no answer')}; running in this process\n")
        return None
    sys.stdout.write(str(out.get("stdout", "")))
    sys.stdout.flush()
    sys.stderr.write(str(out.get("stderr", "")))
    sys.stderr.flush()
    return int(out["code"])  # type: ignore[arg-type]
