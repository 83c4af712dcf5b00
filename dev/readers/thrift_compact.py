"""A generic Thrift compact-protocol codec for Parquet footers and page headers (pure; dev tooling).

A struct decodes to a list of [field id, type, value] in wire order, so it re-encodes byte for byte
and a caller can rename or re-annotate schema elements (names, converted types, logical types) of a
FileMetaData without a generated Thrift module: Parquet data pages carry no names or annotations, so
rewriting the footer is how the reader-matrix generator makes layouts pyarrow no longer writes.
Spec: Thrift's compact protocol (field header = delta << 4 | type, zig-zag varints).
"""
from __future__ import annotations

import struct
from typing import Any, List, Tuple

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12


class Reader:
    def __init__(self, buf: bytes, pos: int = 0) -> None:
        self.buf = buf
        self.pos = pos

    def byte(self) -> int:
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        shift, out = 0, 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, t: int) -> Any:
        if t in (TRUE, FALSE):
            return self.byte() == 1
        if t == BYTE:
            return self.byte()
        if t in (I16, I32, I64):
            return self.zigzag()
        if t == DOUBLE:
            v = struct.unpack("<d", self.buf[self.pos : self.pos + 8])[0]
            self.pos += 8
            return v
        if t == BINARY:
            n = self.varint()
            v = self.buf[self.pos : self.pos + n]
            self.pos += n
            return bytes(v)
        if t in (LIST, SET):
            h = self.byte()
            n, et = h >> 4, h & 0x0F
            if n == 15:
                n = self.varint()
            return [et, [self.value(et) for _ in range(n)]]
        if t == MAP:
            n = self.varint()
            if n == 0:
                return [0, 0, []]
            kv = self.byte()
            kt, vt = kv >> 4, kv & 0x0F
            return [kt, vt, [(self.value(kt), self.value(vt)) for _ in range(n)]]
        if t == STRUCT:
            return self.struct()
        raise ValueError(f"thrift compact: unknown type {t}")

    def struct(self) -> List[List[Any]]:
        fields: List[List[Any]] = []
        last = 0
        while True:
            h = self.byte()
            if h == STOP:
                return fields
            delta, t = h >> 4, h & 0x0F
            fid = last + delta if delta else self.zigzag()
            last = fid
            # A bool field's value is its type nibble; only inside containers does it take a byte.
            v = (t == TRUE) if t in (TRUE, FALSE) else self.value(t)
            fields.append([fid, TRUE if t in (TRUE, FALSE) else t, v])


class Writer:
    def __init__(self) -> None:
        self.out = bytearray()

    def varint(self, n: int) -> None:
        while True:
            b = n & 0x7F
            n >>= 7
            if n:
                self.out.append(b | 0x80)
            else:
                self.out.append(b)
                return

    def zigzag(self, n: int) -> None:
        self.varint((n << 1) ^ (n >> 63))

    def value(self, t: int, v: Any) -> None:
        if t in (TRUE, FALSE):  # inside a container a bool is one byte
            self.out.append(1 if v else 2)
        elif t == BYTE:
            self.out.append(v & 0xFF)
        elif t in (I16, I32, I64):
            self.zigzag(v)
        elif t == DOUBLE:
            self.out += struct.pack("<d", v)
        elif t == BINARY:
            self.varint(len(v))
            self.out += v
        elif t in (LIST, SET):
            et, items = v
            if len(items) < 15:
                self.out.append(len(items) << 4 | et)
            else:
                self.out.append(0xF0 | et)
                self.varint(len(items))
            for x in items:
                self.value(et, x)
        elif t == MAP:
            kt, vt, items = v
            self.varint(len(items))
            if items:
                self.out.append(kt << 4 | vt)
                for k, x in items:
                    self.value(kt, k)
                    self.value(vt, x)
        elif t == STRUCT:
            self.struct(v)
        else:
            raise ValueError(f"thrift compact: unknown type {t}")

    def struct(self, fields: List[List[Any]]) -> None:
        last = 0
        for fid, t, v in sorted(fields, key=lambda f: f[0]):
            wt = t
            if t in (TRUE, FALSE):
                wt = TRUE if v else FALSE
            if 0 < fid - last <= 15:
                self.out.append((fid - last) << 4 | wt)
            else:
                self.out.append(wt)
                self.zigzag(fid)
            last = fid
            if t not in (TRUE, FALSE):
                self.value(t, v)
        self.out.append(STOP)


def decode_struct(buf: bytes, pos: int = 0) -> Tuple[List[List[Any]], int]:
    r = Reader(buf, pos)
    s = r.struct()
    return s, r.pos


def encode_struct(fields: List[List[Any]]) -> bytes:
    w = Writer()
    w.struct(fields)
    return bytes(w.out)


def get(fields: List[List[Any]], fid: int, default: Any = None) -> Any:
    for f in fields:
        if f[0] == fid:
            return f[2]
    return default


def put(fields: List[List[Any]], fid: int, t: int, v: Any) -> None:
    for f in fields:
        if f[0] == fid:
            f[1], f[2] = t, v
            return
    fields.append([fid, t, v])


def drop(fields: List[List[Any]], fid: int) -> None:
    fields[:] = [f for f in fields if f[0] != fid]


def read_footer(data: bytes) -> Tuple[List[List[Any]], int]:
    """The FileMetaData struct of a Parquet file, and where it starts."""
    if data[-4:] != b"PAR1":
        raise ValueError("not a Parquet file")
    n = struct.unpack("<I", data[-8:-4])[0]
    start = len(data) - 8 - n
    fmd, end = decode_struct(data, start)
    if end != len(data) - 8:
        raise ValueError("footer did not decode to its length")
    return fmd, start


def replace_footer(data: bytes, fmd: List[List[Any]]) -> bytes:
    _, start = read_footer(data)
    enc = encode_struct(fmd)
    return data[:start] + enc + struct.pack("<I", len(enc)) + b"PAR1"
