#!/usr/bin/env python3
"""The peer of bench/convert: PyIceberg add_files on the same files. Creates a table (schema from the
first file, identity partition on `dt`) in a REST catalog (S3) or a SqlCatalog on sqlite (local
files), then times `add_files` alone. Prints one JSON line {files, seconds, rows, manifests}.

    pyiceberg_add_files.py --catalog rest --uri URI --s3-endpoint URL --table ns.t --list files.txt [--location s3://b/prefix/peer] [--drop]
    pyiceberg_add_files.py --catalog sql --warehouse /tmp/wh --table ns.t --list files.txt
"""
import argparse, json, os, sys, time
import pyarrow.parquet as pq

p = argparse.ArgumentParser()
p.add_argument("--catalog", choices=["rest", "sql"], required=True)
p.add_argument("--uri")
p.add_argument("--s3-endpoint")
p.add_argument("--warehouse")
p.add_argument("--table", required=True)
p.add_argument("--list", required=True)
p.add_argument("--location", help="table location (keeps the peer's metadata under the bench's own prefix)")
p.add_argument("--drop", action="store_true", help="drop the table afterwards (no purge), also on failure")
a = p.parse_args()
from pyiceberg.catalog import load_catalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.transforms import IdentityTransform

files = [l.strip() for l in open(a.list) if l.strip()]
if a.catalog == "rest":
    cat = load_catalog("bench", **{"type": "rest", "uri": a.uri, "s3.endpoint": a.s3_endpoint, "s3.access-key-id": os.environ["AWS_ACCESS_KEY_ID"], "s3.secret-access-key": os.environ["AWS_SECRET_ACCESS_KEY"], "s3.region": os.environ.get("AWS_REGION", "us-east-1")})
else:
    os.makedirs(a.warehouse, exist_ok=True)
    cat = load_catalog("bench", **{"type": "sql", "uri": f"sqlite:///{a.warehouse}/catalog.db", "warehouse": f"file://{a.warehouse}"})
ns = a.table.rsplit(".", 1)[0]
try:
    cat.create_namespace(ns)
except Exception:
    pass
first = files[0]
if first.startswith("s3://") or first.startswith("s3a://"):
    import pyarrow.fs as fs
    s3 = fs.S3FileSystem(endpoint_override=a.s3_endpoint, access_key=os.environ["AWS_ACCESS_KEY_ID"], secret_key=os.environ["AWS_SECRET_ACCESS_KEY"], region=os.environ.get("AWS_REGION", "us-east-1"))
    arrow_schema = pq.read_schema(first.split("://", 1)[1], filesystem=s3)
else:
    arrow_schema = pq.read_schema(first.replace("file://", ""))
tbl = cat.create_table(a.table, schema=arrow_schema, **({"location": a.location} if a.location else {}))
try:
    with tbl.update_spec() as u:
        u.add_identity("dt")
    tbl = cat.load_table(a.table)
    t0 = time.monotonic()
    tbl.add_files(file_paths=files)
    secs = time.monotonic() - t0
    snap = cat.load_table(a.table).current_snapshot()
    rows = int(snap.summary["total-records"]) if snap else 0
    manifests = len(snap.manifests(tbl.io)) if snap else 0
finally:
    if a.drop:
        cat.drop_table(a.table)  # not purge_table: the data files are the bench's, removed with its prefix
print(json.dumps({"files": len(files), "seconds": round(secs, 3), "rows": rows, "manifests": manifests}))
