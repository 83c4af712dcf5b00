#!/usr/bin/env python3
"""Test fixture: create a small Iceberg table through a REST catalog with PyIceberg and print ONE JSON line.

    make_table.py --catalog-uri URI --s3-endpoint URL --table ns.tbl [--rows N]

The table has long (required), string, decimal(10,2), date, timestamp, timestamptz, boolean and
double columns, nulls in every optional column, and an identity partition on `region` (one
partition is null). The namespace is created when missing; an existing table is an error.
Output: {"table", "rows", "checksum", "columns", "written", "metadata_location", "location"}
where `written` holds every row in canonical form (canonical.py) and `checksum` is computed from
the Arrow table before it is written, so a reader's checksum must match it. S3 keys from AWS_*.
Dev/test tooling.
"""
from __future__ import annotations

import argparse
import datetime as dt
import decimal
import json
import os
import sys
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import canonical_rows, checksum  # noqa: E402
from read_table import pyiceberg_catalog, split_table  # noqa: E402

REGIONS = ["eu", "us", "apac", None]


def iceberg_schema() -> Any:
    from pyiceberg.schema import Schema
    from pyiceberg.types import (
        BooleanType,
        DateType,
        DecimalType,
        DoubleType,
        LongType,
        NestedField,
        StringType,
        TimestampType,
        TimestamptzType,
    )

    return Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "name", StringType(), required=False),
        NestedField(3, "amount", DecimalType(10, 2), required=False),
        NestedField(4, "day", DateType(), required=False),
        NestedField(5, "ts", TimestampType(), required=False),
        NestedField(6, "ts_tz", TimestamptzType(), required=False),
        NestedField(7, "active", BooleanType(), required=False),
        NestedField(8, "score", DoubleType(), required=False),
        NestedField(9, "region", StringType(), required=False),
    )


def partition_spec() -> Any:
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import IdentityTransform

    return PartitionSpec(PartitionField(source_id=9, field_id=1000, transform=IdentityTransform(), name="region"))


def rows(n: int) -> List[Dict[str, Any]]:
    """Deterministic rows; every 5th row has nulls in the optional value columns."""
    out = []
    base_ts = dt.datetime(2024, 1, 31, 12, 0, 0)
    for i in range(n):
        blank = i % 5 == 4
        out.append(
            {
                "id": i + 1,
                "name": None if blank else f"row-{i + 1}-ü",
                "amount": None if blank else decimal.Decimal(i * 1013 - 2000).scaleb(-2),
                "day": None if blank else dt.date(2024, 1, 1) + dt.timedelta(days=i),
                "ts": None if blank else base_ts + dt.timedelta(hours=i, microseconds=i),
                "ts_tz": None if blank else (base_ts + dt.timedelta(minutes=i)).replace(tzinfo=dt.timezone.utc),
                "active": None if blank else i % 2 == 0,
                "score": None if blank else i / 8,
                "region": REGIONS[i % len(REGIONS)],
            }
        )
    return out


def arrow_table(data: List[Dict[str, Any]]) -> Any:
    import pyarrow as pa

    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("name", pa.string()),
            pa.field("amount", pa.decimal128(10, 2)),
            pa.field("day", pa.date32()),
            pa.field("ts", pa.timestamp("us")),
            pa.field("ts_tz", pa.timestamp("us", tz="UTC")),
            pa.field("active", pa.bool_()),
            pa.field("score", pa.float64()),
            pa.field("region", pa.string()),
        ]
    )
    return pa.Table.from_pylist(data, schema=schema)


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--catalog-uri", default=os.environ.get("HIM_ICEBERG_REST_URI"))
    p.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
    p.add_argument("--table", required=True, help="namespace.table")
    p.add_argument("--rows", type=int, default=12)
    args = p.parse_args(argv)
    if not args.catalog_uri or not args.s3_endpoint:
        p.error("--catalog-uri and --s3-endpoint are required (or HIM_ICEBERG_REST_URI / HIM_S3_ENDPOINT)")
    ns, _ = split_table(args.table)

    catalog = pyiceberg_catalog(args.catalog_uri, args.s3_endpoint)
    catalog.create_namespace_if_not_exists(ns)
    table = catalog.create_table(args.table, schema=iceberg_schema(), partition_spec=partition_spec())
    data = arrow_table(rows(args.rows))
    table.append(data)
    table = catalog.load_table(args.table)

    written = canonical_rows(data)
    out = {
        "table": args.table,
        "rows": len(written),
        "checksum": checksum(written),
        "columns": list(data.column_names),
        "written": written,
        "metadata_location": table.metadata_location,
        "location": table.location(),
    }
    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
