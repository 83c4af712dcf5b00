#!/usr/bin/env python3
"""The left-behind warehouse's Python half (dev/seed/lb-warehouse.ts drives it):

1. writes the nested-evolution table `nested_events`: Parquet, partitioned by `dt`; its two OLD
   partitions' files (and HMS partition schema) have `s struct<a:int>`, the table and its newest
   partition `s struct<a:int,b:string>` (old files read `b` as NULL);
2. computes the canonical content checksum (dev/verifier/canonical.py) of every table the
   warehouse migrates from the rows the seed modules write: the views seed's tables (views.py's
   row functions), the insert-only ACID tables' COMMITTED writes (acid_files.py's rows; the ACID
   manifest says which writes committed) and the nested table (old rows with s.b = None).

    lb_warehouse.py --out DIR --db lb_warehouse --bucket hive --acid ACID_MANIFEST.json

Writes the nested table's files under OUT/files/<key> and prints one JSON object: {"nested": SeedTable,
"checksums": {name: {"rows", "checksum"}}}. Deterministic. Dev tooling.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
from typing import Any, Dict, List

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "verifier"))
from acid_files import rows as acid_rows  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import canonical_rows, checksum  # noqa: E402
from generate import FORMATS, OWNER, cols  # noqa: E402
from views import customers_rows, events_rows, orders_rows, put  # noqa: E402

OLD_S = pa.struct([("a", pa.int32())])
NEW_S = pa.struct([("a", pa.int32()), ("b", pa.string())])
OLD_COLS = [("id", "int"), ("s", "struct<a:int>")]
NEW_COLS = [("id", "int"), ("s", "struct<a:int,b:string>")]
NESTED_PARTS = [("2024-01-01", "old"), ("2024-01-02", "old"), ("2024-01-03", "new")]


def summary(rows: List[Dict[str, Any]], schema: pa.Schema) -> Dict[str, Any]:
    canon = canonical_rows(pa.Table.from_pylist(rows, schema=schema))
    return {"rows": len(canon), "checksum": checksum(canon)}


def nested_table(out: str, db: str, bucket: str, root: str) -> Dict[str, Any]:
    name = "nested_events"
    location = f"s3a://{bucket}/{root}/{name}"
    storage = dict(FORMATS["parquet"])
    storage["serdeParams"] = {"serialization.format": "1"}
    parts: List[Dict[str, Any]] = []
    files: List[Dict[str, Any]] = []
    expected: List[Dict[str, Any]] = []
    for p, (dt, era) in enumerate(NESTED_PARTS):
        old = era == "old"
        rows = [{"id": p * 100 + i, "s": {"a": p * 100 + i} if old else {"a": p * 100 + i, "b": f"b{i}"}} for i in range(8)]
        rows[3]["s"] = None  # a null struct, too
        schema = pa.schema([("id", pa.int32()), ("s", OLD_S if old else NEW_S)])
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), buf, compression="snappy", store_schema=False)
        f = put(out, bucket, f"{root}/{name}/dt={dt}/000000_0", buf.getvalue(), len(rows))
        f["partition"] = f"dt={dt}"
        files.append(f)
        parts.append({"values": [dt], "hmsValues": [dt], "name": f"dt={dt}", "location": f"{location}/dt={dt}",
                      "columns": cols(OLD_COLS) if old else None, "files": [f], "rows": len(rows)})
        # What Hive (and Iceberg's name mapping) reads: the new field of an old file is NULL.
        expected += [{"id": r["id"], "s": None if r["s"] is None else {"a": r["s"]["a"], "b": r["s"].get("b")}, "dt": dt} for r in rows]
    schema = pa.schema([("id", pa.int32()), ("s", NEW_S), ("dt", pa.string())])
    s = summary(expected, schema)
    return {
        "db": db, "name": name, "kind": "external", "tableType": "EXTERNAL_TABLE", "format": "parquet", "owner": OWNER,
        "columns": cols(NEW_COLS), "partitionKeys": cols([("dt", "string")]), "location": location,
        "params": {"EXTERNAL": "TRUE"}, "storage": storage, "numBuckets": -1, "bucketCols": [], "sortCols": [], "skew": None,
        "viewOriginalText": None, "viewExpandedText": None, "partitions": parts, "files": files,
        "rows": s["rows"], "checksum": s["checksum"], "hints": ["metadata-only", "nested-evolution"],
    }


def acid_checksums(manifest: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    out: Dict[str, Dict[str, Any]] = {}
    for t in manifest["tables"]:
        partitioned = len(t["partitions"]) > 0
        rows: List[Dict[str, Any]] = []
        for w in t["writes"]:
            if w["state"] != "committed":
                continue
            for r in w["rows"]:
                extra = {"day": r["partition"]} if partitioned else {}
                rows += [{**x, **extra} for x in acid_rows(r["start"], r["count"]).to_pylist()]
        fields = [("id", pa.int64()), ("name", pa.string()), ("amount", pa.float64())] + ([("day", pa.string())] if partitioned else [])
        out[t["name"]] = summary(rows, pa.schema(fields))
    return out


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--db", required=True)
    p.add_argument("--bucket", default="hive")
    p.add_argument("--root", required=True, help="S3 key prefix of the nested table")
    p.add_argument("--acid", required=True, help="the insert-only ACID seed's manifest (AcidSeedManifest JSON)")
    a = p.parse_args(argv)
    with open(a.acid, encoding="utf-8") as f:
        acid = json.load(f)
    nested = nested_table(a.out, a.db, a.bucket, a.root)
    sums = {
        "orders": summary(orders_rows(), pa.schema([("order_id", pa.int64()), ("customer", pa.string()), ("amount", pa.float64()),
                                                    ("region", pa.string())])),
        "customers": summary(customers_rows(), pa.schema([("customer", pa.string()), ("country", pa.string())])),
        "raw_events": summary(events_rows(), pa.schema([("id", pa.int32()), ("kind", pa.string())])),
        "nested_events": {"rows": nested["rows"], "checksum": nested["checksum"]},
        **acid_checksums(acid),
    }
    sys.stdout.write(json.dumps({"nested": nested, "checksums": sums}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
