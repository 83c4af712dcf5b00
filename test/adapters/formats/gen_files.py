#!/usr/bin/env python3
"""Write real Parquet/ORC/Avro test files with pyarrow and print what pyarrow reports about them.

    gen_files.py OUT_DIR     → JSON on stdout: {file: {num_rows, split_offsets, columns{path: …}}}

Values are raw Parquet physical values (ints as strings, bytes as hex) aggregated over row groups
as min of mins / max of maxes, so the TypeScript test converts them independently of the reader.
Runs in the verifier venv (HIM_VERIFIER_PYTHON). Test tooling.
"""
from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import sys

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "dev", "seed"))
from avro_writer import container  # noqa: E402

N = 1000


def rows_table() -> pa.Table:
    ids = list(range(-500, 500))
    def maybe(i, v):
        return None if i % 7 == 3 else v
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "small": pa.array([maybe(i, (i % 200) - 100) for i in range(N)], pa.int8()),
        "name": pa.array([maybe(i, f"name-{i:05d}-long-enough-to-truncate-ü{'€' * (i % 3)}") for i in range(N)], pa.string()),
        "amount": pa.array([maybe(i, decimal.Decimal(i * 37 - 20000) / 100) for i in range(N)], pa.decimal128(10, 2)),
        "big": pa.array([maybe(i, decimal.Decimal(i) * decimal.Decimal("-123456789012345.123456")) for i in range(N)], pa.decimal128(38, 6)),
        "d": pa.array([maybe(i, dt.date(1960, 1, 1) + dt.timedelta(days=i * 30)) for i in range(N)], pa.date32()),
        "ts_ms": pa.array([maybe(i, dt.datetime(1969, 12, 31, 23, 0) + dt.timedelta(seconds=i * 3607, milliseconds=i)) for i in range(N)], pa.timestamp("ms")),
        "ts_us": pa.array([maybe(i, dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=i * 1234567)) for i in range(N)], pa.timestamp("us", tz="UTC")),
        "ts_ns": pa.array([maybe(i, -1_000_000_000_123 + i * 1_000_000_001) for i in range(N)], pa.timestamp("ns")),
        "flag": pa.array([maybe(i, i % 2 == 0) for i in range(N)], pa.bool_()),
        "f": pa.array([maybe(i, float("nan") if i == 10 else (i - 500) / 3.0) for i in range(N)], pa.float32()),
        "dbl": pa.array([maybe(i, 0.0 if i == 5 else (i - 500) * 1.5) for i in range(N)], pa.float64()),
        "bin": pa.array([maybe(i, bytes([255 - (i % 256)]) * 20) for i in range(N)], pa.binary()),
        "s": pa.array([maybe(i, {"a": i, "b": f"b{i}"}) for i in range(N)], pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "l": pa.array([maybe(i, [i, i + 1]) for i in range(N)], pa.list_(pa.int32())),
        "m": pa.array([maybe(i, [(f"k{i}", i)]) for i in range(N)], pa.map_(pa.string(), pa.int32())),
    })


def raw(v):
    if isinstance(v, bytes):
        return {"hex": v.hex()}
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return v
    return str(v)


def parquet_facts(path: str) -> dict:
    md = pq.read_metadata(path)
    cols: dict = {}
    splits = []
    for r in range(md.num_row_groups):
        rg = md.row_group(r)
        c0 = rg.column(0)
        splits.append(c0.dictionary_page_offset if c0.has_dictionary_page and c0.dictionary_page_offset else c0.data_page_offset)
        for c in range(rg.num_columns):
            col = rg.column(c)
            e = cols.setdefault(col.path_in_schema, {"physical": col.physical_type, "num_values": 0, "compressed": 0, "null_count": 0, "min": None, "max": None, "all_min_max": True})
            e["num_values"] += col.num_values
            e["compressed"] += col.total_compressed_size
            st = col.statistics
            if st is None:
                e["null_count"] = None
                e["all_min_max"] = False
                continue
            if e["null_count"] is not None:
                e["null_count"] = e["null_count"] + st.null_count if st.has_null_count else None
            if st.has_min_max:
                lo_k, hi_k = st.min_raw, st.max_raw
                if st.logical_type.type == "DECIMAL":  # numeric order, unscaled integers
                    sc = st.logical_type.to_json()
                    scale = json.loads(sc)["scale"]
                    lo_k, hi_k = int(st.min.scaleb(scale)), int(st.max.scaleb(scale))
                if e["min"] is None or lo_k < e["min"]:
                    e["min"] = lo_k
                if e["max"] is None or hi_k > e["max"]:
                    e["max"] = hi_k
            elif col.num_values > (st.null_count or 0):
                e["all_min_max"] = False
    for e in cols.values():
        e["min"], e["max"] = raw(e["min"]), raw(e["max"])
    return {"num_rows": md.num_rows, "num_row_groups": md.num_row_groups, "split_offsets": sorted(splits), "created_by": md.created_by, "columns": cols, "size": os.path.getsize(path)}


def main() -> None:
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    t = rows_table()
    facts: dict = {}

    def pq_write(name, table, **kw):
        p = os.path.join(out, name)
        pq.write_table(table, p, **kw)
        facts[name] = parquet_facts(p)

    pq_write("basic.parquet", t, row_group_size=300)
    pq_write("dec_int.parquet", t.select(["id", "amount", "name"]), row_group_size=400, store_decimal_as_integer=True, compression="snappy")
    pq_write("int96.parquet", t.select(["id", "ts_us", "name"]), use_deprecated_int96_timestamps=True)
    # Iceberg-style field ids under names the table schema does not use (ids must win over names),
    # plus unsigned integers (UINT_8/UINT_32/UINT_64: unsigned order → no bounds).
    def fid(name, typ, i):
        return pa.field(name, typ, metadata={b"PARQUET:field_id": str(i).encode()})
    ids_schema = pa.schema([fid("renamed_id", pa.int64(), 1), fid("u8", pa.uint8(), 2), fid("u32", pa.uint32(), 3),
                            fid("u64", pa.uint64(), 4), fid("who", pa.string(), 5)])
    pq_write("ids_unsigned.parquet", pa.table({
        "renamed_id": pa.array(range(N), pa.int64()),
        "u8": pa.array([None if i % 9 == 0 else 250 - (i % 5) for i in range(N)], pa.uint8()),
        "u32": pa.array([2**32 - 1 - i for i in range(N)], pa.uint32()),
        "u64": pa.array([2**64 - 1 - i for i in range(N)], pa.uint64()),
        "who": pa.array([None if i % 4 == 0 else f"w{i:04d}" for i in range(N)], pa.string()),
    }, schema=ids_schema), row_group_size=600)
    # A footer well over the 64 KiB first read: 400 columns with long names and statistics.
    wide = pa.table({f"column_with_a_rather_long_name_to_grow_the_footer_{i:04d}": pa.array([f"v{i}-{j}" * 3 for j in range(50)]) for i in range(400)})
    pq_write("bigfooter.parquet", wide)
    with open(os.path.join(out, "bigfooter.parquet"), "rb") as fh:
        data = fh.read()
    facts["bigfooter.parquet"]["footer_length"] = int.from_bytes(data[-8:-4], "little")
    # Truncated: the last 100 bytes cut off (no PAR1 at the end).
    with open(os.path.join(out, "truncated.parquet"), "wb") as fh:
        with open(os.path.join(out, "basic.parquet"), "rb") as src:
            fh.write(src.read()[:-100])
    # Magic intact, footer length pointing past the start.
    with open(os.path.join(out, "badlen.parquet"), "wb") as fh:
        fh.write(b"PAR1" + b"\0" * 20 + (10**6).to_bytes(4, "little") + b"PAR1")

    flat = pa.concat_tables([t.select(["id", "small", "name", "d", "flag", "dbl"])] * 30)
    for codec in ["zlib", "snappy", "uncompressed", "zstd"]:
        name = f"{codec}.orc"
        p = os.path.join(out, name)
        orc.write_table(flat, p, compression=codec, stripe_size=16 * 1024)
        f = orc.ORCFile(p)
        facts[name] = {"num_rows": f.nrows, "nstripes": f.nstripes, "compression": f.compression, "size": os.path.getsize(p)}
    # Expected ORC column stats, from the data itself.
    import pyarrow.compute as pc
    facts["orc_columns"] = {}
    for name in ["id", "small", "name", "d", "dbl", "flag"]:
        col = flat.column(name)
        mm = pc.min_max(col)
        facts["orc_columns"][name] = {"nulls": col.null_count, "values": len(col) - col.null_count,
                                       "min": raw(mm["min"].as_py() if name != "d" else (mm["min"].as_py() - dt.date(1970, 1, 1)).days),
                                       "max": raw(mm["max"].as_py() if name != "d" else (mm["max"].as_py() - dt.date(1970, 1, 1)).days)}

    schema = {"type": "record", "name": "r", "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": ["null", "string"]}]}
    rows = [{"id": i, "name": None if i % 5 == 0 else f"n{i}"} for i in range(2345)]
    with open(os.path.join(out, "rows.avro"), "wb") as fh:
        fh.write(container(schema, rows, sync=bytes(range(16)), block_rows=100))
    facts["rows.avro"] = {"num_rows": len(rows), "size": os.path.getsize(os.path.join(out, "rows.avro"))}
    json.dump(facts, sys.stdout)


if __name__ == "__main__":
    main()
