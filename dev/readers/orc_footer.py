"""Rewrite the type of an ORC file's column in its footer (pure; dev tooling).

pyarrow's ORC writer has no char(n) / varchar(n) (Arrow has no such types); Hive writes them as the
ORC kinds CHAR / VARCHAR with a maximumLength, over exactly the streams and encodings of a STRING
column. So the reader-matrix generator writes a string column and re-types it in the footer: a
minimal protobuf codec (fields kept in wire order, so everything else re-encodes byte for byte), the
footer decompressed from its chunks and written back as "original" (uncompressed) chunks, which every
ORC reader accepts in a compressed file, and the PostScript's footerLength updated.
Spec: ORC v1 file tail (orc_proto.proto: PostScript, Footer, Type); protobuf wire format.
"""
from __future__ import annotations

import zlib
from typing import Any, List, Tuple

VARINT, I64, LEN, I32 = 0, 1, 2, 5
KIND = {"string": 7, "varchar": 16, "char": 17, "union": 13, "struct": 12}
COMPRESSION = {0: "none", 1: "zlib", 2: "snappy", 3: "lzo", 4: "lz4", 5: "zstd"}

Field = List[Any]  # [field number, wire type, value]


def _varint(buf: bytes, pos: int) -> Tuple[int, int]:
    shift, out = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, pos
        shift += 7


def _put_varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def decode(buf: bytes) -> List[Field]:
    """A message as [number, wire type, value] fields; LEN values stay bytes (decode nested on demand)."""
    out: List[Field] = []
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == VARINT:
            v, pos = _varint(buf, pos)
        elif wt == I64:
            v, pos = buf[pos : pos + 8], pos + 8
        elif wt == I32:
            v, pos = buf[pos : pos + 4], pos + 4
        elif wt == LEN:
            n, pos = _varint(buf, pos)
            v, pos = buf[pos : pos + n], pos + n
        else:
            raise ValueError(f"protobuf: wire type {wt}")
        out.append([num, wt, v])
    return out


def encode(fields: List[Field]) -> bytes:
    out = bytearray()
    for num, wt, v in fields:
        out += _put_varint(num << 3 | wt)
        if wt == VARINT:
            out += _put_varint(v)
        elif wt == LEN:
            out += _put_varint(len(v)) + v
        else:
            out += v
    return bytes(out)


def get(fields: List[Field], num: int) -> Any:
    return next((f[2] for f in fields if f[0] == num), None)


def put(fields: List[Field], num: int, wt: int, v: Any) -> None:
    for f in fields:
        if f[0] == num:
            f[1], f[2] = wt, v
            return
    fields.append([num, wt, v])


def packed(v: bytes) -> List[int]:
    out, pos = [], 0
    while pos < len(v):
        n, pos = _varint(v, pos)
        out.append(n)
    return out


def _tail(data: bytes) -> Tuple[List[Field], int, int]:
    """The PostScript, where the footer starts, and the footer's length."""
    ps_len = data[-1]
    ps = decode(data[-1 - ps_len : -1])
    footer_len = get(ps, 1)
    return ps, len(data) - 1 - ps_len - footer_len, footer_len


def _unchunk(raw: bytes, codec: str) -> bytes:
    if codec == "none":
        return raw
    out, pos = bytearray(), 0
    while pos < len(raw):
        h = raw[pos] | raw[pos + 1] << 8 | raw[pos + 2] << 16
        n, original = h >> 1, h & 1
        chunk = raw[pos + 3 : pos + 3 + n]
        if not original and codec != "zlib":
            raise ValueError(f"ORC footer compressed with {codec}: only zlib (or none) is rewritten here")
        out += chunk if original else zlib.decompress(chunk, -15)
        pos += 3 + n
    return bytes(out)


def _chunk(msg: bytes, codec: str, block: int) -> bytes:
    if codec == "none":
        return msg
    out = bytearray()
    for i in range(0, len(msg), block):
        part = msg[i : i + block]
        h = len(part) << 1 | 1  # original: stored uncompressed
        out += bytes([h & 0xFF, h >> 8 & 0xFF, h >> 16 & 0xFF]) + part
    return bytes(out)


def footer(data: bytes) -> List[Field]:
    ps, start, n = _tail(data)
    return decode(_unchunk(data[start : start + n], COMPRESSION[get(ps, 2) or 0]))


def column_type(fmd: List[Field], column: str) -> Tuple[int, List[Field]]:
    """The index into Footer.types and the Type message of a top-level column."""
    types = [f for f in fmd if f[0] == 4]
    root = decode(types[0][2])
    names = [f[2].decode() for f in root if f[0] == 3]
    subs = [x for f in root if f[0] == 2 for x in (packed(f[2]) if f[1] == LEN else [f[2]])]
    i = subs[names.index(column)]
    return i, decode(types[i][2])


def retype(data: bytes, column: str, kind: str, max_length: int) -> bytes:
    """The file with `column` (a STRING) declared as CHAR or VARCHAR(max_length)."""
    ps, start, n = _tail(data)
    codec = COMPRESSION[get(ps, 2) or 0]
    fmd = decode(_unchunk(data[start : start + n], codec))
    i, t = column_type(fmd, column)
    if get(t, 1) != KIND["string"]:
        raise ValueError(f"ORC column {column} is kind {get(t, 1)}, not STRING")
    put(t, 1, VARINT, KIND[kind])
    put(t, 4, VARINT, max_length)
    types = [f for f in fmd if f[0] == 4]
    types[i][2] = encode(t)
    new_footer = _chunk(encode(fmd), codec, get(ps, 3) or 262144)
    put(ps, 1, VARINT, len(new_footer))
    new_ps = encode(ps)
    if len(new_ps) > 255:
        raise ValueError("ORC PostScript over 255 bytes")
    return data[:start] + new_footer + new_ps + bytes([len(new_ps)])
