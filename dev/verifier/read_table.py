#!/usr/bin/env python3
"""Read one Iceberg table through a REST catalog with an independent engine and print ONE JSON line.

    read_table.py --engine pyiceberg|spark --catalog-uri URI --s3-endpoint URL --table ns.tbl
                  [--jars-dir DIR] [--sample N]

Output: {"engine", "table", "rows", "checksum", "columns", "sample", "seconds", "phases"}; the checksum and
canonical values are defined in canonical.py, so both engines print the same checksum for the same
rows. S3 keys come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_REGION. Only the result
goes to stdout; engine logs go to stderr. Dev/test tooling: run it with the verifier venv's python
(HIM_VERIFIER_PYTHON), Spark jars from HIM_SPARK_JARS_DIR. With HIM_SPARK_VERIFIER_URL set (the stack's
env), --engine spark runs in the stack's long-lived Spark (spark_client.py, spark_server.py), and in
this process whenever that cannot answer; the other Spark scripts here do the same.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import summary  # noqa: E402
from spark_client import delegate  # noqa: E402

SPARK_CATALOG = "verifier"


def split_table(name: str) -> Tuple[str, str]:
    ns, sep, tbl = name.rpartition(".")
    if not sep or not ns or not tbl:
        raise SystemExit(f"--table must be namespace.table, got {name!r}")
    return ns, tbl


def aws() -> Dict[str, str]:
    missing = [k for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY") if not os.environ.get(k)]
    if missing:
        raise SystemExit(f"missing environment: {', '.join(missing)}")
    return {
        "key": os.environ["AWS_ACCESS_KEY_ID"],
        "secret": os.environ["AWS_SECRET_ACCESS_KEY"],
        "region": os.environ.get("AWS_REGION", "us-east-1"),
    }


def pyiceberg_catalog(uri: str, s3_endpoint: str) -> Any:
    from pyiceberg.catalog import load_catalog

    a = aws()
    return load_catalog(
        "verifier",
        **{
            "type": "rest",
            "uri": uri,
            "s3.endpoint": s3_endpoint,
            "s3.access-key-id": a["key"],
            "s3.secret-access-key": a["secret"],
            "s3.region": a["region"],
        },
    )


def read_pyiceberg(args: argparse.Namespace, phases: Dict[str, float]) -> Any:
    return pyiceberg_catalog(args.catalog_uri, args.s3_endpoint).load_table(args.table).scan().to_arrow()


# spark_worker.py (the long-lived Spark verifier, spark_server.py) sets this in its process: sessions then
# come from its one JVM, a fresh SparkSession per request with the catalog set at run time.
SESSION_PROVIDER: Optional[Any] = None


def catalog_conf(args: argparse.Namespace, catalog_name: str, catalog: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The Spark settings of one Iceberg catalog `catalog_name`: the REST catalog at args.catalog_uri
    unless `catalog` gives other catalog properties (type or catalog-impl, uri, ...); tables are read
    with S3FileIO at args.s3_endpoint (path-style) whichever catalog names them."""
    a = aws()
    cat = f"spark.sql.catalog.{catalog_name}"
    props = {"type": "rest", "uri": args.catalog_uri} if catalog is None else catalog
    return {
        cat: "org.apache.iceberg.spark.SparkCatalog",
        **{f"{cat}.{k}": v for k, v in props.items()},
        f"{cat}.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        f"{cat}.s3.endpoint": args.s3_endpoint,
        f"{cat}.s3.path-style-access": "true",
        f"{cat}.s3.access-key-id": a["key"],
        f"{cat}.s3.secret-access-key": a["secret"],
        f"{cat}.client.region": a["region"],
    }


def jar_list(jars_dir: Optional[str]) -> List[str]:
    jars = sorted(glob.glob(os.path.join(jars_dir or "", "*.jar")))
    if not jars:
        raise SystemExit(f"no jars in --jars-dir {jars_dir!r} (iceberg-spark-runtime + iceberg-aws-bundle)")
    return jars


def spark_session(
    args: argparse.Namespace,
    scratch: str,
    catalog_name: str = SPARK_CATALOG,
    catalog: Optional[Dict[str, str]] = None,
    extra: Optional[Dict[str, str]] = None,
) -> Any:
    """A local Spark session with one Iceberg catalog `catalog_name` (catalog_conf)."""
    return open_spark(args, scratch, catalog_name, catalog, extra)[0]


def open_spark(
    args: argparse.Namespace,
    scratch: str,
    catalog_name: str = SPARK_CATALOG,
    catalog: Optional[Dict[str, str]] = None,
    extra: Optional[Dict[str, str]] = None,
    fixed_name: bool = True,
) -> Tuple[Any, str]:
    """spark_session, and the name the catalog has in it: `catalog_name`, or in the long-lived server a
    name of this request's own when `fixed_name` is False (nothing outside the script names it)."""
    jars = jar_list(args.jars_dir)
    if SESSION_PROVIDER is not None:
        return SESSION_PROVIDER.session(jars, catalog_name, lambda n: catalog_conf(args, n, catalog), extra or {}, fixed_name)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
    from pyspark.sql import SparkSession

    conf = {
        "spark.jars": ",".join(jars),
        "spark.driver.memory": "768m",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "1",
        "spark.local.dir": scratch,
        "spark.sql.warehouse.dir": os.path.join(scratch, "warehouse"),
        **catalog_conf(args, catalog_name, catalog),
        **(extra or {}),
    }
    builder = SparkSession.builder.master("local[1]").appName("him-verifier")
    for k, v in conf.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark, catalog_name


def stop_session(spark: Any) -> None:
    """spark.stop() in a process of its own; in the server the session is the request's and the JVM stays."""
    if SESSION_PROVIDER is not None:
        SESSION_PROVIDER.release(spark)
    else:
        spark.stop()


def read_spark(args: argparse.Namespace, phases: Dict[str, float]) -> Any:
    ns, tbl = split_table(args.table)
    scratch = tempfile.mkdtemp(prefix="him-spark-")
    t0 = time.monotonic()
    spark, name = open_spark(args, scratch, fixed_name=False)
    phases["session_start"] = round(time.monotonic() - t0, 2)
    try:
        t1 = time.monotonic()
        # toArrow (PySpark 4.0) hands Spark's rows over as Arrow, as PyIceberg does: one
        # normaliser for both engines. Timestamps with zone arrive in the session zone (UTC).
        table = spark.table(f"{name}.`{ns}`.`{tbl}`").toArrow()
        phases["read"] = round(time.monotonic() - t1, 2)
        return table
    finally:
        t2 = time.monotonic()
        stop_session(spark)
        phases["stop"] = round(time.monotonic() - t2, 2)
        shutil.rmtree(scratch, ignore_errors=True)


READERS = {"pyiceberg": read_pyiceberg, "spark": read_spark}


def parse(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", required=True, choices=sorted(READERS))
    p.add_argument("--catalog-uri", default=os.environ.get("HIM_ICEBERG_REST_URI"))
    p.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
    p.add_argument("--table", required=True, help="namespace.table")
    p.add_argument("--jars-dir", default=os.environ.get("HIM_SPARK_JARS_DIR"))
    p.add_argument("--sample", type=int, default=5)
    args = p.parse_args(argv)
    if not args.catalog_uri or not args.s3_endpoint:
        p.error("--catalog-uri and --s3-endpoint are required (or HIM_ICEBERG_REST_URI / HIM_S3_ENDPOINT)")
    split_table(args.table)
    return args


def main(argv: List[str]) -> int:
    args = parse(argv)
    if args.engine == "spark":
        rc = delegate("read_table", argv)
        if rc is not None:
            return rc
    t0 = time.monotonic()
    phases: Dict[str, float] = {}
    table = READERS[args.engine](args, phases)
    out = summary(args.engine, table, args.sample)
    out["table"] = args.table
    out["seconds"] = round(time.monotonic() - t0, 2)
    out["phases"] = phases
    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
