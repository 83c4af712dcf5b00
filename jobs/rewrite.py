#!/usr/bin/env python3
"""hms-iceberg-migrator's rewrite job: read one Hive table with Spark and write it as a NEW Iceberg table.

    spark-submit [...] rewrite.py --spec SPEC.json --result RESULT.json

Shipped with the tool (package `jobs/`) and started by the worker's `rewriteTable` activity through the
configured spark-submit command line (`rewrite.command`). The spec (written by the tool, see
core/rewrite/spec.ts) names the source's storage (format, serde properties, each partition's location and
values), the target (catalog properties, namespace, name, location, properties with our marker) and the
job id. Secrets never travel in the spec: S3 keys come from the environment (AWS_ACCESS_KEY_ID, ...).

Steps, each announced on stdout as one JSON line {"event": ..., ...} (the activity heartbeats with them):
  1. target exists with our marker and this job id → the table was committed by an earlier run of this job:
     no second write (`resumed`); a table there without our marker → refused (exit 3).
  2. read the source (jobs/rewrite_read.py): text (LazySimpleSerDe: field.delim, serialization.null.format, skip.header.line.count),
     OpenCSVSerde (separatorChar, quoteChar, escapeChar), JSON (JsonSerDe), Parquet, ORC (bucketed or with
     sub-directories); every location read recursively
     (data in sub-directories, bucket files); partition values from the spec, cast to their Hive types.
  3. CTAS into the target (atomic: Iceberg's staged create commits the table once, with its data), identity
     partitioned by the Hive partition columns, at the spec's location, with the marker properties.
  4. row count and content checksum on both sides (canonical.py: sha256 over the sorted canonical JSON of
     every row; jobs/rewrite_checksum.py computes it at any size with flat driver memory), the data files the table now holds (its `files` metadata table) → the result JSON.
Exit codes: 0 done (the result says whether the checksums match), 2 bad spec, 3 target held by someone else.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rewrite_checksum import content_checksum  # noqa: E402
from rewrite_read import SpecError, quote, read_source  # noqa: E402

MARKER = "him.rewrite.job-id"
SPEC_VERSION = 1
# Shipped to the executors with the job (SparkContext.addPyFile): the modules their functions import.
MODULES = ("canonical.py", "rewrite_read.py", "rewrite_checksum.py")


def emit(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"event": event, "at": round(time.time(), 3), **fields}) + "\n")
    sys.stdout.flush()


def target_state(spark: Any, ident: str, job_id: str) -> Optional[str]:
    """None: no table; 'ours': committed by this job; else the marker it carries ('' for none)."""
    if not spark.catalog.tableExists(ident):
        return None
    props = {r[0]: r[1] for r in spark.sql(f"SHOW TBLPROPERTIES {ident}").collect()}
    marker = props.get(MARKER, "")
    return "ours" if marker == job_id else marker


def write_target(spark: Any, df: Any, spec: Dict[str, Any], ident: str) -> None:
    t = spec["target"]
    w = df.writeTo(ident).using("iceberg").tableProperty("location", t["location"])
    for k, v in sorted((t.get("properties") or {}).items()):
        w = w.tableProperty(k, v)
    w = w.tableProperty(MARKER, spec["jobId"])
    keys = [k["name"] for k in spec["source"].get("partitionKeys") or []]
    if keys:
        from pyspark.sql import functions as F

        w = w.partitionedBy(*[F.col(k) for k in keys])
    w.create()


def written_files(spark: Any, ident: str) -> List[Dict[str, Any]]:
    rows = spark.sql(f"SELECT file_path, file_size_in_bytes, record_count FROM {ident}.files").collect()
    return sorted(({"path": r[0], "bytes": int(r[1]), "rows": int(r[2])} for r in rows), key=lambda f: f["path"])


def session(spec: Dict[str, Any]) -> Any:
    from pyspark.sql import SparkSession

    cat = spec["catalog"]
    name = cat["name"]
    b = SparkSession.builder.appName(f"him-rewrite-{spec['jobId']}")
    b = b.config(f"spark.sql.catalog.{name}", "org.apache.iceberg.spark.SparkCatalog")
    for k, v in sorted((cat.get("properties") or {}).items()):
        b = b.config(f"spark.sql.catalog.{name}.{k}", v)
    for k, v in sorted((spec.get("sparkConf") or {}).items()):
        b = b.config(k, v)
    return b.getOrCreate()


def run(spec: Dict[str, Any]) -> Dict[str, Any]:
    if spec.get("version") != SPEC_VERSION:
        raise SpecError(f"spec version {spec.get('version')!r} is not {SPEC_VERSION}")
    t0 = time.monotonic()
    spark = session(spec)
    for m in MODULES:
        spark.sparkContext.addPyFile(os.path.join(HERE, m))
    t = spec["target"]
    ident = f"{spec['catalog']['name']}.{quote(t['namespace'])}.{quote(t['name'])}"
    emit("started", jobId=spec["jobId"], target=ident)
    state = target_state(spark, ident, spec["jobId"])
    if state is not None and state != "ours":
        return {"status": "target-taken", "marker": state, "target": ident}
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {spec['catalog']['name']}.{quote(t['namespace'])}")
    phases: Dict[str, float] = {}
    t0r = time.monotonic()
    src = read_source(spark, spec["source"])
    phases["read"] = round(time.monotonic() - t0r, 2)  # planning + the header scan of text tables
    if state is None:
        t1 = time.monotonic()
        emit("writing")
        write_target(spark, src, spec, ident)
        phases["write"] = round(time.monotonic() - t1, 2)
        emit("written", seconds=phases["write"])
    else:
        emit("resumed", detail="the target carries this job's marker: committed by an earlier run")
    t2 = time.monotonic()
    source = content_checksum(spark, src)
    phases["sourceChecksum"] = round(time.monotonic() - t2, 2)
    emit("source-checked", rows=source["rows"], seconds=phases["sourceChecksum"])
    t3 = time.monotonic()
    target = content_checksum(spark, spark.table(ident))
    phases["targetChecksum"] = round(time.monotonic() - t3, 2)
    phases["checksums"] = round(time.monotonic() - t2, 2)
    emit("target-checked", rows=target["rows"], seconds=phases["targetChecksum"])
    files = written_files(spark, ident)
    snap = spark.sql(f"SELECT snapshot_id FROM {ident}.snapshots ORDER BY committed_at DESC LIMIT 1").collect()
    spark.stop()
    return {
        "status": "written" if state is None else "resumed",
        "jobId": spec["jobId"],
        "target": ident,
        "location": t["location"],
        "snapshotId": str(snap[0][0]) if snap else None,
        "source": source,
        "written": target,
        "match": source == target,
        "files": files,
        "bytesWritten": sum(f["bytes"] for f in files),
        "phases": phases,
        "seconds": round(time.monotonic() - t0, 2),
    }


def job_main(argv: List[str], doc: Optional[str], run_spec: Callable[[Dict[str, Any]], Dict[str, Any]], exits: Dict[str, int]) -> int:
    """A shipped job's command line: --spec F (JSON in) --result F (JSON out, written atomically);
    a SpecError is the result {status: bad-spec}; the exit code by the result's status (else 0)."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spec", required=True)
    p.add_argument("--result", required=True)
    a = p.parse_args(argv)
    with open(a.spec, encoding="utf-8") as f:
        spec = json.load(f)
    try:
        result = run_spec(spec)
    except SpecError as e:
        result = {"status": "bad-spec", "error": str(e)}
    tmp = a.result + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f)
    os.replace(tmp, a.result)
    emit("done", status=result["status"])
    return {"bad-spec": 2, **exits}.get(result["status"], 0)


def main(argv: List[str]) -> int:
    return job_main(argv, __doc__, run, {"target-taken": 3})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
