#!/usr/bin/env python3
"""Generate the seeded Hive warehouse: real data files on local disk + the manifest of expected facts.

    generate.py --out DIR --seed 42 --prefix seed [--bucket hive]
    generate.py --tiny FILE            (scale mode: one tiny 1-row Parquet file)

Writes every data file under DIR/files/<S3 key> and DIR/manifest.json (sorted keys, UTF-8), then
prints {"manifest": path, "files": n} on stdout. dev/seed/main.ts uploads the files to S3 and
registers the databases, tables, partitions and views in HMS exactly as the manifest says; tests
assert against the manifest. Same seed + prefix → byte-identical files and manifest.

Row checksums are canonical.py's (dev/verifier): rows in the table's column order followed by the
partition columns (typed as the partition keys), values of a partition whose schema lacks a table
column are null (what Hive shows for schema drift). Run with the verifier venv's python
(HIM_VERIFIER_PYTHON). Dev tooling.
"""
from __future__ import annotations

import argparse
import datetime as dt
import decimal
import hashlib
import io
import json
import os
import random
import struct
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "verifier"))
from avro_writer import container as avro_container  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import canonical_rows, checksum  # noqa: E402
from hive_layout import hms_values, partition_name  # noqa: E402

import pyarrow as pa  # noqa: E402
import pyarrow.orc as orc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

MANIFEST_VERSION = 1
OWNER = "him-seed"

FORMATS: Dict[str, Dict[str, Optional[str]]] = {
    "parquet": {
        "inputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        "outputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        "serde": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
    },
    "orc": {
        "inputFormat": "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
        "outputFormat": "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat",
        "serde": "org.apache.hadoop.hive.ql.io.orc.OrcSerde",
    },
    "avro": {
        "inputFormat": "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat",
        "outputFormat": "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat",
        "serde": "org.apache.hadoop.hive.serde2.avro.AvroSerDe",
    },
    "text": {
        "inputFormat": "org.apache.hadoop.mapred.TextInputFormat",
        "outputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        "serde": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
    },
    # What Hive itself stores in a view's storage descriptor.
    "view": {
        "inputFormat": "org.apache.hadoop.mapred.SequenceFileInputFormat",
        "outputFormat": "org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat",
        "serde": None,
    },
}

# Hive type → Arrow type, for the columns the seeder uses.
ARROW = {
    "int": pa.int32(),
    "bigint": pa.int64(),
    "double": pa.float64(),
    "float": pa.float32(),
    "decimal(12,2)": pa.decimal128(12, 2),
    "decimal(10,2)": pa.decimal128(10, 2),
    "string": pa.string(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us"),
    "boolean": pa.bool_(),
    "binary": pa.binary(),
    "struct<a:int,b:string>": pa.struct([("a", pa.int32()), ("b", pa.string())]),
    "array<string>": pa.list_(pa.string()),
    "map<string,int>": pa.map_(pa.string(), pa.int32()),
}

Col = Tuple[str, str]  # (name, hive type)


def cols(spec: Sequence[Col]) -> List[Dict[str, str]]:
    return [{"name": n, "type": t, "comment": ""} for n, t in spec]


def arrow_schema(spec: Sequence[Col]) -> pa.Schema:
    return pa.schema([pa.field(n, ARROW[t]) for n, t in spec])


def typed_partition_value(hive_type: str, v: Optional[str]) -> Any:
    if v is None:
        return None
    return int(v) if hive_type in ("int", "bigint") else v


class Warehouse:
    def __init__(self, out: str, seed: int, prefix: str, bucket: str, readers: bool = False) -> None:
        self.out = out
        self.seed = seed
        self.prefix = prefix
        self.bucket = bucket
        self.root_key = f"seed/{prefix}"
        self.tables: List[Dict[str, Any]] = []
        self.databases = [f"{prefix}_sales", f"{prefix}_misc"] + ([f"{prefix}_lb_readers"] if readers else [])

    def rng(self, name: str) -> random.Random:
        return random.Random(f"{self.seed}:{name}")

    def uri(self, key: str) -> str:
        return f"s3a://{self.bucket}/{key}"

    def table_key(self, db: str, name: str) -> str:
        return f"{self.root_key}/{db}/{name}"

    def put(self, key: str, data: bytes, rows: int) -> Dict[str, Any]:
        path = os.path.join(self.out, "files", key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return {"key": key, "location": self.uri(key), "size": len(data), "rows": rows, "sha256": hashlib.sha256(data).hexdigest()}

    def add(self, db: str, name: str, kind: str, fmt: str, columns: Sequence[Col], **kw: Any) -> Dict[str, Any]:
        storage = dict(FORMATS[fmt])
        storage["serdeParams"] = kw.pop("serde_params", {"serialization.format": "1"} if fmt != "view" else {})
        t: Dict[str, Any] = {
            "db": db,
            "name": name,
            "kind": kind,
            "tableType": kw.pop("table_type", "EXTERNAL_TABLE"),
            "format": fmt,
            "owner": OWNER,
            "columns": cols(columns),
            "partitionKeys": cols(kw.pop("partition_keys", [])),
            "location": kw.pop("location", self.uri(self.table_key(db, name))),
            "params": kw.pop("params", {}),
            "storage": storage,
            "numBuckets": kw.pop("num_buckets", -1),
            "bucketCols": kw.pop("bucket_cols", []),
            "sortCols": kw.pop("sort_cols", []),
            "skew": kw.pop("skew", None),
            "viewOriginalText": kw.pop("view_original", None),
            "viewExpandedText": kw.pop("view_expanded", None),
            "partitions": [],
            "files": [],
            "rows": 0,
            "checksum": None,
            "hints": sorted(kw.pop("hints", [])),
        }
        if t["tableType"] == "EXTERNAL_TABLE":
            t["params"] = {"EXTERNAL": "TRUE", **t["params"]}
        if kw:
            raise TypeError(f"unknown table options {sorted(kw)}")
        self.tables.append(t)
        return t

    # -- files ------------------------------------------------------------------------------

    @staticmethod
    def parquet(table: pa.Table, int96: bool = False) -> bytes:
        buf = io.BytesIO()
        pq.write_table(table, buf, compression="snappy", use_deprecated_int96_timestamps=int96, store_schema=False)
        return buf.getvalue()

    @staticmethod
    def orc(table: pa.Table) -> bytes:
        buf = io.BytesIO()
        orc.write_table(table, buf, compression="zlib")
        return buf.getvalue()

    def finish(self, t: Dict[str, Any], rows: List[Dict[str, Any]]) -> None:
        """Table checksum over `rows` (dicts with table + partition columns)."""
        spec = [(c["name"], c["type"]) for c in t["columns"] + t["partitionKeys"]]
        full = pa.Table.from_pylist(rows, schema=arrow_schema(spec))
        canon = canonical_rows(full)
        t["rows"] = len(canon)
        t["checksum"] = checksum(canon)
        t["files"] = sorted(t["files"], key=lambda f: f["key"])

    def partition(self, t: Dict[str, Any], values: Sequence[Optional[str]], location: Optional[str] = None, columns: Optional[Sequence[Col]] = None) -> Dict[str, Any]:
        keys = [k["name"] for k in t["partitionKeys"]]
        name = partition_name(keys, values)
        p = {
            "values": list(values),
            "hmsValues": hms_values(values),
            "name": name,
            "location": location or f"{t['location']}/{name}",
            "columns": cols(columns) if columns is not None else None,
            "files": [],
            "rows": 0,
        }
        t["partitions"].append(p)
        return p

    def part_file(self, t: Dict[str, Any], p: Dict[str, Any], file_name: str, data: bytes, rows: int) -> None:
        key = p["location"][len(f"s3a://{self.bucket}/"):] + "/" + file_name
        f = self.put(key, data, rows)
        p["files"].append(f)
        p["rows"] += rows
        t["files"].append({**f, "partition": p["name"]})


# -- row generators -----------------------------------------------------------------------------

ALL_TYPES: List[Col] = [
    ("id", "int"),
    ("big", "bigint"),
    ("score", "double"),
    ("amount", "decimal(12,2)"),
    ("name", "string"),
    ("day", "date"),
    ("ts", "timestamp"),
    ("flag", "boolean"),
    ("payload", "binary"),
    ("info", "struct<a:int,b:string>"),
    ("tags", "array<string>"),
    ("attrs", "map<string,int>"),
]
WORDS = ["alpha", "beta", "gamma", "delta", "ünïcode", "quote\"d", "comma,sep", "tab\tbed", "ε", ""]


def all_types_rows(r: random.Random, n: int, start: int) -> List[Dict[str, Any]]:
    out = []
    for i in range(start, start + n):
        blank = i % 7 == 6
        out.append(
            {
                "id": i,
                "big": None if blank else r.randint(-(2**62), 2**62),
                "score": None if blank else round(r.uniform(-1e6, 1e6), 6),
                "amount": None if blank else decimal.Decimal(r.randint(-10**11, 10**11)).scaleb(-2),
                "name": None if blank else r.choice(WORDS) + f"-{i}",
                "day": None if blank else dt.date(2020, 1, 1) + dt.timedelta(days=r.randint(0, 2000)),
                "ts": None if blank else dt.datetime(2020, 1, 1) + dt.timedelta(seconds=r.randint(0, 10**8), microseconds=r.randint(0, 999_999)),
                "flag": None if blank else r.random() < 0.5,
                "payload": None if blank else bytes(r.randrange(256) for _ in range(r.randint(0, 12))),
                "info": None if blank else {"a": r.randint(-1000, 1000), "b": r.choice(WORDS)},
                "tags": None if blank else [r.choice(WORDS) for _ in range(r.randint(0, 3))],
                "attrs": None if blank else [(f"k{j}", r.randint(0, 99)) for j in range(r.randint(0, 3))],
            }
        )
    return out


ORDER_COLS: List[Col] = [("order_id", "bigint"), ("customer", "string"), ("amount", "decimal(10,2)"), ("ordered_at", "timestamp")]


def order_rows(r: random.Random, n: int, start: int) -> List[Dict[str, Any]]:
    return [
        {
            "order_id": i,
            "customer": f"c{r.randint(1, 50):03d}",
            "amount": decimal.Decimal(r.randint(0, 10**6)).scaleb(-2),
            "ordered_at": dt.datetime(2024, 1, 1) + dt.timedelta(seconds=r.randint(0, 3 * 10**7)),
        }
        for i in range(start, start + n)
    ]


# -- the warehouse ------------------------------------------------------------------------------


def build(w: Warehouse) -> None:
    sales, misc = w.databases[:2]
    seed_all_types(w, sales)
    seed_orders(w, sales)
    seed_special(w, sales)
    seed_drift(w, sales)
    seed_managed(w, sales)
    seed_views(w, sales, misc)
    seed_avro(w, misc)
    seed_orc(w, misc)
    seed_text(w, misc)
    seed_acid(w, misc)
    seed_insert_only(w, misc)
    seed_bucketed(w, misc)
    seed_skewed(w, misc)
    seed_empty(w, misc)
    if len(w.databases) > 2:
        seed_float_as_double(w, w.databases[2])


def seed_all_types(w: Warehouse, db: str) -> None:
    """Unpartitioned Parquet with every type; the second file stores ts as INT96 (Hive's legacy)."""
    t = w.add(db, "all_types", "external", "parquet", ALL_TYPES, hints=["metadata-only", "parquet-int96"])
    r = w.rng("all_types")
    schema = arrow_schema(ALL_TYPES)
    rows: List[Dict[str, Any]] = []
    for idx, (n, int96) in enumerate([(25, False), (20, True)]):
        chunk = all_types_rows(r, n, len(rows))
        rows += chunk
        f = w.put(f"{w.table_key(db, 'all_types')}/00000{idx}_0", w.parquet(pa.Table.from_pylist(chunk, schema=schema), int96=int96), n)
        t["files"].append({**f, "int96": int96})
    w.finish(t, rows)


def seed_orders(w: Warehouse, db: str) -> None:
    """Two-level partitioned Parquet (year int, region string): a null region, a partition outside the table location."""
    t = w.add(db, "orders", "external", "parquet", ORDER_COLS, partition_keys=[("year", "int"), ("region", "string")],
              hints=["metadata-only", "null-partition-value", "partition-outside-table-location"])
    r = w.rng("orders")
    schema = arrow_schema(ORDER_COLS)
    rows: List[Dict[str, Any]] = []
    outside = w.uri(f"{w.root_key}/outside/{db}/orders_2023_eu")
    specs = [(("2023", "eu"), outside), (("2024", "eu"), None), (("2024", "us"), None), (("2025", "eu"), None), (("2025", None), None)]
    for values, loc in specs:
        p = w.partition(t, values, location=loc)
        for fi in range(2):
            chunk = order_rows(r, 6 + fi, len(rows))
            w.part_file(t, p, f"00000{fi}_0", w.parquet(pa.Table.from_pylist(chunk, schema=schema)), len(chunk))
            rows += [{**c, "year": int(values[0]), "region": values[1]} for c in chunk]
    w.finish(t, rows)


SPECIAL_VALUES: List[Optional[str]] = ["a/b", "x=y", "100%", "with space", "ünï€", "q?#*", "plain", None]


def seed_special(w: Warehouse, db: str) -> None:
    """Partition values that Hive escapes in directory names (a/b → a%2Fb), plus unicode, space and null."""
    spec: List[Col] = [("id", "bigint"), ("label", "string")]
    t = w.add(db, "special_parts", "external", "parquet", spec, partition_keys=[("k", "string")],
              hints=["metadata-only", "null-partition-value", "special-char-partition-values"])
    rows: List[Dict[str, Any]] = []
    for i, v in enumerate(SPECIAL_VALUES):
        p = w.partition(t, [v])
        chunk = [{"id": i * 10 + j, "label": f"{v}#{j}"} for j in range(3)]
        w.part_file(t, p, "000000_0", w.parquet(pa.Table.from_pylist(chunk, schema=arrow_schema(spec))), len(chunk))
        rows += [{**c, "k": v} for c in chunk]
    w.finish(t, rows)


def seed_drift(w: Warehouse, db: str) -> None:
    """Schema drift: partition p=1 keeps the old columns (id int, name), p=2 has the table's (id bigint, name, extra)."""
    old: List[Col] = [("id", "int"), ("name", "string")]
    new: List[Col] = [("id", "bigint"), ("name", "string"), ("extra", "double")]
    t = w.add(db, "drifted", "external", "parquet", new, partition_keys=[("p", "int")], hints=["metadata-only", "partition-schema-drift"])
    rows: List[Dict[str, Any]] = []
    p1 = w.partition(t, ["1"], columns=old)
    c1 = [{"id": j, "name": f"old-{j}"} for j in range(4)]
    w.part_file(t, p1, "000000_0", w.parquet(pa.Table.from_pylist(c1, schema=arrow_schema(old))), 4)
    rows += [{**c, "extra": None, "p": 1} for c in c1]
    p2 = w.partition(t, ["2"])
    c2 = [{"id": 100 + j, "name": f"new-{j}", "extra": j / 4} for j in range(5)]
    w.part_file(t, p2, "000000_0", w.parquet(pa.Table.from_pylist(c2, schema=arrow_schema(new))), 5)
    rows += [{**c, "p": 2} for c in c2]
    w.finish(t, rows)


def seed_managed(w: Warehouse, db: str) -> None:
    spec: List[Col] = [("customer", "string"), ("since", "date"), ("vip", "boolean")]
    t = w.add(db, "customers", "managed", "parquet", spec, table_type="MANAGED_TABLE", hints=["managed-table", "metadata-only"])
    rows = [{"customer": f"c{i:03d}", "since": dt.date(2019, 1, 1) + dt.timedelta(days=i * 17), "vip": i % 5 == 0} for i in range(1, 51)]
    t["files"].append(w.put(f"{w.table_key(db, 'customers')}/000000_0", w.parquet(pa.Table.from_pylist(rows, schema=arrow_schema(spec))), len(rows)))
    w.finish(t, rows)


def seed_views(w: Warehouse, sales: str, misc: str) -> None:
    """A view on a table and views on views (one across databases), texts as Hive stores them."""
    w.add(sales, "v_orders_eu", "view", "view", [("order_id", "bigint"), ("amount", "decimal(10,2)"), ("year", "int")],
          table_type="VIRTUAL_VIEW", location=None, hints=["view"],
          view_original=f"SELECT order_id, amount, year FROM {sales}.orders WHERE region = 'eu'",
          view_expanded=f"SELECT `orders`.`order_id`, `orders`.`amount`, `orders`.`year` FROM `{sales}`.`orders` WHERE `orders`.`region` = 'eu'")
    w.add(sales, "v_orders_eu_big", "view", "view", [("order_id", "bigint"), ("amount", "decimal(10,2)")],
          table_type="VIRTUAL_VIEW", location=None, hints=["view", "view-on-view"],
          view_original=f"SELECT order_id, amount FROM {sales}.v_orders_eu WHERE amount > 5000",
          view_expanded=f"SELECT `v_orders_eu`.`order_id`, `v_orders_eu`.`amount` FROM `{sales}`.`v_orders_eu` WHERE `v_orders_eu`.`amount` > 5000")
    w.add(misc, "v_big_customers", "view", "view", [("customer", "string"), ("n", "bigint")],
          table_type="VIRTUAL_VIEW", location=None, hints=["view", "view-on-view", "cross-database-view"],
          view_original=f"SELECT customer, count(*) AS n FROM {sales}.v_orders_eu_big JOIN {sales}.orders USING (order_id) GROUP BY customer",
          view_expanded=(f"SELECT `orders`.`customer`, count(*) AS `n` FROM `{sales}`.`v_orders_eu_big` JOIN `{sales}`.`orders` "
                         f"ON `v_orders_eu_big`.`order_id` = `orders`.`order_id` GROUP BY `orders`.`customer`"))


AVRO_SCHEMA = {
    "type": "record",
    "name": "event",
    "namespace": "him.seed",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "kind", "type": ["null", "string"]},
        {"name": "value", "type": ["null", "double"]},
        {"name": "ok", "type": ["null", "boolean"]},
        {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}]},
        {"name": "n", "type": ["null", "int"]},
    ],
}
AVRO_COLS: List[Col] = [("id", "bigint"), ("kind", "string"), ("value", "double"), ("ok", "boolean"), ("day", "date"), ("n", "int")]


def seed_avro(w: Warehouse, db: str) -> None:
    t = w.add(db, "events_avro", "external", "avro", AVRO_COLS, params={"avro.schema.literal": json.dumps(AVRO_SCHEMA, separators=(",", ":"))},
              hints=["metadata-only", "avro"])
    r = w.rng("events_avro")
    rows: List[Dict[str, Any]] = []
    for fi in range(2):
        chunk = []
        for i in range(len(rows), len(rows) + 30):
            blank = i % 6 == 5
            chunk.append({"id": i, "kind": None if blank else r.choice(WORDS), "value": None if blank else round(r.uniform(0, 100), 3),
                          "ok": None if blank else r.random() < 0.3, "day": None if blank else dt.date(2024, 3, 1) + dt.timedelta(days=i),
                          "n": None if blank else r.randint(-5, 5)})
        sync = hashlib.sha256(f"{w.seed}:events_avro:{fi}".encode()).digest()[:16]
        t["files"].append(w.put(f"{w.table_key(db, 'events_avro')}/00000{fi}_0", avro_container(AVRO_SCHEMA, chunk, sync), len(chunk)))
        rows += chunk
    w.finish(t, rows)


def seed_orc(w: Warehouse, db: str) -> None:
    spec: List[Col] = [("id", "bigint"), ("name", "string"), ("amount", "decimal(10,2)"), ("day", "date"), ("ts", "timestamp"), ("ok", "boolean")]
    t = w.add(db, "metrics_orc", "external", "orc", spec, partition_keys=[("dt", "string")], hints=["metadata-only", "orc"])
    r = w.rng("metrics_orc")
    rows: List[Dict[str, Any]] = []
    for d in ["2024-05-01", "2024-05-02"]:
        p = w.partition(t, [d])
        chunk = [{"id": i, "name": r.choice(WORDS), "amount": decimal.Decimal(r.randint(-99999, 99999)).scaleb(-2),
                  "day": dt.date.fromisoformat(d), "ts": dt.datetime(2024, 5, 1, 12) + dt.timedelta(minutes=i), "ok": i % 2 == 0}
                 for i in range(len(rows), len(rows) + 10)]
        w.part_file(t, p, "000000_0", w.orc(pa.Table.from_pylist(chunk, schema=arrow_schema(spec))), len(chunk))
        rows += [{**c, "dt": d} for c in chunk]
    w.finish(t, rows)


def seed_text(w: Warehouse, db: str) -> None:
    """Comma-delimited text (LazySimpleSerDe), nulls as \\N: needs a rewrite, not metadata-only."""
    spec: List[Col] = [("id", "int"), ("name", "string"), ("amount", "decimal(10,2)"), ("day", "date")]
    t = w.add(db, "ledger_csv", "external", "text", spec, serde_params={"field.delim": ",", "serialization.format": ","},
              params={"skip.header.line.count": "0"}, hints=["rewrite-required", "text-format"])
    rows = [{"id": i, "name": None if i % 4 == 3 else f"n{i}", "amount": decimal.Decimal(i * 125).scaleb(-2), "day": dt.date(2024, 1, 1) + dt.timedelta(days=i)}
            for i in range(20)]

    def cell(v: Any) -> str:
        return "\\N" if v is None else str(v)

    text = "".join(",".join(cell(r[c]) for c, _ in spec) + "\n" for r in rows).encode()
    t["files"].append(w.put(f"{w.table_key(db, 'ledger_csv')}/000000_0", text, len(rows)))
    w.finish(t, rows)


def acid_orc(rows: List[Dict[str, Any]], spec: Sequence[Col], write_id: int) -> pa.Table:
    """ORC ACID layout: operation, originalTransaction, bucket, rowId, currentTransaction, row<...>."""
    row_type = pa.struct([(n, ARROW[t]) for n, t in spec])
    return pa.table({
        "operation": pa.array([0] * len(rows), pa.int32()),
        "originalTransaction": pa.array([write_id] * len(rows), pa.int64()),
        "bucket": pa.array([536870912] * len(rows), pa.int32()),  # bucket 0, codec version 1
        "rowId": pa.array(range(len(rows)), pa.int64()),
        "currentTransaction": pa.array([write_id] * len(rows), pa.int64()),
        "row": pa.array(rows, row_type),
    })


def seed_acid(w: Warehouse, db: str) -> None:
    """Full ACID (transactional=true, ORC): base_0000001/bucket_00000 in the ACID row format."""
    spec: List[Col] = [("id", "bigint"), ("status", "string")]
    t = w.add(db, "accounts_acid", "acid", "orc", spec, table_type="MANAGED_TABLE",
              params={"transactional": "true", "transactional_properties": "default"}, hints=["rewrite-required", "full-acid"])
    rows = [{"id": i, "status": ["open", "closed", "frozen"][i % 3]} for i in range(12)]
    base = w.table_key(db, "accounts_acid")
    t["files"].append(w.put(f"{base}/base_0000001/bucket_00000", w.orc(acid_orc(rows, spec, 1)), len(rows)))
    t["files"].append(w.put(f"{base}/base_0000001/_orc_acid_version", b"2", 0))
    w.finish(t, rows)


def seed_insert_only(w: Warehouse, db: str) -> None:
    """Insert-only (micro-managed) Parquet: files under delta_N_N_0000/, plus an aborted write's delta."""
    spec: List[Col] = [("id", "bigint"), ("note", "string")]
    t = w.add(db, "audit_insert_only", "insert_only", "parquet", spec, table_type="MANAGED_TABLE",
              params={"transactional": "true", "transactional_properties": "insert_only"}, hints=["rewrite-required", "insert-only"])
    rows: List[Dict[str, Any]] = []
    for wid in (1, 2):
        chunk = [{"id": wid * 100 + j, "note": f"write {wid}"} for j in range(5)]
        t["files"].append(w.put(f"{w.table_key(db, 'audit_insert_only')}/delta_000000{wid}_000000{wid}_0000/000000_0",
                                w.parquet(pa.Table.from_pylist(chunk, schema=arrow_schema(spec))), len(chunk)))
        rows += chunk
    w.finish(t, rows)


def seed_bucketed(w: Warehouse, db: str) -> None:
    """4 buckets on id (bucketing_version 1: bucket = id % 4 for non-negative ints), sorted by id."""
    spec: List[Col] = [("id", "int"), ("v", "string")]
    t = w.add(db, "users_bucketed", "external", "parquet", spec, num_buckets=4, bucket_cols=["id"], sort_cols=[{"col": "id", "order": 1}],
              params={"bucketing_version": "1"}, hints=["bucketed"])
    rows = [{"id": i, "v": f"user-{i}"} for i in range(24)]
    for b in range(4):
        chunk = [x for x in rows if x["id"] % 4 == b]
        t["files"].append(w.put(f"{w.table_key(db, 'users_bucketed')}/00000{b}_0", w.parquet(pa.Table.from_pylist(chunk, schema=arrow_schema(spec))), len(chunk)))
    w.finish(t, rows)


def seed_skewed(w: Warehouse, db: str) -> None:
    """List bucketing: skewed on country ('DE', 'US') stored as sub-directories, the rest in the default dir."""
    spec: List[Col] = [("id", "bigint"), ("country", "string")]
    loc = w.uri(w.table_key(db, "visits_skewed"))
    skew = {"cols": ["country"], "values": [["DE"], ["US"]], "locations": [{"values": ["DE"], "location": f"{loc}/country=DE"}, {"values": ["US"], "location": f"{loc}/country=US"}]}
    t = w.add(db, "visits_skewed", "external", "parquet", spec, skew=skew, hints=["skewed-subdirectories"])
    rows = [{"id": i, "country": ["DE", "US", "FR", "DE", "JP"][i % 5]} for i in range(30)]
    for sub, pick in [("country=DE", lambda c: c == "DE"), ("country=US", lambda c: c == "US"), ("HIVE_DEFAULT_LIST_BUCKETING_DIR_NAME", lambda c: c not in ("DE", "US"))]:
        chunk = [x for x in rows if pick(x["country"])]
        t["files"].append(w.put(f"{w.table_key(db, 'visits_skewed')}/{sub}/000000_0", w.parquet(pa.Table.from_pylist(chunk, schema=arrow_schema(spec))), len(chunk)))
    w.finish(t, rows)


def seed_empty(w: Warehouse, db: str) -> None:
    t = w.add(db, "empty_pq", "external", "parquet", [("id", "bigint"), ("v", "string")], hints=["empty", "metadata-only"])
    w.finish(t, [])


def f32(x: float) -> float:
    """x rounded to float32 and widened back: what a reader returns for a FLOAT read as double."""
    return struct.unpack("f", struct.pack("f", x))[0]


def seed_float_as_double(w: Warehouse, db: str) -> None:
    """Legal Iceberg that Trino 476 mis-handles: Hive says `reading double`, the Parquet files store
    FLOAT (written before ALTER TABLE ... CHANGE reading reading double). Partition region=eu keeps the
    table's columns (the CASCADE case: only the footer tells), region=us still declares float (drift)."""
    table_cols: List[Col] = [("id", "bigint"), ("reading", "double"), ("label", "string")]
    file_cols: List[Col] = [("id", "bigint"), ("reading", "float"), ("label", "string")]
    t = w.add(db, "float_as_double", "external", "parquet", table_cols, partition_keys=[("region", "string")],
              hints=["metadata-only", "reader-float-as-double"])
    rows: List[Dict[str, Any]] = []
    for pi, (region, declared) in enumerate([("eu", None), ("us", file_cols)]):
        p = w.partition(t, [region], columns=declared)
        # 0.1 is not exact in float32: readers return 0.10000000149011612 for it, and so does the checksum.
        chunk = [{"id": pi * 100 + j, "reading": f32(j * 0.1 - 1.5), "label": f"{region}-{j}"} for j in range(6)]
        w.part_file(t, p, "000000_0", w.parquet(pa.Table.from_pylist(chunk, schema=arrow_schema(file_cols))), len(chunk))
        rows += [{**c, "region": region} for c in chunk]
    w.finish(t, rows)


def manifest(w: Warehouse) -> Dict[str, Any]:
    return {
        "version": MANIFEST_VERSION,
        "seed": w.seed,
        "prefix": w.prefix,
        "bucket": w.bucket,
        "rootKey": w.root_key,
        "root": w.uri(w.root_key),
        "databases": [{"name": d, "location": w.uri(f"{w.root_key}/{d}.db")} for d in w.databases],
        "tables": w.tables,
        "generator": {"pyarrow": pa.__version__},
    }


def tiny(path: str) -> None:
    spec: List[Col] = [("id", "bigint"), ("v", "string")]
    with open(path, "wb") as f:
        f.write(Warehouse.parquet(pa.Table.from_pylist([{"id": 1, "v": "x"}], schema=arrow_schema(spec))))


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--prefix", default="seed")
    p.add_argument("--bucket", default="hive")
    p.add_argument("--tiny")
    p.add_argument("--readers", action="store_true", help="also seed <prefix>_lb_readers (reader-limit cases)")
    a = p.parse_args(argv)
    if a.tiny:
        tiny(a.tiny)
        return 0
    if not a.out:
        p.error("--out is required")
    w = Warehouse(a.out, a.seed, a.prefix, a.bucket, a.readers)
    build(w)
    path = os.path.join(a.out, "manifest.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest(w), sort_keys=True, indent=1, ensure_ascii=False) + "\n")
    sys.stdout.write(json.dumps({"manifest": path, "files": sum(len(t["files"]) for t in w.tables)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
