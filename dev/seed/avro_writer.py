"""A minimal Avro object-container writer (null codec) for flat records of primitive types (pure).

Spec: https://avro.apache.org/docs/1.11.1/specification/ ("Object Container Files", "Binary
Encoding"). Supported field types: "int", "long", "double", "boolean", "string", "bytes",
{"type": "int", "logicalType": "date"}, each optionally as ["null", T]. The sync marker comes from
the caller so the bytes are deterministic. Dev tooling (seeded test data only).
"""
from __future__ import annotations

import datetime as dt
import json
import struct
from typing import Any, Dict, List

EPOCH = dt.date(1970, 1, 1)


def _long(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)  # zig-zag
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _bytes(b: bytes) -> bytes:
    return _long(len(b)) + b


def _value(t: Any, v: Any) -> bytes:
    if isinstance(t, list):  # union ["null", T]
        if v is None:
            return _long(t.index("null"))
        idx = next(i for i, x in enumerate(t) if x != "null")
        return _long(idx) + _value(t[idx], v)
    if isinstance(t, dict):
        if t.get("logicalType") == "date":
            return _long((v - EPOCH).days)
        t = t["type"]
    if t in ("int", "long"):
        return _long(int(v))
    if t == "double":
        return struct.pack("<d", float(v))
    if t == "boolean":
        return b"\x01" if v else b"\x00"
    if t == "string":
        return _bytes(v.encode("utf-8"))
    if t == "bytes":
        return _bytes(bytes(v))
    raise TypeError(f"unsupported Avro type {t!r}")


def container(schema: Dict[str, Any], rows: List[Dict[str, Any]], sync: bytes, block_rows: int = 100) -> bytes:
    assert len(sync) == 16
    meta = {"avro.schema": json.dumps(schema, separators=(",", ":")).encode(), "avro.codec": b"null"}
    out = bytearray(b"Obj\x01")
    out += _long(len(meta))
    for k in sorted(meta):
        out += _bytes(k.encode()) + _bytes(meta[k])
    out += _long(0) + sync
    fields = schema["fields"]
    for start in range(0, len(rows), block_rows):
        block = rows[start : start + block_rows]
        data = b"".join(_value(f["type"], r[f["name"]]) for r in block for f in fields)
        out += _long(len(block)) + _long(len(data)) + data + sync
    return bytes(out)
