#!/usr/bin/env python3
"""The reader-matrix warehouse: ONE small Hive table per encoding key of core/readers/encodings.ts,
each in two files with disjoint value ranges (so a predicate's answer depends on the file bounds the
migration writes), NULLs and edge values, declared in HMS with the Hive type Hive would use.

    generate_matrix.py --out DIR --db DB --bucket BUCKET [--keys k1,k2]

Writes OUT/files/<key> and OUT/tables.json: {database, bucket, rootKey, tables: [SeedTable + "encoding",
"predicates": [{column, op, literal, type, expected}]]}; each table's checksum is canonical.py's over
the values Hive reads. Every file is checked against its key from its own footer (codec, physical and
logical types, page type, encodings, schema names); a mismatch fails the run. Layouts pyarrow no longer
writes (converted-type-only timestamps, BINARY decimals, ENUM/JSON/BSON, legacy lists and maps) are
made by rewriting the footer (thrift_compact.py): data pages carry no names or annotations.
Deterministic. Dev tooling.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "seed"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "jobs"))
from canonical import checksum  # noqa: E402
from generate import Warehouse  # noqa: E402
import matrix_formats  # noqa: E402


def build(w: Warehouse, db: str, only: List[str]) -> List[Dict[str, Any]]:
    out = []
    for case in matrix_formats.CASES:
        if only and case.key not in only:
            continue
        name = case.key.replace(".", "_").replace("-", "_")
        params: Dict[str, str] = dict(case.params)
        t = w.add(db, name, "external", case.fmt, case.columns, params=params, hints=["metadata-only"])
        rows: List[Dict[str, Any]] = []
        for i, chunk in enumerate(case.files):
            data = case.write(chunk, i)
            case.verify(data)
            t["files"].append(w.put(f"{w.table_key(db, name)}/00000{i}_0", data, len(chunk)))
            rows += chunk
        expected = [case.hive_row(r) for r in rows]
        t["rows"] = len(expected)
        canon = canonical_rows_of(expected)
        t["checksum"] = checksum(canon)
        # The rows Hive reads, canonical and sorted: the test names the first value a reader got wrong.
        t["canonical"] = sorted(canon, key=lambda r: json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
        t["encoding"] = case.key
        t["predicates"] = [p.to_json(expected) for p in case.predicates]
        out.append(t)
    return out


def canonical_rows_of(rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    from canonical import normalize

    return [{k: normalize(v) for k, v in r.items()} for r in rows]


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--db", required=True)
    p.add_argument("--bucket", default="hive")
    p.add_argument("--keys", default="")
    a = p.parse_args(argv)
    w = Warehouse(a.out, 42, a.db, a.bucket)
    w.root_key = "seed-readers"
    w.databases = [a.db]
    tables = build(w, a.db, [k for k in a.keys.split(",") if k])
    out = {
        "database": {"name": a.db, "location": w.uri(f"{w.root_key}/{a.db}.db")},
        "bucket": a.bucket,
        "rootKey": w.root_key,
        "tables": tables,
    }
    with open(os.path.join(a.out, "tables.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(out, sort_keys=True, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
