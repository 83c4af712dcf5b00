"""The reader-matrix cases of pages, encodings and codecs (Parquet), ORC and Avro, and CASES: every
case in core/readers/encodings.ts order. Dev tooling.
"""
from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import io
import json
import struct
from typing import Any, Callable, Dict, List, Optional

import pyarrow as pa
import pyarrow.orc as orc

import orc_footer as of
import thrift_compact as tc
from avro_writer import _bytes, _long
from matrix_cases import (BYTE_ARRAY, CODECS, DOUBLE, ENC, INT32, INT64, STR_FILES, STR_PREDS, TS_FILES, TS_PREDS, Case, Pred, Row, annotated_string, chunk_of,
                          decimal_binary_case, decimal_case, elem, footer, list_case, list_group_case, list_struct_case, map_case, need, page_type, phys_check,
                          pq_bytes, simple_case, ts_case, two, uint_case)

D = decimal.Decimal

# id, a bigint, a string and a double: what the page/encoding/codec keys are measured on.
PLAIN_COLS = [("id", "int"), ("v", "bigint"), ("s", "string"), ("d", "double")]
PLAIN_FILES = [
    [{"id": 1, "v": -(2 ** 40), "s": "apple", "d": -1.5}, {"id": 2, "v": -5, "s": "banana", "d": 0.0},
     {"id": 3, "v": 0, "s": None, "d": None}, {"id": 4, "v": None, "s": "cherry", "d": 2.25}],
    [{"id": 5, "v": 100, "s": "xylophone", "d": 1e10}, {"id": 6, "v": 2 ** 50, "s": "yak", "d": 3.5},
     {"id": 7, "v": None, "s": "zebra", "d": None}, {"id": 8, "v": 2 ** 40 + 7, "s": None, "d": 7.125}],
]
PLAIN_PREDS = [Pred("v", ">", "50", "bigint"), Pred("s", ">", "m", "string")]


def plain_case(key: str, kw: Dict[str, Any], check: Callable[[bytes, list], None]) -> Case:
    def write(rows: List[Row], _: int) -> bytes:
        t = pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()), "v": pa.array([r["v"] for r in rows], pa.int64()),
                      "s": pa.array([r["s"] for r in rows], pa.string()), "d": pa.array([r["d"] for r in rows], pa.float64())})
        return pq_bytes(t, **kw)

    def verify(data: bytes) -> None:
        fmd, _ = footer(data)
        check(data, fmd)

    return Case(key, "parquet", PLAIN_COLS, PLAIN_FILES, write, verify, PLAIN_PREDS)


def encodings_of(fmd: list, col: str) -> List[int]:
    return tc.get(chunk_of(fmd, [col]), 2)[1]


def page_case(key: str, version: str, want: int) -> Case:
    def check(data: bytes, fmd: list) -> None:
        for c in ("v", "s", "d"):
            need(page_type(data, chunk_of(fmd, [c])) == want, f"{key}: {c}'s first data page is type {page_type(data, chunk_of(fmd, [c]))}")
    return plain_case(key, {"data_page_version": version}, check)


def enc_case(key: str, col: str, kw: Dict[str, Any], enc: str) -> Case:
    def check(_: bytes, fmd: list) -> None:
        got = encodings_of(fmd, col)
        need(ENC[enc] in got, f"{key}: {col} encodings {got} lack {enc}")
        if enc == "PLAIN":
            need(not ({2, 8} & set(got)), f"{key}: {col} is dictionary-encoded ({got})")
    return plain_case(key, kw, check)


def codec_case(key: str, codec: str, want: str) -> Case:
    def check(_: bytes, fmd: list) -> None:
        for c in ("v", "s", "d"):
            got = tc.get(chunk_of(fmd, [c]), 4)
            need(got == CODECS[want], f"{key}: {c} codec {got} != {want}")
    return plain_case(key, {"compression": codec}, check)


def lz4_hadoop(data: bytes) -> bytes:
    """An LZ4_RAW file (v1 data pages) re-framed as the LZ4 codec with the Hadoop framing that parquet-mr
    wrote (pyarrow writes only LZ4_RAW now): each page body, one raw LZ4 block, gets the Hadoop block
    header (uncompressed length, compressed length; big-endian), every page header its new size, and
    the chunk and row-group offsets and sizes move with them."""
    fmd, _ = tc.read_footer(data)
    out = bytearray(b"PAR1")
    for rg in tc.get(fmd, 4)[1]:
        rg_start, rg_size = len(out), 0
        for cc in tc.get(rg, 1)[1]:
            need(all(tc.get(cc, f) is None for f in (4, 5, 6, 7)), "lz4 re-framing: the file has page indexes")
            md = tc.get(cc, 3)
            need(tc.get(md, 4) == CODECS["lz4_raw"], "lz4 re-framing: not an LZ4_RAW chunk")
            dict_off, data_off = tc.get(md, 11), tc.get(md, 9)
            pos = dict_off if dict_off is not None else data_off
            end = pos + tc.get(md, 7)
            start = len(out)
            while pos < end:
                new_pos = len(out)
                hdr, body_at = tc.decode_struct(data, pos)
                need(tc.get(hdr, 1) in (0, 2) and tc.get(hdr, 4) is None, f"lz4 re-framing: page type {tc.get(hdr, 1)} or a CRC")
                body = data[body_at : body_at + tc.get(hdr, 3)]
                framed = struct.pack(">II", tc.get(hdr, 2), len(body)) + body
                tc.put(hdr, 3, tc.I32, len(framed))
                out += tc.encode_struct(hdr) + framed
                if pos == data_off:
                    tc.put(md, 9, tc.I64, new_pos)
                if pos == dict_off:
                    tc.put(md, 11, tc.I64, new_pos)
                pos = body_at + len(body)
            tc.put(md, 4, tc.I32, CODECS["lz4"])
            tc.put(md, 7, tc.I64, len(out) - start)
            if tc.get(cc, 2) is not None:
                tc.put(cc, 2, tc.I64, start)
            rg_size += len(out) - start
        if tc.get(rg, 5) is not None:
            tc.put(rg, 5, tc.I64, rg_start)
        if tc.get(rg, 6) is not None:
            tc.put(rg, 6, tc.I64, rg_size)
    enc = tc.encode_struct(fmd)
    return bytes(out) + enc + struct.pack("<I", len(enc)) + b"PAR1"


def lz4_hadoop_case() -> Case:
    c = codec_case("parquet.codec.lz4", "lz4_raw", "lz4")
    write = c.write
    c.write = lambda rows, i: lz4_hadoop(write(rows, i))
    return c


# ---------- ORC ----------

ORC_KINDS = {"timestamp": 9, "decimal": 14, "string": 7, "timestamp_instant": 18}


def utc_row(r: Row) -> Row:
    """Hive's `timestamp with local time zone` is an instant: what it reads is the UTC value with its zone."""
    return {**r, "v": None if r["v"] is None else r["v"].replace(tzinfo=dt.timezone.utc)}


def orc_case(key: str, compression: str, hive: List[Any], files: List[List[Row]], arrow: Dict[str, pa.DataType], preds: List[Pred],
             check: Optional[Callable[[Any], None]] = None, to_arrow: Callable[[str, Any], Any] = lambda c, v: v,
             hive_row: Callable[[Row], Row] = lambda r: r, post: Callable[[bytes], bytes] = lambda b: b,
             check_bytes: Optional[Callable[[bytes], None]] = None) -> Case:
    def write(rows: List[Row], _: int) -> bytes:
        t = pa.table({c: pa.array([None if r[c] is None else to_arrow(c, r[c]) for r in rows], typ) for c, typ in arrow.items()})
        buf = io.BytesIO()
        orc.write_table(t, buf, compression=compression)
        return post(buf.getvalue())

    def verify(data: bytes) -> None:
        f = orc.ORCFile(io.BytesIO(data))
        need(f.compression.lower() == {"uncompressed": "uncompressed"}.get(compression, compression),
             f"{key}: compression {f.compression} != {compression}")
        if check:
            check(f)
        if check_bytes:
            check_bytes(data)

    return Case(key, "orc", hive, files, write, verify, preds, hive_row=hive_row)


def orc_codec(codec: str, compression: str) -> Case:
    return orc_case(f"orc.codec.{codec}", compression, [("id", "int"), ("v", "bigint"), ("s", "string"), ("d", "double")], PLAIN_FILES,
                    {"id": pa.int32(), "v": pa.int64(), "s": pa.string(), "d": pa.float64()}, PLAIN_PREDS)


def orc_schema_check(key: str, want: str) -> Callable[[Any], None]:
    def check(f: Any) -> None:
        got = str(f.schema.field("v").type)
        need(got.startswith(want), f"{key}: ORC column v reads as {got}, not {want}")
    return check


# liborc (pyarrow's ORC writer) stores a pre-1970 timestamp with a fraction as negative nanos, which
# Java ORC readers (Hive's) read one second early and Trino rejects: the ORC cases keep pre-1970
# values to whole seconds, so the file is what Hive writes.
ORC_TS_FILES = [[{**r, "v": r["v"].replace(microsecond=0)} if r["v"] is not None and r["v"].year < 1970 else r for r in f] for f in TS_FILES]
ORC_TSTZ_PREDS = [Pred("v", ">", "2024-06-04 00:00:00", "timestamp with local time zone"),
                  Pred("v", "<", "1970-01-01 00:00:00", "timestamp with local time zone")]


def orc_kind_check(key: str, kind: str, max_length: Optional[int] = None) -> Callable[[bytes], None]:
    def check(data: bytes) -> None:
        _, t = of.column_type(of.footer(data), "v")
        need(of.get(t, 1) == of.KIND[kind], f"{key}: ORC column v is kind {of.get(t, 1)}, not {kind}")
        need(max_length is None or of.get(t, 4) == max_length, f"{key}: maximumLength {of.get(t, 4)} != {max_length}")
    return check


def orc_strings() -> List[Case]:
    """char(n) as Hive's ORC writer stores it (padded to n: readers return the padding), varchar(n), and a
    uniontype (Iceberg has no union type: the tool refuses it; the row records that refusal)."""
    n = 10
    chars = two(["alpha", "beta", "", None], ["omega", "ünïcødé", "zz", None])
    chars = [[{**r, "v": None if r["v"] is None else r["v"].ljust(n)} for r in f] for f in chars]
    arrow = {"id": pa.int32(), "v": pa.string()}
    def union_write(rows: List[Row], _: int) -> bytes:
        ids = pa.array([r["id"] for r in rows], pa.int32())
        tags = pa.array([0 if isinstance(r["v"], int) else 1 for r in rows], pa.int8())
        ints = pa.array([r["v"] if isinstance(r["v"], int) else None for r in rows], pa.int32())
        strs = pa.array([r["v"] if isinstance(r["v"], str) else None for r in rows], pa.string())
        buf = io.BytesIO()
        orc.write_table(pa.table({"id": ids, "v": pa.UnionArray.from_sparse(tags, [ints, strs])}), buf, compression="zlib")
        return buf.getvalue()

    union = orc_case("orc.type.union", "zlib", [("id", "int"), ("v", "uniontype<int,string>")], two([1, "a", 3, "b"], ["z", 7, "y", 9]),
                     arrow, [Pred("id", ">", "4", "int")], check_bytes=orc_kind_check("orc.type.union", "union"))
    union.write = union_write
    return [
        orc_case("orc.type.char", "zlib", [("id", "int"), ("v", f"char({n})")], chars, arrow, STR_PREDS,
                 post=lambda b: of.retype(b, "v", "char", n), check_bytes=orc_kind_check("orc.type.char", "char", n)),
        orc_case("orc.type.varchar", "zlib", [("id", "int"), ("v", f"varchar({n})")], STR_FILES, arrow, STR_PREDS,
                 post=lambda b: of.retype(b, "v", "varchar", n), check_bytes=orc_kind_check("orc.type.varchar", "varchar", n)),
        union,
    ]


def orc_types() -> List[Case]:
    q = D("0.001")
    dec = two([D("-999999999999999.999"), D("0").quantize(q), D("1.5").quantize(q), None],
              [D("5000").quantize(q), D("999999999999999.999"), D("1000.001"), None])
    utc = lambda c, v: v.replace(tzinfo=dt.timezone.utc) if isinstance(v, dt.datetime) else v  # noqa: E731
    return [
        orc_case("orc.type.timestamp", "zlib", [("id", "int"), ("v", "timestamp")], ORC_TS_FILES, {"id": pa.int32(), "v": pa.timestamp("ns")},
                 TS_PREDS, orc_schema_check("orc.type.timestamp", "timestamp[ns]")),
        orc_case("orc.type.timestamp-local-tz", "zlib", [("id", "int"), ("v", "timestamp with local time zone")], ORC_TS_FILES,
                 {"id": pa.int32(), "v": pa.timestamp("ns", tz="UTC")}, ORC_TSTZ_PREDS,
                 orc_schema_check("orc.type.timestamp-local-tz", "timestamp[ns, tz="), utc, utc_row),
        orc_case("orc.type.decimal", "zlib", [("id", "int"), ("v", "decimal(18,3)")], dec, {"id": pa.int32(), "v": pa.decimal128(18, 3)},
                 [Pred("v", ">", "1000", "decimal(18,3)"), Pred("v", "<", "0", "decimal(18,3)")], orc_schema_check("orc.type.decimal", "decimal128(18, 3)")),
    ]


# ---------- Avro ----------

def avro_value(t: Any, v: Any) -> bytes:
    if isinstance(t, list):
        if v is None:
            return _long(t.index("null"))
        i = next(k for k, x in enumerate(t) if x != "null")
        return _long(i) + avro_value(t[i], v)
    lt = t.get("logicalType") if isinstance(t, dict) else None
    if lt == "date":
        return _long((v - dt.date(1970, 1, 1)).days)
    if lt in ("timestamp-millis", "timestamp-micros"):
        us = (v - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
        return _long(us // 1000 if lt == "timestamp-millis" else us)
    if lt == "decimal":
        n = int(v.scaleb(t["scale"]))
        if t["type"] == "fixed":
            return n.to_bytes(t["size"], "big", signed=True)
        return _bytes(n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big", signed=True))
    if t == "int":
        return _long(v)
    raise TypeError(f"avro type {t!r}")


def avro_container(schema: Dict[str, Any], rows: List[Row], sync: bytes) -> bytes:
    meta = {"avro.schema": json.dumps(schema, separators=(",", ":")).encode(), "avro.codec": b"null"}
    out = bytearray(b"Obj\x01") + _long(len(meta))
    for k in sorted(meta):
        out += _bytes(k.encode()) + _bytes(meta[k])
    out += _long(0) + sync
    data = b"".join(avro_value(f["type"], r[f["name"]]) for r in rows for f in schema["fields"])
    out += _long(len(rows)) + _long(len(data)) + data + sync
    return bytes(out)


def avro_case(key: str, vtype: Any, hive: str, files: List[List[Row]], preds: List[Pred]) -> Case:
    schema = {"type": "record", "name": "r", "fields": [{"name": "id", "type": "int"}, {"name": "v", "type": ["null", vtype]}]}

    def write(rows: List[Row], i: int) -> bytes:
        return avro_container(schema, rows, hashlib.sha256(f"{key}:{i}".encode()).digest()[:16])

    def verify(data: bytes) -> None:
        need(data[:4] == b"Obj\x01" and json.dumps(vtype, separators=(",", ":")).encode() in data[:2000], f"{key}: schema not in the header")

    return Case(key, "avro", [("id", "int"), ("v", hive)], files, write, verify, preds,
                params={"avro.schema.literal": json.dumps(schema, separators=(",", ":"))})


def avro_cases() -> List[Case]:
    dates = two([dt.date(1900, 1, 1), dt.date(1969, 12, 31), dt.date(2024, 6, 1), None], [dt.date(2024, 6, 10), dt.date(2500, 1, 1), None, dt.date(2099, 12, 31)])
    q = D("0.01")
    decs = two([D("-9999999999999999.99"), D("0.00"), D("123.45"), None], [D("5000.00"), D("9999999999999999.99"), D("1000.01"), None])
    ts_ms = TS_FILES
    ts_us = [[{**r, "v": None if r["v"] is None else r["v"].replace(microsecond=r["v"].microsecond + (7 if r["v"].microsecond < 999000 else 0))} for r in f]
             for f in TS_FILES]
    dp = [Pred("v", ">", "2024-06-05", "date"), Pred("v", "<", "1970-01-01", "date")]
    cp = [Pred("v", ">", "1000", "decimal(18,2)"), Pred("v", "<", "0", "decimal(18,2)")]
    _ = q
    return [
        avro_case("avro.logical.date", {"type": "int", "logicalType": "date"}, "date", dates, dp),
        avro_case("avro.logical.timestamp-millis", {"type": "long", "logicalType": "timestamp-millis"}, "timestamp", ts_ms, TS_PREDS),
        avro_case("avro.logical.timestamp-micros", {"type": "long", "logicalType": "timestamp-micros"}, "timestamp", ts_us, TS_PREDS),
        avro_case("avro.logical.decimal-bytes", {"type": "bytes", "logicalType": "decimal", "precision": 18, "scale": 2}, "decimal(18,2)", decs, cp),
        avro_case("avro.logical.decimal-fixed", {"type": "fixed", "name": "d18", "size": 8, "logicalType": "decimal", "precision": 18, "scale": 2},
                  "decimal(18,2)", decs, cp),
    ]


def date_case() -> Case:
    files = two([dt.date(1900, 1, 1), dt.date(1969, 12, 31), dt.date(2024, 6, 1), None], [dt.date(2024, 6, 10), dt.date(2500, 1, 1), None, dt.date(2099, 12, 31)])
    return simple_case("parquet.date.int32", "date", pa.date32(), files,
                       [Pred("v", ">", "2024-06-05", "date"), Pred("v", "<", "1970-01-01", "date")], phys_check("parquet.date.int32", INT32, 6, 6))


CASES: List[Case] = [
    ts_case("parquet.ts.int96", "us", False, int96=True),
    ts_case("parquet.ts.int64-millis-utc", "ms", True),
    ts_case("parquet.ts.int64-millis-local", "ms", False),
    ts_case("parquet.ts.int64-micros-utc", "us", True),
    ts_case("parquet.ts.int64-micros-local", "us", False),
    ts_case("parquet.ts.int64-nanos-utc", "ns", True),
    ts_case("parquet.ts.int64-nanos-local", "ns", False),
    ts_case("parquet.ts.converted-millis", "ms", True, converted_only=True),
    ts_case("parquet.ts.converted-micros", "us", True, converted_only=True),
    date_case(),
    decimal_case("parquet.decimal.int32", 9, 2, INT32, True),
    decimal_case("parquet.decimal.int64", 18, 4, INT64, True),
    decimal_case("parquet.decimal.fixed", 38, 10, 7, False),
    decimal_binary_case(),
    uint_case(8, "smallint"),
    uint_case(16, "int"),
    uint_case(32, "bigint"),
    uint_case(64, "bigint"),
    annotated_string("parquet.string.enum", 4, 4, "string"),
    annotated_string("parquet.string.json", 12, 19, "string"),
    annotated_string("parquet.string.bson", 13, 20, "binary"),
    list_case("parquet.list.3-level-element", True, "element"),
    list_case("parquet.list.3-level-item", False, "item"),
    list_struct_case("parquet.list.3-level-element-struct", True),
    list_struct_case("parquet.list.3-level-item-struct", False),
    list_case("parquet.list.3-level-bag", False, "bag"),
    list_case("parquet.list.2-level-array", True, "array"),
    list_group_case(),
    map_case("parquet.map.key_value", "key_value"),
    map_case("parquet.map.map", "map"),
    map_case("parquet.map.map-key-value", "map-key-value"),
    page_case("parquet.page.v1", "1.0", 0),
    page_case("parquet.page.v2", "2.0", 3),
    enc_case("parquet.enc.dictionary", "s", {"use_dictionary": True}, "RLE_DICTIONARY"),
    enc_case("parquet.enc.plain", "s", {"use_dictionary": False}, "PLAIN"),
    enc_case("parquet.enc.delta-binary-packed", "v", {"use_dictionary": False, "column_encoding": {"v": "DELTA_BINARY_PACKED"}}, "DELTA_BINARY_PACKED"),
    enc_case("parquet.enc.delta-length-byte-array", "s", {"use_dictionary": False, "column_encoding": {"s": "DELTA_LENGTH_BYTE_ARRAY"}},
             "DELTA_LENGTH_BYTE_ARRAY"),
    enc_case("parquet.enc.delta-byte-array", "s", {"use_dictionary": False, "column_encoding": {"s": "DELTA_BYTE_ARRAY"}}, "DELTA_BYTE_ARRAY"),
    enc_case("parquet.enc.byte-stream-split", "d", {"use_dictionary": False, "column_encoding": {"d": "BYTE_STREAM_SPLIT"}}, "BYTE_STREAM_SPLIT"),
    codec_case("parquet.codec.uncompressed", "none", "uncompressed"),
    codec_case("parquet.codec.snappy", "snappy", "snappy"),
    codec_case("parquet.codec.gzip", "gzip", "gzip"),
    codec_case("parquet.codec.zstd", "zstd", "zstd"),
    lz4_hadoop_case(),
    codec_case("parquet.codec.lz4-raw", "lz4_raw", "lz4_raw"),
    codec_case("parquet.codec.brotli", "brotli", "brotli"),
    orc_codec("zlib", "zlib"),
    orc_codec("snappy", "snappy"),
    orc_codec("zstd", "zstd"),
    orc_codec("lz4", "lz4"),
    orc_codec("none", "uncompressed"),
    *orc_types(),
    *orc_strings(),
    *avro_cases(),
]

_ = (BYTE_ARRAY, DOUBLE, elem, annotated_string)
