#!/usr/bin/env python3
"""The nested schema evolution warehouse (`dev/seed/main.ts --left-behind nested`):
database lb_nested, Parquet tables partitioned by `p`, whose old partition (p=1) keeps an older
nested schema in HMS and in its files while p=2 has the table's:

  struct_added       s struct<a:int>                  → struct<a:int,b:string>
  struct_reordered   s struct<b:string,a:int>         → struct<a:int,b:string>
  struct_promoted    s struct<n:int,f:float>          → struct<n:bigint,f:double>
  list_struct_added  items array<struct<sku:string>>  → array<struct<sku:string,qty:int>>
  map_struct_added   attrs map<string,struct<v:int>>  → map<string,struct<v:int,w:string>>
  case_variant       files spell s.A and items[].SKU (HMS says a, sku: no drift in HMS, only in footers)
  extra_footer       the old file also has a column `legacy` Hive never declared (Hive ignores it)
  incompatible       s struct<a:int,b:string>         → struct<a:int,b:int>  (must stay refused)

Each table's Hive content checksum (canonical.py) is computed from the rows written, read the way
Hive reads them through the table schema: a field an old file lacks is NULL, promoted values widen,
names match case-insensitively, undeclared file columns are not read. Writes OUT/files/<key> and
OUT/tables.json (SeedTable entries, dev/seed/manifest.ts). Deterministic. Dev tooling.

    lb_nested.py --out DIR --db lb_nested --bucket hive
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402
from generate import Col, Warehouse  # noqa: E402

Row = Dict[str, Any]
PRIMITIVE = {"int": pa.int32(), "bigint": pa.int64(), "float": pa.float32(), "double": pa.float64(), "string": pa.string()}


def split_top(s: str) -> List[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "<"
        depth -= ch == ">"
        cur += ch
    return out + [cur]


def arrow_of(t: str) -> pa.DataType:
    """The Arrow type of the Hive types this seed uses (field names keep their case: old writers' spellings)."""
    if t in PRIMITIVE:
        return PRIMITIVE[t]
    if t.startswith("struct<"):
        return pa.struct([(f.split(":", 1)[0], arrow_of(f.split(":", 1)[1])) for f in split_top(t[7:-1])])
    if t.startswith("array<"):
        return pa.list_(arrow_of(t[6:-1]))
    if t.startswith("map<"):
        k, v = split_top(t[4:-1])
        return pa.map_(arrow_of(k), arrow_of(v))
    raise ValueError(f"unsupported type {t}")


def register(spec: Sequence[Col]) -> None:
    """generate.arrow_schema (used by Warehouse.finish) knows only its own types: teach it ours."""
    for _, t in spec:
        generate.ARROW.setdefault(t, arrow_of(t))


def file_bytes(rows: List[Row], spec: Sequence[Col]) -> bytes:
    schema = pa.schema([pa.field(n, arrow_of(t)) for n, t in spec])
    return Warehouse.parquet(pa.Table.from_pylist(rows, schema=schema))


def evolve(w: Warehouse, db: str, name: str, table: List[Col], old: List[Col], old_rows: List[Row], new_rows: List[Row],
           as_hive: Callable[[Row], Row], hints: List[str], hms_old: Optional[List[Col]] = None) -> None:
    """p=1: `old_rows` written with `old` (HMS partition columns `hms_old`, default `old`); p=2: `new_rows` with the table's."""
    register(table)
    t = w.add(db, name, "external", "parquet", table, partition_keys=[("p", "int")], hints=hints)
    declared = hms_old if hms_old is not None else old
    p1 = w.partition(t, ["1"], columns=None if declared == table else declared)
    w.part_file(t, p1, "000000_0", file_bytes(old_rows, old), len(old_rows))
    p2 = w.partition(t, ["2"])
    w.part_file(t, p2, "000000_0", file_bytes(new_rows, table), len(new_rows))
    w.finish(t, [{**as_hive(r), "p": 1} for r in old_rows] + [{**r, "p": 2} for r in new_rows])


def build(w: Warehouse, db: str) -> None:
    S_AB = "struct<a:int,b:string>"
    ab_new = [{"id": 10 + i, "s": None if i == 3 else {"a": 100 + i, "b": f"new-{i}"}} for i in range(5)]
    evolve(w, db, "struct_added", [("id", "int"), ("s", S_AB)], [("id", "int"), ("s", "struct<a:int>")],
           [{"id": i, "s": None if i == 2 else {"a": i}} for i in range(4)], ab_new,
           lambda r: {"id": r["id"], "s": None if r["s"] is None else {"a": r["s"]["a"], "b": None}}, ["metadata-only", "nested-evolution"])
    evolve(w, db, "struct_reordered", [("id", "int"), ("s", S_AB)], [("id", "int"), ("s", "struct<b:string,a:int>")],
           [{"id": i, "s": {"b": f"old-{i}", "a": i}} for i in range(4)], ab_new,
           lambda r: {"id": r["id"], "s": {"a": r["s"]["a"], "b": r["s"]["b"]}}, ["metadata-only", "nested-evolution"])
    evolve(w, db, "struct_promoted", [("id", "int"), ("s", "struct<n:bigint,f:double>")], [("id", "int"), ("s", "struct<n:int,f:float>")],
           [{"id": i, "s": {"n": 2**31 - 1 - i, "f": i + 0.25}} for i in range(4)],
           [{"id": 10 + i, "s": {"n": 2**40 + i, "f": i * 1.5}} for i in range(4)],
           lambda r: r, ["metadata-only", "nested-evolution"])
    evolve(w, db, "list_struct_added", [("id", "int"), ("items", "array<struct<sku:string,qty:int>>")],
           [("id", "int"), ("items", "array<struct<sku:string>>")],
           [{"id": i, "items": [{"sku": f"s{i}-{j}"} for j in range(i % 3)]} for i in range(4)],
           [{"id": 10 + i, "items": [{"sku": f"n{i}-{j}", "qty": j} for j in range(1 + i % 2)]} for i in range(4)],
           lambda r: {"id": r["id"], "items": [{"sku": e["sku"], "qty": None} for e in r["items"]]}, ["metadata-only", "nested-evolution"])
    evolve(w, db, "map_struct_added", [("id", "int"), ("attrs", "map<string,struct<v:int,w:string>>")],
           [("id", "int"), ("attrs", "map<string,struct<v:int>>")],
           [{"id": i, "attrs": [(f"k{j}", {"v": i * 10 + j}) for j in range(1 + i % 2)]} for i in range(4)],
           [{"id": 10 + i, "attrs": [(f"k{j}", {"v": j, "w": f"w{j}"}) for j in range(2)]} for i in range(4)],
           lambda r: {"id": r["id"], "attrs": [(k, {"v": v["v"], "w": None}) for k, v in r["attrs"]]}, ["metadata-only", "nested-evolution"])
    # Old files spell nested names in another case; HMS (lower-cases every name) shows no drift at all.
    case_table: List[Col] = [("id", "int"), ("s", S_AB), ("items", "array<struct<sku:string,qty:int>>")]
    evolve(w, db, "case_variant", case_table, [("id", "int"), ("s", "struct<A:int,b:string>"), ("items", "array<struct<SKU:string,qty:int>>")],
           [{"id": i, "s": {"A": i, "b": f"old-{i}"}, "items": [{"SKU": f"s{i}", "qty": i}]} for i in range(4)],
           [{"id": 10 + i, "s": {"a": 100 + i, "b": "new"}, "items": [{"sku": f"n{i}", "qty": 1}]} for i in range(4)],
           lambda r: {"id": r["id"], "s": {"a": r["s"]["A"], "b": r["s"]["b"]}, "items": [{"sku": e["SKU"], "qty": e["qty"]} for e in r["items"]]},
           ["metadata-only", "nested-case-variant"], hms_old=case_table)
    # A column Hive never declared in the old file (dropped from the table long ago): Hive skips it.
    extra_table: List[Col] = [("id", "int"), ("s", "struct<a:int>")]
    evolve(w, db, "extra_footer", extra_table, [("id", "int"), ("s", "struct<a:int>"), ("legacy", "string")],
           [{"id": i, "s": {"a": i}, "legacy": f"gone-{i}"} for i in range(3)],
           [{"id": 10 + i, "s": {"a": i}} for i in range(3)],
           lambda r: {"id": r["id"], "s": r["s"]}, ["metadata-only", "footer-column-undeclared"], hms_old=extra_table)
    # string → int inside a struct: no reader can read "x" as an int; stays refused.
    register([("s", "struct<a:int,b:int>")])
    t = w.add(db, "incompatible", "external", "parquet", [("id", "int"), ("s", "struct<a:int,b:int>")], partition_keys=[("p", "int")],
              hints=["rewrite-required", "partition-type-incompatible"])
    old: List[Col] = [("id", "int"), ("s", S_AB)]
    p1 = w.partition(t, ["1"], columns=old)
    w.part_file(t, p1, "000000_0", file_bytes([{"id": 1, "s": {"a": 1, "b": "x"}}], old), 1)
    p2 = w.partition(t, ["2"])
    w.part_file(t, p2, "000000_0", file_bytes([{"id": 2, "s": {"a": 2, "b": 2}}], [("id", "int"), ("s", "struct<a:int,b:int>")]), 1)
    t["checksum"], t["rows"] = None, 2  # Hive cannot read p=1 as the table says: no content to compare


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--db", default="lb_nested")
    p.add_argument("--bucket", default="hive")
    a = p.parse_args(argv)
    w = Warehouse(a.out, 42, a.db, a.bucket)
    w.root_key = "seed-nested"
    w.databases = [a.db]
    build(w, a.db)
    out = {
        "database": {"name": a.db, "location": w.uri(f"{w.root_key}/{a.db}.db")},
        "bucket": a.bucket,
        "rootKey": w.root_key,
        "tables": w.tables,
    }
    with open(os.path.join(a.out, "tables.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(out, sort_keys=True, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
