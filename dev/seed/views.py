#!/usr/bin/env python3
"""The views warehouse: two Parquet base tables, a CSV table, and three Hive views —
one over a table, one over that view joined with the other table, one over the CSV table (which does
not migrate). Writes the files under OUT/files/<key> and OUT/tables.json (SeedTable entries,
dev/seed/manifest.ts). Deterministic. Dev tooling.

    views.py --out DIR --db lb_views --bucket hive
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import sys
from typing import Any, Dict, List, Sequence, Tuple

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import FORMATS, OWNER, arrow_schema, cols  # noqa: E402

Col = Tuple[str, str]
ORDERS: List[Col] = [("order_id", "bigint"), ("customer", "string"), ("amount", "double"), ("region", "string")]
CUSTOMERS: List[Col] = [("customer", "string"), ("country", "string")]
EVENTS: List[Col] = [("id", "int"), ("kind", "string")]


def table(db: str, name: str, fmt: str, columns: Sequence[Col], location: Any, **kw: Any) -> Dict[str, Any]:
    storage = dict(FORMATS[fmt])
    storage["serdeParams"] = {} if fmt == "view" else {"serialization.format": "1", **({"field.delim": ","} if fmt == "text" else {})}
    view = fmt == "view"
    return {
        "db": db, "name": name, "kind": "view" if view else "external",
        "tableType": "VIRTUAL_VIEW" if view else "EXTERNAL_TABLE", "format": fmt, "owner": OWNER,
        "columns": cols(columns), "partitionKeys": [], "location": location,
        "params": {} if view else {"EXTERNAL": "TRUE"}, "storage": storage, "numBuckets": -1, "bucketCols": [],
        "sortCols": [], "skew": None, "viewOriginalText": kw.get("original"), "viewExpandedText": kw.get("expanded"),
        "partitions": [], "files": [], "rows": kw.get("rows", 0), "checksum": None, "hints": kw.get("hints", []),
    }


def put(out: str, bucket: str, key: str, data: bytes, rows: int) -> Dict[str, Any]:
    path = os.path.join(out, "files", key)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return {"key": key, "location": f"s3a://{bucket}/{key}", "size": len(data), "rows": rows, "sha256": hashlib.sha256(data).hexdigest()}


def parquet(rows: List[Dict[str, Any]], spec: Sequence[Col]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=arrow_schema(spec)), buf, compression="snappy", store_schema=False)
    return buf.getvalue()


# The base tables' rows (also imported by lb_warehouse.py, which computes their content checksums).
def orders_rows() -> List[Dict[str, Any]]:
    return [{"order_id": i, "customer": f"c{i % 7}", "amount": round(i * 12.5, 2), "region": ["eu", "us", "apac"][i % 3]} for i in range(1, 61)]


def customers_rows() -> List[Dict[str, Any]]:
    return [{"customer": f"c{i}", "country": ["fr", "de", "us", "jp"][i % 4]} for i in range(7)]


def events_rows() -> List[Dict[str, Any]]:
    return [{"id": i, "kind": ["open", "close"][i % 2]} for i in range(10)]


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--db", required=True)
    p.add_argument("--bucket", default="hive")
    a = p.parse_args(argv)
    db, root = a.db, f"seed-views/{a.db}"
    uri = lambda k: f"s3a://{a.bucket}/{k}"  # noqa: E731
    orders, customers = orders_rows(), customers_rows()
    t_orders = table(db, "orders", "parquet", ORDERS, uri(f"{root}/orders"), rows=len(orders), hints=["metadata-only"])
    t_orders["files"].append(put(a.out, a.bucket, f"{root}/orders/000000_0", parquet(orders, ORDERS), len(orders)))
    t_cust = table(db, "customers", "parquet", CUSTOMERS, uri(f"{root}/customers"), rows=len(customers), hints=["metadata-only"])
    t_cust["files"].append(put(a.out, a.bucket, f"{root}/customers/000000_0", parquet(customers, CUSTOMERS), len(customers)))
    csv = "".join(f"{r['id']},{r['kind']}\n" for r in events_rows()).encode()
    t_events = table(db, "raw_events", "text", EVENTS, uri(f"{root}/raw_events"), rows=10, hints=["rewrite-required"])
    t_events["files"].append(put(a.out, a.bucket, f"{root}/raw_events/000000_0", csv, 10))
    # Texts as Hive stores them: the original as typed, the expanded one fully qualified and backticked.
    v_eu = table(db, "v_eu_orders", "view", [("order_id", "bigint"), ("customer", "string"), ("amount", "double")], None, hints=["view"],
                 original=f"SELECT order_id, customer, amount FROM {db}.orders WHERE region = 'eu'",
                 expanded=(f"SELECT `orders`.`order_id`, `orders`.`customer`, `orders`.`amount` FROM `{db}`.`orders` "
                           f"WHERE `orders`.`region` = 'eu'"))
    v_country = table(db, "v_eu_by_country", "view", [("country", "string"), ("total", "double"), ("n", "bigint")], None,
                      hints=["view", "view-on-view"],
                      original=(f"SELECT c.country, sum(v.amount) AS total, count(*) AS n FROM {db}.v_eu_orders v "
                                f"JOIN {db}.customers c ON v.customer = c.customer GROUP BY c.country"),
                      expanded=(f"SELECT `c`.`country`, sum(`v`.`amount`) AS `total`, count(*) AS `n` FROM `{db}`.`v_eu_orders` `v` "
                                f"JOIN `{db}`.`customers` `c` ON `v`.`customer` = `c`.`customer` GROUP BY `c`.`country`"))
    v_events = table(db, "v_open_events", "view", [("id", "int")], None, hints=["view", "view-over-unmigrated"],
                     original=f"SELECT id FROM {db}.raw_events WHERE kind = 'open'",
                     expanded=f"SELECT `raw_events`.`id` FROM `{db}`.`raw_events` WHERE `raw_events`.`kind` = 'open'")
    out = {"database": {"name": db, "location": uri(f"{root}/{db}.db")}, "bucket": a.bucket, "rootKey": root,
           "tables": [t_orders, t_cust, t_events, v_eu, v_country, v_events]}
    with open(os.path.join(a.out, "tables.json"), "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
