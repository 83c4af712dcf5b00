#!/usr/bin/env python3
"""Read one Iceberg table through PyIceberg's HiveCatalog (the Hive Metastore as the Iceberg catalog)
and print ONE JSON line {engine, table, rows, checksum, columns, sample} (canonical.py).

    read_hive_table.py --hms thrift://127.0.0.1:9083 --table db.t [--s3-endpoint URL]
"""
import argparse, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import summary  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--hms", required=True)
p.add_argument("--table", required=True)
p.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
a = p.parse_args()
from pyiceberg.catalog import load_catalog

cat = load_catalog("hive", **{
    "type": "hive", "uri": a.hms,
    "s3.endpoint": a.s3_endpoint, "s3.access-key-id": os.environ["AWS_ACCESS_KEY_ID"],
    "s3.secret-access-key": os.environ["AWS_SECRET_ACCESS_KEY"], "s3.region": os.environ.get("AWS_REGION", "us-east-1"),
})
out = summary("pyiceberg-hive", cat.load_table(a.table).scan().to_arrow(), 3)
out["table"] = a.table
print(json.dumps(out, ensure_ascii=False))
