#!/usr/bin/env python3
"""Read a seeded table's data files back from S3 with pyarrow and print its canonical checksum.

    read_files.py --manifest FILE --table db.name --s3-endpoint URL

Reads exactly the files the manifest lists (Parquet or ORC; INT96 timestamps coerced to
microseconds), adds each partition's values typed as the partition keys, fills table columns a
drifted partition lacks with null, and prints {"table", "rows", "checksum"} computed with
jobs/canonical.py, so it must equal the manifest's checksum. S3 keys from AWS_*. Dev/test
tooling; run it with the verifier venv's python.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "verifier"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import canonical_rows, checksum  # noqa: E402
from generate import arrow_schema, typed_partition_value  # noqa: E402

import pyarrow as pa  # noqa: E402
import pyarrow.fs as pafs  # noqa: E402
import pyarrow.orc as orc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--manifest", required=True)
    p.add_argument("--table", required=True)
    p.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
    a = p.parse_args(argv)
    with open(a.manifest, encoding="utf-8") as f:
        m = json.load(f)
    db, _, name = a.table.partition(".")
    t = next(x for x in m["tables"] if x["db"] == db and x["name"] == name)
    scheme, _, host = a.s3_endpoint.partition("://")
    fs = pafs.S3FileSystem(endpoint_override=host, scheme=scheme, access_key=os.environ["AWS_ACCESS_KEY_ID"],
                           secret_key=os.environ["AWS_SECRET_ACCESS_KEY"], region=os.environ.get("AWS_REGION", "us-east-1"))
    col_names = [c["name"] for c in t["columns"]]
    parts = {pp["name"]: pp for pp in t["partitions"]}
    rows: List[Dict[str, Any]] = []
    for f in t["files"]:
        if os.path.basename(f["key"]).startswith("_"):
            continue  # Hive side files (_orc_acid_version), not data
        path = f"{m['bucket']}/{f['key']}"
        if t["format"] == "orc":
            with fs.open_input_file(path) as h:
                data = orc.read_table(h)
            if "row" in data.column_names and "originalTransaction" in data.column_names:  # ACID row format
                data = pa.Table.from_pylist([r["row"] for r in data.to_pylist()])
        else:
            data = pq.read_table(path, filesystem=fs, coerce_int96_timestamp_unit="us")
        extra: Dict[str, Any] = {}
        if "partition" in f:
            pp = parts[f["partition"]]
            extra = {k["name"]: typed_partition_value(k["type"], v) for k, v in zip(t["partitionKeys"], pp["values"])}
        for r in data.to_pylist():
            rows.append({**{c: r.get(c) for c in col_names}, **extra})
    spec = [(c["name"], c["type"]) for c in t["columns"] + t["partitionKeys"]]
    canon = canonical_rows(pa.Table.from_pylist(rows, schema=arrow_schema(spec)))
    sys.stdout.write(json.dumps({"table": a.table, "rows": len(canon), "checksum": checksum(canon)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
