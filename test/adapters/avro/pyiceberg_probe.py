#!/usr/bin/env python3
"""Independent reader for the Avro writer tests: PyIceberg decodes what our TypeScript wrote.

    pyiceberg_probe.py manifests <manifest-list-path>   → JSON: list header + entries, each manifest's
                                                          header + entries (inheritance applied, bounds
                                                          decoded with pyiceberg.conversions.from_bytes)
    pyiceberg_probe.py write-parquet <spec.json>        → writes Parquet files (Hive layout: partition
                                                          columns not in the file); prints [{path,size,rows}]
    pyiceberg_probe.py scan <metadata.json>             → StaticTable.from_metadata(...).scan() summary
    pyiceberg_probe.py expected <spec.json>             → the same summary computed from the original
                                                          files plus the partition values (no Iceberg)
Test tooling; run with the verifier venv's python (HIM_VERIFIER_PYTHON). One JSON document on stdout.
"""
from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import sys
import uuid
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "dev", "verifier"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "jobs"))  # canonical.py: the shipped definition


def plain(v: Any) -> Any:
    """JSON-safe form: ints as strings when large, bytes as hex, Decimal/UUID/dates as strings."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v if abs(v) < 2**53 else str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"hex": bytes(v).hex()}
    if isinstance(v, (decimal.Decimal, uuid.UUID, dt.date, dt.datetime, dt.time)):
        return str(v)
    if isinstance(v, dict) or type(v).__name__ == "LazyDict":
        return {str(k): plain(x) for k, x in dict(v).items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "value") and hasattr(v, "name"):  # enums
        return v.value
    raise TypeError(f"{type(v).__name__}: {v!r}")


def header(io: Any, path: str) -> dict:
    """The Avro file metadata map, parsed from the raw header (magic, map<bytes>), no schema needed."""
    data = io.new_input(path).open().read(1 << 20)
    assert data[:4] == b"Obj\x01", "not an Avro container file"
    pos = 4

    def long() -> int:
        nonlocal pos
        shift = result = 0
        while True:
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return (result >> 1) ^ -(result & 1)

    def raw() -> bytes:
        nonlocal pos
        n = long()
        pos += n
        return data[pos - n:pos]

    meta = {}
    while True:
        count = long()
        if count == 0:
            return meta
        if count < 0:
            count = -count
            long()  # block byte size
        for _ in range(count):
            key = raw().decode("utf-8")
            meta[key] = raw().decode("utf-8")


def manifests(list_path: str) -> dict:
    from pyiceberg.conversions import from_bytes
    from pyiceberg.io.pyarrow import PyArrowFileIO
    from pyiceberg.manifest import read_manifest_list
    from pyiceberg.schema import Schema

    io = PyArrowFileIO()
    out: dict = {"header": header(io, list_path), "manifests": []}
    for mf in read_manifest_list(io.new_input(list_path)):
        meta = header(io, mf.manifest_path)
        schema = Schema.model_validate_json(meta["schema"])
        entries = []
        for e in mf.fetch_manifest_entry(io):
            d = e.data_file
            ftype = lambda fid: schema.find_field(fid).field_type  # noqa: E731
            entries.append({
                "status": e.status.value, "snapshot_id": plain(e.snapshot_id),
                "sequence_number": e.sequence_number, "file_sequence_number": e.file_sequence_number,
                "content": d.content.value, "file_path": d.file_path, "file_format": d.file_format.value,
                "partition": [plain(x) for x in d.partition], "record_count": d.record_count,
                "file_size_in_bytes": d.file_size_in_bytes,
                "column_sizes": plain(d.column_sizes), "value_counts": plain(d.value_counts),
                "null_value_counts": plain(d.null_value_counts), "nan_value_counts": plain(d.nan_value_counts),
                "lower_bounds": {str(k): plain(from_bytes(ftype(k), v)) for k, v in dict(d.lower_bounds or {}).items()},
                "upper_bounds": {str(k): plain(from_bytes(ftype(k), v)) for k, v in dict(d.upper_bounds or {}).items()},
                "split_offsets": d.split_offsets, "sort_order_id": d.sort_order_id,
            })
        out["manifests"].append({
            "manifest_path": mf.manifest_path, "manifest_length": mf.manifest_length,
            "partition_spec_id": mf.partition_spec_id, "content": mf.content.value,
            "sequence_number": mf.sequence_number, "min_sequence_number": mf.min_sequence_number,
            "added_snapshot_id": plain(mf.added_snapshot_id), "added_files_count": mf.added_files_count,
            "existing_files_count": mf.existing_files_count, "deleted_files_count": mf.deleted_files_count,
            "added_rows_count": mf.added_rows_count, "existing_rows_count": mf.existing_rows_count,
            "deleted_rows_count": mf.deleted_rows_count,
            "partitions": [{"contains_null": p.contains_null, "contains_nan": p.contains_nan,
                            "lower_bound": plain(p.lower_bound), "upper_bound": plain(p.upper_bound)}
                           for p in (mf.partitions or [])],
            "header": meta, "entries": entries,
        })
    return out


def arrow_schema() -> Any:
    import pyarrow as pa
    return pa.schema([("id", pa.int64()), ("name", pa.string()), ("price", pa.decimal128(9, 2))])


def write_parquet(spec: dict) -> list:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = []
    for f in spec["files"]:
        rows = [{"id": r["id"], "name": r["name"], "price": None if r["price"] is None else decimal.Decimal(r["price"])}
                for r in f["rows"]]
        table = pa.Table.from_pylist(rows, schema=arrow_schema())
        os.makedirs(os.path.dirname(f["path"]), exist_ok=True)
        pq.write_table(table, f["path"])
        out.append({"path": f["path"], "size": os.path.getsize(f["path"]), "rows": table.num_rows})
    return out


def expected(spec: dict) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from canonical import summary

    tables = []
    for f in spec["files"]:
        t = pq.read_table(f["path"])
        dtv = None if f["dt"] is None else dt.date.fromisoformat(f["dt"])
        t = t.append_column("dt", pa.array([dtv] * t.num_rows, pa.date32()))
        t = t.append_column("country", pa.array([f["country"]] * t.num_rows, pa.string()))
        tables.append(t)
    return summary("expected", pa.concat_tables(tables), sample_size=100)


def scan(metadata_path: str) -> dict:
    from canonical import summary
    from pyiceberg.table import StaticTable

    table = StaticTable.from_metadata(metadata_path)
    return summary("pyiceberg", table.scan().to_arrow(), sample_size=100)


def main() -> None:
    cmd, arg = sys.argv[1], sys.argv[2]
    if cmd == "manifests":
        result: Any = manifests(arg)
    elif cmd == "write-parquet":
        result = write_parquet(json.load(open(arg)))
    elif cmd == "expected":
        result = expected(json.load(open(arg)))
    elif cmd == "scan":
        result = scan(arg)
    else:
        raise SystemExit(f"unknown command {cmd}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
