"""The reader-matrix cases: per encoding key, the Hive columns, the rows of each file (two files with
disjoint ranges), how a file is written, how its footer proves the key, and the predicates. Dev tooling.
"""
from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import io
import json
import struct
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq

import thrift_compact as tc
from avro_writer import _bytes, _long  # the seed's Avro binary encoding

D = decimal.Decimal
decimal.getcontext().prec = 80  # 38-digit decimals scale exactly
Row = Dict[str, Any]

# Parquet thrift enums (parquet.thrift).
INT32, INT64, INT96, DOUBLE, BYTE_ARRAY, FLBA = 1, 2, 3, 5, 6, 7
CODECS = {"uncompressed": 0, "snappy": 1, "gzip": 2, "brotli": 4, "lz4": 5, "zstd": 6, "lz4_raw": 7}
ENC = {"PLAIN": 0, "PLAIN_DICTIONARY": 2, "RLE": 3, "DELTA_BINARY_PACKED": 5, "DELTA_LENGTH_BYTE_ARRAY": 6, "DELTA_BYTE_ARRAY": 7,
       "RLE_DICTIONARY": 8, "BYTE_STREAM_SPLIT": 9}


class GenError(Exception):
    pass


def need(cond: bool, what: str) -> None:
    if not cond:
        raise GenError(what)


@dataclass
class Pred:
    column: str
    op: str  # '>', '<', '=', 'is_null'
    literal: Optional[str]
    type: str

    def matches(self, v: Any, lit: Any) -> bool:
        if self.op == "is_null":
            return v is None
        if v is None:
            return False
        return {">": v > lit, "<": v < lit, "=": v == lit}[self.op]

    def to_json(self, rows: List[Row]) -> Dict[str, Any]:
        lit = typed(self.type, self.literal)
        return {"column": self.column, "op": self.op, "literal": self.literal, "type": self.type,
                "expected": sum(1 for r in rows if self.matches(r[self.column], lit))}


def typed(t: str, s: Optional[str]) -> Any:
    if s is None:
        return None
    if t == "timestamp":
        return dt.datetime.fromisoformat(s)
    if t == "timestamp with local time zone":
        return dt.datetime.fromisoformat(s).replace(tzinfo=dt.timezone.utc)
    if t == "date":
        return dt.date.fromisoformat(s)
    if t.startswith("decimal"):
        return D(s)
    if t in ("int", "bigint", "smallint", "tinyint"):
        return int(s)
    if t == "double":
        return float(s)
    return s


@dataclass
class Case:
    key: str
    fmt: str
    columns: List[Tuple[str, str]]
    files: List[List[Row]]
    write: Callable[[List[Row], int], bytes]
    verify: Callable[[bytes], None]
    predicates: List[Pred]
    params: Dict[str, str] = field(default_factory=dict)
    hive_row: Callable[[Row], Row] = lambda r: r


# ---------- footer helpers ----------

def footer(data: bytes) -> Tuple[list, list]:
    fmd, _ = tc.read_footer(data)
    return fmd, tc.get(fmd, 2)[1]


def elem(schema: list, name: str) -> list:
    for s in schema:
        if tc.get(s, 4) == name.encode():
            return s
    raise GenError(f"no schema element {name}")


def chunks(fmd: list) -> List[list]:
    out = []
    for rg in tc.get(fmd, 4)[1]:
        for cc in tc.get(rg, 1)[1]:
            out.append(tc.get(cc, 3))
    return out


def chunk_of(fmd: list, path: Sequence[str]) -> list:
    for md in chunks(fmd):
        if [p.decode() for p in tc.get(md, 3)[1]] == list(path):
            return md
    raise GenError(f"no column chunk {'.'.join(path)}")


def page_type(data: bytes, md: list) -> int:
    hdr, _ = tc.decode_struct(data, tc.get(md, 9))
    return tc.get(hdr, 1)


def logical(s: list) -> Optional[int]:
    lt = tc.get(s, 10)
    return None if lt is None else lt[0][0]


def rename_paths(fmd: list, mapping: Callable[[List[bytes]], List[bytes]]) -> None:
    for md in chunks(fmd):
        paths = tc.get(md, 3)
        tc.put(md, 3, tc.LIST, [tc.BINARY, mapping(paths[1])])


def pq_bytes(table: pa.Table, **kw: Any) -> bytes:
    buf = io.BytesIO()
    kw.setdefault("compression", "snappy")
    pq.write_table(table, buf, store_schema=False, **kw)
    return buf.getvalue()


# ---------- values ----------

TS_FILES = [
    [{"id": 1, "v": dt.datetime(1960, 3, 1, 1, 2, 3, 123000)}, {"id": 2, "v": dt.datetime(2024, 6, 1)},
     {"id": 3, "v": dt.datetime(2024, 6, 2, 12, 30, 0, 500000)}, {"id": 4, "v": None}],
    [{"id": 5, "v": dt.datetime(2024, 6, 5, 8)}, {"id": 6, "v": dt.datetime(2040, 2, 29, 23, 59, 59, 999000)},
     {"id": 7, "v": dt.datetime(2100, 1, 1)}, {"id": 8, "v": None}],
]
TS_PREDS = [Pred("v", ">", "2024-06-04 00:00:00", "timestamp"), Pred("v", "<", "1970-01-01 00:00:00", "timestamp")]


def ts_case(key: str, unit: str, utc: bool, int96: bool = False, converted_only: bool = False) -> Case:
    def write(rows: List[Row], _: int) -> bytes:
        vals = [r["v"] for r in rows]
        if utc:
            vals = [None if v is None else v.replace(tzinfo=dt.timezone.utc) for v in vals]
        t = pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()),
                      "v": pa.array(vals, pa.timestamp(unit, tz="UTC" if utc else None))})
        data = pq_bytes(t, use_deprecated_int96_timestamps=int96, coerce_timestamps=None if int96 or unit == "ns" else unit)
        if converted_only:
            fmd, schema = footer(data)
            tc.drop(elem(schema, "v"), 10)
            data = tc.replace_footer(data, fmd)
        return data

    def verify(data: bytes) -> None:
        fmd, schema = footer(data)
        v = elem(schema, "v")
        if int96:
            need(tc.get(v, 1) == INT96, f"{key}: v is not INT96")
            return
        need(tc.get(v, 1) == INT64, f"{key}: v is not INT64")
        lt = tc.get(v, 10)
        conv = {"ms": 9, "us": 10}.get(unit)
        if converted_only:
            need(lt is None and tc.get(v, 6) == conv, f"{key}: expected converted type {conv} only, got {lt} / {tc.get(v, 6)}")
            return
        need(lt is not None and lt[0][0] == 8, f"{key}: no TIMESTAMP logical type")
        ts = lt[0][2]
        need(tc.get(ts, 1) == utc, f"{key}: isAdjustedToUTC is {tc.get(ts, 1)}")
        need(tc.get(ts, 2)[0][0] == {"ms": 1, "us": 2, "ns": 3}[unit], f"{key}: wrong unit {tc.get(ts, 2)}")

    return Case(key, "parquet", [("id", "int"), ("v", "timestamp")], TS_FILES, write, verify, TS_PREDS)


def simple_case(key: str, hive: str, arrow: pa.DataType, files: List[List[Row]], preds: List[Pred],
                check: Callable[[bytes, list, list], None], write_kw: Optional[Dict[str, Any]] = None,
                to_arrow: Callable[[Any], Any] = lambda v: v, rewrite: Optional[Callable[[list, list], None]] = None,
                hive_row: Callable[[Row], Row] = lambda r: r) -> Case:
    def write(rows: List[Row], _: int) -> bytes:
        t = pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()),
                      "v": pa.array([None if r["v"] is None else to_arrow(r["v"]) for r in rows], arrow)})
        data = pq_bytes(t, **(write_kw or {}))
        if rewrite:
            fmd, schema = footer(data)
            rewrite(fmd, schema)
            data = tc.replace_footer(data, fmd)
        return data

    def verify(data: bytes) -> None:
        fmd, schema = footer(data)
        check(data, fmd, schema)

    return Case(key, "parquet", [("id", "int"), ("v", hive)], files, write, verify, preds, hive_row=hive_row)


def two(vals0: List[Any], vals1: List[Any]) -> List[List[Row]]:
    return [[{"id": i + 1, "v": v} for i, v in enumerate(vals0)],
            [{"id": len(vals0) + i + 1, "v": v} for i, v in enumerate(vals1)]]


def phys_check(key: str, ptype: int, lt: Optional[int] = None, conv: Optional[int] = None) -> Callable[[bytes, list, list], None]:
    def check(_: bytes, fmd: list, schema: list) -> None:
        v = elem(schema, "v")
        need(tc.get(v, 1) == ptype, f"{key}: physical type {tc.get(v, 1)} != {ptype}")
        if lt is not None:
            need(logical(v) == lt, f"{key}: logical type {logical(v)} != {lt}")
        if conv is not None:
            need(tc.get(v, 6) == conv, f"{key}: converted type {tc.get(v, 6)} != {conv}")
    return check


def decimal_case(key: str, prec: int, scale: int, ptype: int, as_int: bool) -> Case:
    q = D(1).scaleb(-scale)
    mx = D("9" * prec).scaleb(-scale)
    files = two([-mx, D("0").quantize(q), D("123.45").quantize(q), None], [D("5000").quantize(q), mx, D("1000.01").quantize(q), None])
    return simple_case(key, f"decimal({prec},{scale})", pa.decimal128(prec, scale), files,
                       [Pred("v", ">", "1000", f"decimal({prec},{scale})"), Pred("v", "<", "0", f"decimal({prec},{scale})")],
                       phys_check(key, ptype, 5, 5), {"store_decimal_as_integer": as_int})


def decimal_binary_case() -> Case:
    key, prec, scale = "parquet.decimal.binary", 20, 4
    q = D(1).scaleb(-scale)
    mx = D("9" * prec).scaleb(-scale)
    files = two([-mx, D("0").quantize(q), D("123.45").quantize(q), None], [D("5000").quantize(q), mx, D("1000.01").quantize(q), None])

    def unscaled(v: D) -> bytes:
        n = int(v.scaleb(scale))
        size = max(1, (n.bit_length() + 8) // 8)
        return n.to_bytes(size, "big", signed=True)

    def rewrite(fmd: list, schema: list) -> None:
        v = elem(schema, "v")
        tc.put(v, 6, tc.I32, 5)
        tc.put(v, 7, tc.I32, scale)
        tc.put(v, 8, tc.I32, prec)
        tc.put(v, 10, tc.STRUCT, [[5, tc.STRUCT, [[1, tc.I32, scale], [2, tc.I32, prec]]]])

    # No statistics: pyarrow would order the two's-complement bytes as unsigned strings.
    return simple_case(key, f"decimal({prec},{scale})", pa.binary(), files,
                       [Pred("v", ">", "1000", f"decimal({prec},{scale})"), Pred("v", "<", "0", f"decimal({prec},{scale})")],
                       phys_check(key, BYTE_ARRAY, 5, 5), {"write_statistics": False, "use_dictionary": False}, unscaled, rewrite)


def uint_case(bits: int, hive: str) -> Case:
    key = f"parquet.uint.{bits}"
    top = 2 ** bits - 1 if bits < 64 else 2 ** 63 + 12345
    signed_max = 2 ** (bits - 1) - 1
    files = two([0, 1, 7, None], [signed_max + 1, top - 1, top, None])
    lit = str(signed_max)
    return simple_case(key, hive, {8: pa.uint8(), 16: pa.uint16(), 32: pa.uint32(), 64: pa.uint64()}[bits], files,
                       [Pred("v", ">", lit, hive), Pred("v", "<", "5", hive)], phys_check(key, INT32 if bits < 64 else INT64, 10))


STR_FILES = two(["alpha", "beta", "", None], ["omega", "ünïcødé", "zz", None])
STR_PREDS = [Pred("v", ">", "m", "string"), Pred("v", "is_null", None, "string")]


def annotated_string(key: str, lt_id: int, conv: int, hive: str) -> Case:
    def rewrite(_: list, schema: list) -> None:
        v = elem(schema, "v")
        tc.put(v, 6, tc.I32, conv)
        tc.put(v, 10, tc.STRUCT, [[lt_id, tc.STRUCT, []]])

    files = STR_FILES
    preds = STR_PREDS
    to_arrow: Callable[[Any], Any] = lambda s: s
    arrow = pa.string()
    if hive == "binary":  # BSON: Hive reads the bytes
        files = two([b"\x05\x00\x00\x00\x00", b"\x0c\x00\x00\x00\x10a\x00\x01\x00\x00\x00\x00", None, b"\x05\x00\x00\x00\x00"],
                    [None, b"\x0c\x00\x00\x00\x10b\x00\x02\x00\x00\x00\x00", b"\x05\x00\x00\x00\x00", None])
        preds = [Pred("v", "is_null", None, "binary")]
        arrow = pa.binary()
    if lt_id == 12:  # JSON documents
        files = two(['{"a":1}', "[]", '"s"', None], ['{"z":[1,2]}', "null", '{"ü":"x"}', None])
        preds = [Pred("v", ">", "[", "string"), Pred("v", "is_null", None, "string")]
    return simple_case(key, hive, arrow, files, preds, phys_check(key, BYTE_ARRAY, lt_id, conv), to_arrow=to_arrow, rewrite=rewrite)


# ---------- nested ----------

LIST_FILES = two([[1, 2], [], None, [None, 3]], [[10], [20, 21, 22], None, []])
LIST_FILES_REQ = two([[1, 2], [], None, [4, 3]], [[10], [20, 21, 22], None, []])


def names_in(schema: list) -> List[str]:
    return [tc.get(s, 4).decode() for s in schema]


def list_case(key: str, compliant: bool, layout: str) -> Case:
    files = LIST_FILES if layout in ("element", "item", "bag") else LIST_FILES_REQ
    elem_nullable = layout in ("element", "item", "bag")

    def write(rows: List[Row], _: int) -> bytes:
        typ = pa.list_(pa.field("element" if compliant else "item", pa.int32(), nullable=elem_nullable))
        t = pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()), "v": pa.array([r["v"] for r in rows], typ)})
        data = pq_bytes(t, use_compliant_nested_type=compliant)
        fmd, schema = footer(data)
        if layout == "bag":
            tc.put(elem(schema, "list"), 4, tc.BINARY, b"bag")
            tc.put(elem(schema, "item"), 4, tc.BINARY, b"array_element")
            rename_paths(fmd, lambda p: [b"v", b"bag", b"array_element"] if p[0] == b"v" else p)
        elif layout == "array":
            # optional group v (LIST) { repeated int32 array }: the same levels as a required element.
            i = names_in(schema).index("list")
            rep = schema[i]
            el = schema[i + 1]
            tc.put(el, 3, tc.I32, tc.get(rep, 3))
            tc.put(el, 4, tc.BINARY, b"array")
            del schema[i]
            rename_paths(fmd, lambda p: [b"v", b"array"] if p[0] == b"v" else p)
        return tc.replace_footer(data, fmd)

    def verify(data: bytes) -> None:
        fmd, schema = footer(data)
        want = {"element": ["v", "list", "element"], "item": ["v", "list", "item"], "bag": ["v", "bag", "array_element"],
                "array": ["v", "array"]}[layout]
        names = names_in(schema)
        need(names[-len(want):] == want, f"{key}: schema names {names}")
        need(tc.get(elem(schema, "v"), 6) == 3, f"{key}: v is not annotated LIST")
        chunk_of(fmd, want)

    return Case(key, "parquet", [("id", "int"), ("v", "array<int>")], files, write, verify,
                [Pred("id", ">", "4", "int")])


def list_struct_case(key: str, compliant: bool) -> Case:
    """3-level list of struct: `list`/`element` (compliant) or `list`/`item`; a NULL list, an empty one, NULL elements."""
    files = two([[{"a": 1, "b": "x"}, None], [], None, [{"a": None, "b": "y"}]],
                [[{"a": 10, "b": "z"}], None, [], [{"a": 11, "b": None}, {"a": 12, "b": "v"}]])
    st = pa.struct([pa.field("a", pa.int32()), pa.field("b", pa.string())])
    el = "element" if compliant else "item"

    def write(rows: List[Row], _: int) -> bytes:
        typ = pa.list_(pa.field(el, st, nullable=True))
        t = pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()), "v": pa.array([r["v"] for r in rows], typ)})
        return pq_bytes(t, use_compliant_nested_type=compliant)

    def verify(data: bytes) -> None:
        fmd, schema = footer(data)
        names = names_in(schema)
        need(names[-5:] == ["v", "list", el, "a", "b"], f"{key}: schema names {names}")
        chunk_of(fmd, ["v", "list", el, "a"])

    return Case(key, "parquet", [("id", "int"), ("v", "array<struct<a:int,b:string>>")], files, write, verify,
                [Pred("id", ">", "4", "int")])


def list_group_case() -> Case:
    key = "parquet.list.2-level-group"
    files = two([[{"a": 1, "b": "x"}, {"a": None, "b": "y"}], [], None, [{"a": 3, "b": None}]],
                [[{"a": 10, "b": "z"}], None, [], [{"a": 11, "b": "w"}, {"a": 12, "b": "v"}]])
    st = pa.struct([pa.field("a", pa.int32()), pa.field("b", pa.string())])

    def write(rows: List[Row], _: int) -> bytes:
        typ = pa.list_(pa.field("element", st, nullable=False))
        t = pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()), "v": pa.array([r["v"] for r in rows], typ)})
        data = pq_bytes(t)
        fmd, schema = footer(data)
        i = names_in(schema).index("list")
        tc.put(schema[i], 4, tc.BINARY, b"array")
        tc.put(schema[i], 5, tc.I32, 2)
        del schema[i + 1]  # the required `element` group: its fields become the repeated group's
        rename_paths(fmd, lambda p: [b"v", b"array", p[3]] if p[0] == b"v" else p)
        return tc.replace_footer(data, fmd)

    def verify(data: bytes) -> None:
        fmd, schema = footer(data)
        names = names_in(schema)
        need(names[-4:] == ["v", "array", "a", "b"], f"{key}: schema names {names}")
        chunk_of(fmd, ["v", "array", "a"])

    return Case(key, "parquet", [("id", "int"), ("v", "array<struct<a:int,b:string>>")], files, write, verify,
                [Pred("id", ">", "4", "int")])


def map_case(key: str, layout: str) -> Case:
    files = two([[("a", 1), ("b", None)], [], None, [("z", 26)]], [[("k", 10)], None, [("x", 1), ("y", 2)], []])

    def write(rows: List[Row], _: int) -> bytes:
        t = pa.table({"id": pa.array([r["id"] for r in rows], pa.int32()),
                      "v": pa.array([r["v"] for r in rows], pa.map_(pa.string(), pa.int32()))})
        data = pq_bytes(t)
        if layout == "key_value":
            return data
        fmd, schema = footer(data)
        kv = elem(schema, "key_value")
        tc.put(kv, 4, tc.BINARY, b"map")
        if layout == "map-key-value":
            tc.put(kv, 6, tc.I32, 2)
        rename_paths(fmd, lambda p: [b"v", b"map", p[2]] if p[0] == b"v" else p)
        return tc.replace_footer(data, fmd)

    def verify(data: bytes) -> None:
        fmd, schema = footer(data)
        group = "key_value" if layout == "key_value" else "map"
        g = elem(schema, group)
        need(tc.get(elem(schema, "v"), 6) == 1, f"{key}: v is not annotated MAP")
        need((tc.get(g, 6) == 2) == (layout == "map-key-value"), f"{key}: MAP_KEY_VALUE annotation {tc.get(g, 6)}")
        chunk_of(fmd, ["v", group, "key"])

    return Case(key, "parquet", [("id", "int"), ("v", "map<string,int>")], files, write, verify,
                [Pred("id", ">", "4", "int")])
