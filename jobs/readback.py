#!/usr/bin/env python3
"""hms-iceberg-migrator's read-back proof: read a sample of each table's data files through the new
Iceberg table and through the Hive table (the same files, the Hive schema, serde and partition values)
in one Spark session, and compare their content checksums.

    spark-submit [...] readback.py --spec SPEC.json --result RESULT.json

Shipped with the tool next to rewrite.py and started the same way (the configured spark-submit command
line, `rewrite.command`). The spec (written by the tool, see core/validate/readback-spec.ts) names the
catalog and its properties and, per table, the Iceberg table (namespace, name), the sampled files exactly
as the Iceberg manifests name them, and the Hive side: the table's columns, serde and one location per
sampled file (the file itself, with its partition's values). Secrets never travel in the spec.

The Iceberg side is `SELECT <the Hive columns> FROM <table> WHERE _file IN (<sampled files>)`: the
table's own metadata (schema, field ids, name mapping, partition values) decides what each column
holds. The Hive side reads the same files with rewrite.py's readers. A metadata that binds a column to
the wrong field, or gives a file the wrong partition value, reads different values: the checksums differ.

Steps, each announced on stdout as one JSON line {"event": ...}: started, table-checked (one per table),
done. Both checksums are rewrite_checksum.py's definition (canonical.py's lines, sorted, sha256), a small
sample's sorted on the driver (sample_checksum). A table whose read fails is
reported as {"status": "failed", "error"} and the others still run.
Result: {"status": "checked", "jobId", "tables": [{tableId, status, iceberg: {rows, checksum},
hive: {rows, checksum}, seconds}], "seconds"}. Exit codes: 0 checked, 2 bad spec.
"""
from __future__ import annotations

import hashlib
import os
import sys
import time
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rewrite import MODULES, emit, job_main  # noqa: E402
from rewrite_checksum import canonical_lines, content_checksum, hash_stream, pieces  # noqa: E402
from rewrite_read import SpecError, quote, read_source  # noqa: E402

SPEC_VERSION = 1
# A sample's canonical lines up to this size are sorted on the driver (two Spark jobs per side);
# larger ones take rewrite_checksum's streamed path. Same definition either way: sha256 over the
# sorted lines joined by "\n".
SMALL_BYTES = 64 << 20


def session(spec: Dict[str, Any]) -> Any:
    from pyspark.sql import SparkSession

    cat = spec["catalog"]
    name = cat["name"]
    b = SparkSession.builder.appName(f"him-readback-{spec['jobId']}")
    # Hive's `timestamp` is a wall clock; Spark reads the Hive side's as instants in the session zone:
    # UTC makes that instant's wall clock the stored one (see `aligned`).
    b = b.config("spark.sql.session.timeZone", "UTC")
    b = b.config(f"spark.sql.catalog.{name}", "org.apache.iceberg.spark.SparkCatalog")
    for k, v in sorted((cat.get("properties") or {}).items()):
        b = b.config(f"spark.sql.catalog.{name}.{k}", v)
    return b.getOrCreate()


def sql_string(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def columns(src: Dict[str, Any]) -> List[str]:
    return [c["name"] for c in list(src["columns"]) + list(src.get("partitionKeys") or [])]


def iceberg_side(spark: Any, catalog: str, t: Dict[str, Any]) -> Any:
    ident = ".".join(quote(p) for p in [catalog, *t["iceberg"]["namespace"].split("."), t["iceberg"]["name"]])
    cols = ", ".join(quote(c) for c in columns(t["source"]))
    files = ", ".join(sql_string(f) for f in t["files"])
    return spark.sql(f"SELECT {cols} FROM {ident} WHERE _file IN ({files})")


def hive_side(spark: Any, t: Dict[str, Any]) -> Any:
    df = read_source(spark, t["source"])
    return df.select(*[quote(c) for c in columns(t["source"])])


def sample_checksum(spark: Any, df: Any) -> Dict[str, Any]:
    """content_checksum's rows and checksum, without its range sort and streaming for a small sample."""
    from pyspark.sql import functions as F

    lines = canonical_lines(spark, df)
    stats = lines.agg(F.count(F.lit(1)).alias("n"), F.sum(F.octet_length("line")).alias("b")).collect()[0]
    n = int(stats["n"])
    if n == 0:
        return {"rows": 0, "checksum": hashlib.sha256(b"").hexdigest()}
    if int(stats["b"] or 0) + n > SMALL_BYTES:
        return content_checksum(spark, df)
    # Python orders str by code point, as Spark orders strings by their UTF-8 bytes.
    return hash_stream(pieces(iter(sorted(r[0] for r in lines.collect()))))


def aligned(hive: Any, iceberg: Any) -> Any:
    """The Hive side with each top-level `timestamp` column the Iceberg table holds as `timestamp`
    without zone (TIMESTAMP_NTZ in Spark) cast to it: the same wall clock in UTC, so the canonical
    form compares values, not Spark's two spellings of one Hive type. Nothing else is cast."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampNTZType, TimestampType

    ice = {f.name.lower(): f.dataType for f in iceberg.schema.fields}
    for f in hive.schema.fields:
        if isinstance(f.dataType, TimestampType) and isinstance(ice.get(f.name.lower()), TimestampNTZType):
            hive = hive.withColumn(f.name, F.col(quote(f.name)).cast("timestamp_ntz"))
    return hive


def check_table(spark: Any, catalog: str, t: Dict[str, Any]) -> Dict[str, Any]:
    t0 = time.monotonic()
    try:
        ice_df = iceberg_side(spark, catalog, t)
        iceberg = sample_checksum(spark, ice_df)
        hive = sample_checksum(spark, aligned(hive_side(spark, t), ice_df))
    except Exception as e:  # one table's failure is its own; the rest of the batch still runs
        return {"tableId": t["tableId"], "status": "failed", "error": f"{type(e).__name__}: {e}"[:2000]}
    return {"tableId": t["tableId"], "status": "checked", "iceberg": iceberg, "hive": hive, "seconds": round(time.monotonic() - t0, 2)}


def run(spec: Dict[str, Any]) -> Dict[str, Any]:
    if spec.get("version") != SPEC_VERSION:
        raise SpecError(f"spec version {spec.get('version')!r} is not {SPEC_VERSION}")
    tables = spec.get("tables") or []
    for t in tables:
        if not t.get("files"):
            raise SpecError(f"{t.get('tableId')!r}: no sampled files")
    t0 = time.monotonic()
    spark = session(spec)
    # Executors unpickle the row functions from these modules (the job imports them, it is not __main__ there).
    for m in (*MODULES, "rewrite.py"):
        spark.sparkContext.addPyFile(os.path.join(HERE, m))
    emit("started", jobId=spec["jobId"], tables=len(tables))
    out = []
    for t in tables:
        r = check_table(spark, spec["catalog"]["name"], t)
        emit("table-checked", tableId=t["tableId"], status=r["status"])
        out.append(r)
    spark.stop()
    return {"status": "checked", "jobId": spec["jobId"], "tables": out, "seconds": round(time.monotonic() - t0, 2)}


def main(argv: List[str]) -> int:
    return job_main(argv, __doc__, run, {})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
