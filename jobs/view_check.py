#!/usr/bin/env python3
"""hms-iceberg-migrator's view check: run a created Iceberg view in Spark through the target catalog and
the same view's Hive SQL over the Hive tables' own files, and compare their content checksums.

    spark-submit [...] view_check.py --spec SPEC.json --result RESULT.json

Shipped with the tool next to rewrite.py and started the same way (the configured spark-submit command
line, `rewrite.command`) by the worker's `validateIcebergView` activity. The spec (written by the tool,
see core/view/check-spec.ts) names the Iceberg view (namespace, name; the Spark catalog is named as the
view's default catalog, so its two-part names resolve where the view says), the catalog properties, the
Hive view's SQL (expanded text) and column names, and its inputs in dependency order: Hive tables with
their storage descriptors (read by rewrite.py's readers: parquet/orc/text/CSV/JSON with their serde
properties, partition values cast to their Hive types) and Hive views with their own SQL. Secrets never
travel in the spec: S3 keys come from the environment.

The Hive side reads, per location, the files Hive reads: the ones directly in it (not in sub-directories
such as an in-place Iceberg table's metadata/), hidden ones (`.`, `_`) and empty ones left out. Each input
is registered as a temporary view under its table name and the SQL's `db`.`name` references are rewritten
to it (so Hive's `name`.`column` qualifications still resolve).

Steps, each announced on stdout as one JSON line {"event": ...} (the activity heartbeats with them):
started, iceberg-checked, hive-checked, done. Both checksums are rewrite.py's content_checksum
(canonical.py: sha256 over the sorted canonical JSON lines of every row).
Result: {"status": "checked", "iceberg": {rows, checksum}, "hive": {rows, checksum}, "equal", "seconds"}.
Exit codes: 0 checked (the result says whether they are equal), 2 bad spec.
"""
from __future__ import annotations

import os
import re
import sys
import time
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rewrite import MODULES, emit, job_main  # noqa: E402
from rewrite_checksum import content_checksum  # noqa: E402
from rewrite_read import SpecError, ddl, quote, read_source  # noqa: E402

SPEC_VERSION = 1
EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"


def session(spec: Dict[str, Any]) -> Any:
    from pyspark.sql import SparkSession

    cat = spec["catalog"]
    name = cat["name"]
    b = SparkSession.builder.appName(f"him-view-check-{spec['jobId']}")
    # Spark resolves Iceberg views through Iceberg's SQL extensions.
    b = b.config("spark.sql.extensions", EXTENSIONS)
    b = b.config(f"spark.sql.catalog.{name}", "org.apache.iceberg.spark.SparkCatalog")
    for k, v in sorted((cat.get("properties") or {}).items()):
        b = b.config(f"spark.sql.catalog.{name}.{k}", v)
    return b.getOrCreate()


def glob_escape(name: str) -> str:
    return re.sub(r"([\\{}\[\]*?,^!])", r"\\\1", name)


def data_files(spark: Any, location: str) -> List[str]:
    """The files Hive reads in one location: directly in it, not hidden, not empty."""
    jvm = spark.sparkContext._jvm
    p = jvm.org.apache.hadoop.fs.Path(location)
    fs = p.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    if not fs.exists(p):
        return []
    out = []
    for st in fs.listStatus(p):
        n = st.getPath().getName()
        if st.isFile() and st.getLen() > 0 and not n.startswith((".", "_")):
            out.append(n)
    return sorted(out)


def read_table(spark: Any, src: Dict[str, Any]) -> Any:
    """One Hive table as Hive reads it: rewrite.py's readers over each location's own files."""
    locations = []
    for loc in src["locations"]:
        names = data_files(spark, loc["location"])
        if names:
            base = loc["location"].rstrip("/")
            locations.append({**loc, "location": base + "/{" + ",".join(glob_escape(n) for n in names) + "}"})
    if not locations:  # no data: no rows, the table's columns
        return spark.createDataFrame([], ddl(list(src["columns"]) + list(src.get("partitionKeys") or [])))
    return read_source(spark, {**src, "locations": locations})


def temp_names(inputs: List[Dict[str, Any]]) -> Dict[str, str]:
    """db.name → its temporary view: `name`, or `db__name` when two databases share the name."""
    shorts = [i["name"].split(".", 1)[1] for i in inputs]
    return {i["name"]: (s if shorts.count(s) == 1 else i["name"].replace(".", "__")) for i, s in zip(inputs, shorts)}


def to_temp_names(sql: str, names: Dict[str, str]) -> str:
    """`db`.`t` / db.t (any case, either quoting) → `temp` for every registered input."""
    for full, temp in sorted(names.items(), key=lambda kv: -len(kv[0])):
        db, t = full.split(".", 1)
        pat = rf"`?{re.escape(db)}`?\s*\.\s*`?{re.escape(t)}`?(?![A-Za-z0-9_])"
        sql = re.sub(pat, lambda _m, temp=temp: quote(temp), sql, flags=re.IGNORECASE)
    return sql


def hive_side(spark: Any, spec: Dict[str, Any]) -> Any:
    inputs = spec.get("inputs") or []
    names = temp_names(inputs)
    for i in inputs:
        if i["kind"] == "table":
            df = read_table(spark, i["source"])
        elif i["kind"] == "view":
            df = spark.sql(to_temp_names(i["sql"], names))
        else:
            raise SpecError(f"input kind {i['kind']!r}")
        df.createOrReplaceTempView(names[i["name"]])
    df = spark.sql(to_temp_names(spec["hiveSql"], names))
    cols = spec.get("columns") or []
    if len(cols) != len(df.columns):
        raise SpecError(f"the Hive SQL returns {len(df.columns)} columns, the Hive view declares {len(cols)}")
    return df.toDF(*cols)


def run(spec: Dict[str, Any]) -> Dict[str, Any]:
    if spec.get("version") != SPEC_VERSION:
        raise SpecError(f"spec version {spec.get('version')!r} is not {SPEC_VERSION}")
    t0 = time.monotonic()
    spark = session(spec)
    # Executors unpickle the row functions from these modules (the job imports them, it is not __main__ there).
    for m in (*MODULES, "rewrite.py"):
        spark.sparkContext.addPyFile(os.path.join(HERE, m))
    v = spec["view"]
    ident = ".".join(quote(p) for p in [spec["catalog"]["name"], *v["namespace"].split("."), v["name"]])
    emit("started", jobId=spec["jobId"], view=ident)
    iceberg = content_checksum(spark, spark.sql(f"SELECT * FROM {ident}"))
    emit("iceberg-checked", rows=iceberg["rows"])
    hive = content_checksum(spark, hive_side(spark, spec))
    emit("hive-checked", rows=hive["rows"])
    spark.stop()
    return {
        "status": "checked",
        "jobId": spec["jobId"],
        "view": ident,
        "iceberg": iceberg,
        "hive": hive,
        "equal": iceberg == hive,
        "seconds": round(time.monotonic() - t0, 2),
    }


def main(argv: List[str]) -> int:
    return job_main(argv, __doc__, run, {})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
