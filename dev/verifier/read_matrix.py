#!/usr/bin/env python3
"""The reader matrix's reads (test/e2e/reader-matrix.test.ts), for many tables at once and in one
process: each table's full read (row count, canonical checksum and a sample, as read_tables.py) and
the row counts of filtered reads, in PyIceberg (row_filter), Spark SQL (ONE session for everything)
and Trino SQL (one client):

    read_matrix.py --engines pyiceberg,spark,trino --spec FILE [--sample N] [--catalog-uri URI] [--s3-endpoint URL] [--trino-uri URL]

FILE: [{"table": "ns.t", "predicates": [{"column", "op": ">"|"<"|"="|"is_null", "literal", "type"}]}]
where `type` is the column's Hive type and `literal` its value as text. Prints one JSON line per
(engine, table): {"engine", "table", "kind": "read", "rows", "checksum", "sample"} or {..., "error"},
and per (engine, table, predicate index): {"engine", "table", "kind": "count", "index", "count"} or
{..., "error"}. A filter
is written the way a user of that engine writes it (typed literals: TIMESTAMP_NTZ/DATE/CAST in Spark,
TIMESTAMP/DATE/CAST in Trino, Python values bound by PyIceberg), so the engine prunes files on the
table's column bounds before it filters rows. Dev/test tooling; shares the catalog and session setup
of read_table.py.
"""
from __future__ import annotations

import argparse
import datetime as dt
import decimal
import json
import os
import re
import shutil
import sys
import tempfile
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import summary  # noqa: E402
from read_table import SPARK_CATALOG, open_spark, pyiceberg_catalog, split_table, stop_session  # noqa: E402
from spark_client import delegate  # noqa: E402
from trino_client import Rows, query as trino_query  # noqa: E402


def emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def quote(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def sql_literal(p: Dict[str, Any], engine: str) -> str:
    t, lit = p["type"], p["literal"]
    if t == "timestamp":
        return f"TIMESTAMP_NTZ {quote(lit)}" if engine == "spark" else f"TIMESTAMP {quote(lit)}"
    if t == "timestamp with local time zone":  # an instant: the literal is UTC
        return f"TIMESTAMP {quote(lit)}" if engine == "spark" else f"TIMESTAMP {quote(lit + ' UTC')}"
    if t == "date":
        return f"DATE {quote(lit)}"
    if t.startswith("decimal"):
        return f"CAST({quote(lit)} AS {t.upper()})"
    if t in ("int", "bigint", "smallint", "tinyint"):
        return str(int(lit))
    if t == "double":
        return f"CAST({quote(lit)} AS DOUBLE)"
    return quote(lit)


def sql_where(p: Dict[str, Any], engine: str) -> str:
    col = f'"{p["column"]}"' if engine == "trino" else f'`{p["column"]}`'
    if p["op"] == "is_null":
        return f"{col} IS NULL"
    return f"{col} {p['op']} {sql_literal(p, engine)}"


def py_value(p: Dict[str, Any]) -> Any:
    t, lit = p["type"], p["literal"]
    if t == "timestamp":
        return dt.datetime.fromisoformat(lit).isoformat()
    if t == "timestamp with local time zone":
        return dt.datetime.fromisoformat(lit).replace(tzinfo=dt.timezone.utc).isoformat()
    if t.startswith("decimal"):  # at the column's scale: PyIceberg binds a decimal literal of that scale only
        scale = int(t.rstrip(")").split(",")[1])
        return decimal.Decimal(lit).quantize(decimal.Decimal(1).scaleb(-scale))
    if t in ("int", "bigint", "smallint", "tinyint"):
        return int(lit)
    if t == "double":
        return float(lit)
    return lit


def py_filter(p: Dict[str, Any]) -> Any:
    from pyiceberg.expressions import EqualTo, GreaterThan, IsNull, LessThan

    if p["op"] == "is_null":
        return IsNull(p["column"])
    return {">": GreaterThan, "<": LessThan, "=": EqualTo}[p["op"]](p["column"], py_value(p))


def first_line(e: Exception) -> str:
    """The error's first line; for a Py4J error the Java exception's (the Python line names only the call)."""
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    if type(e).__name__ == "Py4JJavaError":
        java = [x for x in lines[1:] if re.match(r"^(Caused by: )?[\w.$]+(Exception|Error)\b", x)]
        if java:
            return java[-1][:500] if java[-1].startswith("Caused by") else java[0][:500]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:500]


def read_pyiceberg(args: argparse.Namespace, spec: List[Dict[str, Any]]) -> None:
    cat = pyiceberg_catalog(args.catalog_uri, args.s3_endpoint)
    for t in spec:
        try:
            tbl = cat.load_table(t["table"])
            emit({**summary("pyiceberg", tbl.scan().to_arrow(), args.sample), "table": t["table"], "kind": "read"})
        except Exception as e:  # report and go on: one bad table must not hide the others
            emit({"engine": "pyiceberg", "table": t["table"], "kind": "read", "error": first_line(e)})
            continue
        for i, p in enumerate(t["predicates"]):
            try:
                emit({"engine": "pyiceberg", "table": t["table"], "kind": "count", "index": i, "count": tbl.scan(row_filter=py_filter(p)).to_arrow().num_rows})
            except Exception as e:
                emit({"engine": "pyiceberg", "table": t["table"], "kind": "count", "index": i, "error": first_line(e)})


def read_trino(args: argparse.Namespace, spec: List[Dict[str, Any]]) -> None:
    for t in spec:
        ns, name = split_table(t["table"])
        ref = f'iceberg."{ns}"."{name}"'
        try:
            cols, rows = trino_query(args.trino_uri, f"SELECT * FROM {ref}")
            emit({**summary("trino", Rows(cols, rows), args.sample), "table": t["table"], "kind": "read"})
        except Exception as e:
            emit({"engine": "trino", "table": t["table"], "kind": "read", "error": first_line(e)})
        for i, p in enumerate(t["predicates"]):
            try:
                _, rows = trino_query(args.trino_uri, f"SELECT count(*) FROM {ref} WHERE {sql_where(p, 'trino')}")
                emit({"engine": "trino", "table": t["table"], "kind": "count", "index": i, "count": int(next(iter(rows[0].values())))})
            except Exception as e:
                emit({"engine": "trino", "table": t["table"], "kind": "count", "index": i, "error": first_line(e)})


def read_spark(args: argparse.Namespace, spec: List[Dict[str, Any]]) -> None:
    scratch = tempfile.mkdtemp(prefix="him-spark-")
    spark, catalog = open_spark(args, scratch, SPARK_CATALOG, {"type": "rest", "uri": args.catalog_uri}, fixed_name=False)
    try:
        for t in spec:
            ns, name = split_table(t["table"])
            ref = f"`{catalog}`.`{ns}`.`{name}`"
            try:
                emit({**summary("spark", spark.table(ref).toArrow(), args.sample), "table": t["table"], "kind": "read"})
            except Exception as e:
                emit({"engine": "spark", "table": t["table"], "kind": "read", "error": first_line(e)})
            for i, p in enumerate(t["predicates"]):
                try:
                    n = spark.sql(f"SELECT count(*) FROM {ref} WHERE {sql_where(p, 'spark')}").collect()[0][0]
                    emit({"engine": "spark", "table": t["table"], "kind": "count", "index": i, "count": int(n)})
                except Exception as e:
                    emit({"engine": "spark", "table": t["table"], "kind": "count", "index": i, "error": first_line(e)})
    finally:
        stop_session(spark)
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engines", default="pyiceberg,spark,trino")
    ap.add_argument("--spec", required=True)
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--catalog-uri", default=os.environ.get("HIM_ICEBERG_REST_URI"))
    ap.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
    ap.add_argument("--jars-dir", default=os.environ.get("HIM_SPARK_JARS_DIR"))
    ap.add_argument("--trino-uri", default=os.environ.get("HIM_TRINO_URI"))
    args = ap.parse_args(argv)
    args.catalog_type, args.warehouse = "rest", None
    with open(args.spec, encoding="utf-8") as f:
        spec = json.load(f)
    engines = [e for e in args.engines.split(",") if e]
    if "trino" in engines and not args.trino_uri:
        ap.error("--engines trino needs --trino-uri (or HIM_TRINO_URI)")
    if "spark" in engines:
        rc = delegate("read_matrix", argv)
        if rc is not None:
            return rc
    for engine, fn in (("pyiceberg", read_pyiceberg), ("trino", read_trino), ("spark", read_spark)):
        if engine in engines:
            fn(args, spec)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
