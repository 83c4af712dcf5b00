#!/usr/bin/env python3
"""Write a few Hive-layout Parquet files with pyarrow and print ONE JSON line describing them.

    parquet_files.py OUT_DIR

Files hold `id` (int64), `name` (string), `amount` (decimal(10,2)); the partition column `region`
lives only in the path (Hive layout), so a reader must take it from the manifest. Output:
{"files": [{"name", "region", "rows"}], "rows", "checksum"} where rows/checksum are of the table a
reader must return (file rows plus `region`), computed with jobs/canonical.py.
Runs in the verifier venv (HIM_VERIFIER_PYTHON). Test tooling.
"""
from __future__ import annotations

import decimal
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "dev", "verifier"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import canonical_rows, checksum  # noqa: E402

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string()), pa.field("amount", pa.decimal128(10, 2))])
FILES = [("region=eu/part-0.parquet", "eu", 0, 7), ("region=us/part-0.parquet", "us", 7, 5), ("region=us/part-1.parquet", "us", 12, 4)]


def rows(start: int, n: int):
    return [
        {"id": i, "name": None if i % 4 == 3 else f"n-{i}-ü", "amount": None if i % 5 == 2 else decimal.Decimal(i * 131 - 700).scaleb(-2)}
        for i in range(start, start + n)
    ]


def main(out_dir: str) -> int:
    files, everything = [], []
    for name, region, start, n in FILES:
        data = rows(start, n)
        path = os.path.join(out_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        pq.write_table(pa.Table.from_pylist(data, schema=SCHEMA), path)
        files.append({"name": name, "region": region, "rows": n})
        everything += [dict(r, region=region) for r in data]
    full = pa.Table.from_pylist(everything, schema=SCHEMA.append(pa.field("region", pa.string())))
    canon = canonical_rows(full)
    sys.stdout.write(json.dumps({"files": files, "rows": len(canon), "checksum": checksum(canon)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
