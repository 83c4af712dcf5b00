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
  2. read the source: text (LazySimpleSerDe: field.delim, serialization.null.format, skip.header.line.count),
     OpenCSVSerde (separatorChar, quoteChar, escapeChar), JSON (JsonSerDe), Parquet, ORC (bucketed or with
     sub-directories); every location read recursively
     (data in sub-directories, bucket files); partition values from the spec, cast to their Hive types.
  3. CTAS into the target (atomic: Iceberg's staged create commits the table once, with its data), identity
     partitioned by the Hive partition columns, at the spec's location, with the marker properties.
  4. row count and content checksum on both sides (canonical.py: sha256 over the sorted canonical JSON of
     every row), the data files the table now holds (its `files` metadata table) → the result JSON.
Exit codes: 0 done (the result says whether the checksums match), 2 bad spec, 3 target held by someone else.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from typing import Any, Dict, Iterator, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from canonical import canonical_json, normalize  # noqa: E402

MARKER = "him.rewrite.job-id"
SPEC_VERSION = 1
TEXT_SERDES = ("org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe2")
CSV_SERDE = "org.apache.hadoop.hive.serde2.OpenCSVSerde"
PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
ORC_SERDE = "org.apache.hadoop.hive.ql.io.orc.OrcSerde"
JSON_SERDES = ("org.apache.hive.hcatalog.data.JsonSerDe", "org.apache.hadoop.hive.serde2.JsonSerDe", "org.openx.data.jsonserde.JsonSerDe")


def emit(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"event": event, "at": round(time.time(), 3), **fields}) + "\n")
    sys.stdout.flush()


class SpecError(Exception):
    pass


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def ddl(columns: List[Dict[str, str]]) -> str:
    return ", ".join(f"{quote(c['name'])} {c['type']}" for c in columns)


def read_location(spark: Any, src: Dict[str, Any], path: str) -> Any:
    """One location of the source as a DataFrame of the table's columns (in Hive's order)."""
    serde = src.get("serde") or ""
    p = src.get("serdeParams") or {}
    schema = ddl(src["columns"])
    # recursiveFileLookup: data in sub-directories (UNION ALL output, list bucketing); Spark skips _ and . files as Hive does.
    reader = spark.read.option("recursiveFileLookup", "true").schema(schema)
    if serde in TEXT_SERDES:
        return read_text(spark, src, path)
    if serde == CSV_SERDE:
        header = int(src.get("tableParams", {}).get("skip.header.line.count", p.get("skip.header.line.count", "0")) or 0)
        return (
            reader.option("sep", p.get("separatorChar", ","))
            .option("quote", p.get("quoteChar", '"'))
            .option("escape", p.get("escapeChar", "\\"))
            .option("header", "true" if header == 1 else "false")
            .option("mode", "FAILFAST")
            .csv(path)
        )
    if serde in JSON_SERDES:
        return reader.option("mode", "FAILFAST").json(path)
    if serde == PARQUET_SERDE:
        return reader.parquet(path)
    if serde == ORC_SERDE:
        return reader.orc(path)
    raise SpecError(f"serde {serde!r} is not one the rewrite job reads")


def text_params(src: Dict[str, Any]) -> Dict[str, Any]:
    """LazySimpleSerDe's properties as the reader needs them; the ones it cannot honour are refused."""
    p = src.get("serdeParams") or {}
    tp = src.get("tableParams") or {}
    header = int(tp.get("skip.header.line.count", p.get("skip.header.line.count", "0")) or 0)
    if header > 1:
        raise SpecError(f"skip.header.line.count={header}: only 0 or 1 header line is supported")
    if int(tp.get("skip.footer.line.count", "0") or 0) > 0:
        raise SpecError("skip.footer.line.count is not supported")
    if p.get("escape.delim") or p.get("line.delim", "\n") != "\n":
        raise SpecError("escape.delim and a line.delim other than \\n are not supported")
    delim = p.get("field.delim", p.get("serialization.format", "\u0001"))
    if delim.isdigit():  # Hive reads a number as the byte value ("1" = ^A, "44" = ',')
        delim = chr(int(delim))
    return {"header": header, "delim": delim, "null": p.get("serialization.null.format", "\\N")}


def read_text(spark: Any, src: Dict[str, Any], path: str) -> Any:
    """LazySimpleSerDe exactly: lines split on the delimiter (no quoting), the null format → NULL, an
    empty field stays '' for strings, missing trailing fields NULL, extra ones ignored, values cast as
    Hive does (unparseable → NULL: try_cast). The header is the line at byte offset 0 of each file
    (Hadoop's TextInputFormat keys lines by offset), as Hive skips it."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    tp = text_params(src)
    cols = src["columns"]
    n = len(cols)
    conf = {"mapreduce.input.fileinputformat.input.dir.recursive": "true"}
    lines = spark.sparkContext.newAPIHadoopFile(
        path, "org.apache.hadoop.mapreduce.lib.input.TextInputFormat", "org.apache.hadoop.io.LongWritable", "org.apache.hadoop.io.Text", conf=conf
    )
    delim, null, header = tp["delim"], tp["null"], tp["header"]

    def split(kv: Any) -> List[Optional[str]]:
        parts = kv[1].split(delim)[:n]
        return [None if v == null else v for v in parts] + [None] * (n - len(parts))

    rows = (lines.filter(lambda kv: kv[0] != 0) if header == 1 else lines).map(split)
    raw = spark.createDataFrame(rows, T.StructType([T.StructField(f"_c{i}", T.StringType()) for i in range(n)]))
    return raw.select(*[F.expr(f"try_cast(_c{i} AS {c['type']})").alias(c["name"]) for i, c in enumerate(cols)])


def read_source(spark: Any, src: Dict[str, Any]) -> Any:
    from pyspark.sql import functions as F

    keys = src.get("partitionKeys") or []
    frames = []
    for loc in src["locations"]:
        df = read_location(spark, src, loc["location"])
        for k, v in zip(keys, loc.get("values") or []):
            df = df.withColumn(k["name"], F.lit(v).cast(k["type"]))
        frames.append(df)
    if not frames:
        raise SpecError("the spec lists no source location")
    out = frames[0]
    for f in frames[1:]:
        out = out.unionByName(f)
    return out


def arrow_like(dtype: Any, v: Any) -> Any:
    """A value as pyarrow's to_pylist gives it (what canonical.py was written against): timestamps with
    zone aware in UTC, maps as (key, value) pairs. Rows reach Python through Spark's pickler, not Arrow
    (Arrow UDFs need pandas, which a cluster may lack)."""
    import datetime as dt

    from pyspark.sql import types as T

    if v is None:
        return None
    if isinstance(dtype, T.TimestampType):
        return v.replace(tzinfo=dt.timezone.utc)
    if isinstance(dtype, T.MapType):
        return [(arrow_like(dtype.keyType, k), arrow_like(dtype.valueType, x)) for k, x in v.items()]
    if isinstance(dtype, T.ArrayType):
        return [arrow_like(dtype.elementType, x) for x in v]
    if isinstance(dtype, T.StructType):
        return {f.name: arrow_like(f.dataType, v[f.name]) for f in dtype.fields}
    return v


def canonical_lines(schema: Any) -> Any:
    """mapPartitions: each row → its canonical JSON line (canonical.py's definition)."""

    def run(rows: Iterator[Any]) -> Iterator[str]:
        import time as _time

        # Spark hands timestamps to Python in the worker's local zone: make that zone UTC.
        os.environ["TZ"] = "UTC"
        _time.tzset()
        fields = [(f.name, f.dataType) for f in schema.fields]
        for r in rows:
            yield canonical_json({name: normalize(arrow_like(t, r[i])) for i, (name, t) in enumerate(fields)})

    return run


def content_checksum(df: Any) -> Dict[str, Any]:
    """Rows and sha256 over "\\n".join(sorted canonical lines), streamed to the driver in sorted order."""
    lines = df.rdd.mapPartitions(canonical_lines(df.schema)).sortBy(lambda x: x.encode("utf-8"))
    h = hashlib.sha256()
    rows = 0
    for line in lines.toLocalIterator(prefetchPartitions=True):
        if rows > 0:
            h.update(b"\n")
        h.update(line.encode("utf-8"))
        rows += 1
    return {"rows": rows, "checksum": h.hexdigest()}


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
    spark.sparkContext.addPyFile(os.path.join(HERE, "canonical.py"))
    t = spec["target"]
    ident = f"{spec['catalog']['name']}.{quote(t['namespace'])}.{quote(t['name'])}"
    emit("started", jobId=spec["jobId"], target=ident)
    state = target_state(spark, ident, spec["jobId"])
    if state is not None and state != "ours":
        return {"status": "target-taken", "marker": state, "target": ident}
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {spec['catalog']['name']}.{quote(t['namespace'])}")
    src = read_source(spark, spec["source"])
    phases: Dict[str, float] = {}
    if state is None:
        t1 = time.monotonic()
        emit("writing")
        write_target(spark, src, spec, ident)
        phases["write"] = round(time.monotonic() - t1, 2)
        emit("written", seconds=phases["write"])
    else:
        emit("resumed", detail="the target carries this job's marker: committed by an earlier run")
    t2 = time.monotonic()
    source = content_checksum(src)
    emit("source-checked", rows=source["rows"])
    target = content_checksum(spark.table(ident))
    phases["checksums"] = round(time.monotonic() - t2, 2)
    emit("target-checked", rows=target["rows"])
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


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spec", required=True)
    p.add_argument("--result", required=True)
    a = p.parse_args(argv)
    with open(a.spec, encoding="utf-8") as f:
        spec = json.load(f)
    try:
        result = run(spec)
    except SpecError as e:
        result = {"status": "bad-spec", "error": str(e)}
    tmp = a.result + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f)
    os.replace(tmp, a.result)
    emit("done", status=result["status"])
    return {"bad-spec": 2, "target-taken": 3}.get(result["status"], 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
