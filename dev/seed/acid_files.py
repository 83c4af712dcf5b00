"""Parquet files for the insert-only ACID seed (dev/seed/acid.ts): one file per request line.

Usage: acid_files.py SPEC.json OUT_DIR. SPEC is a list of {"file": relative path, "start": n,
"rows": k}; the rows are deterministic (id = start..start+k-1, name = "r<id>", amount = id * 1.5),
so a test recomputes them from the spec alone. Prints one JSON line per file (path, size, rows).
Dev tooling.
"""
from __future__ import annotations

import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.float64())])


def rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({"id": ids, "name": [f"r{i}" for i in ids], "amount": [i * 1.5 for i in ids]}, schema=SCHEMA)


def main() -> None:
    spec_file, out = sys.argv[1], sys.argv[2]
    with open(spec_file, encoding="utf-8") as f:
        spec = json.load(f)
    for s in spec:
        path = os.path.join(out, s["file"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # Fixed writer settings: the same spec gives the same bytes.
        pq.write_table(rows(s["start"], s["rows"]), path, compression="snappy", write_statistics=True)
        print(json.dumps({"file": s["file"], "size": os.path.getsize(path), "rows": s["rows"]}))


if __name__ == "__main__":
    main()
