"""The rewrite job's content checksum at any size, with flat driver memory (shipped with the tool).

Definition (canonical.py, unchanged): sha256 over "\\n".join(sorted canonical JSON lines), one line per
row, lines ordered by code point (= UTF-8 byte order = Spark's binary string order). Computed as:
  1. every row → its canonical line, on the executors (Python: rows arrive through Spark's pickler and
     `arrow_like` turns their values into pyarrow's, which canonical.py is written against; flat types
     skip that; no pandas/Arrow needed on the cluster — PySpark's mapInArrow requires pandas);
  2. the lines persisted once (range partitioning samples its input, which would compute them twice),
     range-partitioned on the line into partitions of ~`PARTITION_BYTES` and sorted within each
     (Spark's sort spills; identical lines end in one partition, whatever their number);
  3. each sorted partition run-length encoded on the executors, all partitions in parallel (a line and
     how often it repeats in a row, distinct neighbours packed in ~4 MiB pieces; persisted), then the
     pieces streamed to the driver one partition at a time (toLocalIterator without prefetch), which
     feeds sha256 in order. The driver holds one partition's pieces, never the table.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from canonical import MAX_SAFE_INT, canonical_json, normalize

# canonical_json's encoder, built once (json.dumps with these arguments builds one per call);
# test/unit/rewrite/job-checksum.test.ts checks it equals canonical_json.
_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode
PARTITION_BYTES = 32 << 20
CHUNK_BYTES = 4 << 20


def encode(v: Any) -> str:
    return _ENCODE(v)


def arrow_like(dtype: Any, v: Any) -> Any:
    """A value as pyarrow's to_pylist gives it (what canonical.py was written against): timestamps with
    zone aware in UTC, maps as (key, value) pairs. For rows that reach Python through Spark's pickler."""
    import datetime as dt

    from pyspark.sql import types as T

    if v is None:
        return None
    if isinstance(dtype, T.TimestampType):
        return v.replace(tzinfo=dt.timezone.utc)
    if isinstance(dtype, T.MapType):
        return [(arrow_like(dtype.keyType, k), arrow_like(dtype.valueType, x)) for k, x in v.items()]
    if isinstance(dtype, T.ArrayType):
        return [arrow_like(dtype.elementType, x) for x in v]
    if isinstance(dtype, T.StructType):
        return {f.name: arrow_like(f.dataType, v[f.name]) for f in dtype.fields}
    return v


def _int(v: Any) -> Any:
    return v if v is None or -MAX_SAFE_INT <= v <= MAX_SAFE_INT else str(v)


def _same(v: Any) -> Any:
    return v


def converter(dtype: Any) -> Callable[[Any], Any]:
    """normalize(value) for one column, with the common flat types short-cut (same results)."""
    from pyspark.sql import types as T

    if isinstance(dtype, (T.LongType, T.IntegerType, T.ShortType, T.ByteType)):
        return _int
    if isinstance(dtype, (T.StringType, T.BooleanType)):
        return _same
    return lambda v: normalize(arrow_like(dtype, v))


def _utc() -> None:
    # Spark hands timestamps to Python in the worker's local zone: make that zone UTC.
    os.environ["TZ"] = "UTC"
    time.tzset()


def lines_of_rows(schema: Any) -> Callable[[Iterator[Any]], Iterator[Tuple[str]]]:
    """mapPartitions over pickled Rows → (canonical line,)."""

    def run(rows: Iterator[Any]) -> Iterator[Tuple[str]]:
        _utc()
        fields = [(f.name, converter(f.dataType)) for f in schema.fields]
        for r in rows:
            yield (_ENCODE({name: conv(r[i]) for i, (name, conv) in enumerate(fields)}),)

    return run


# Control characters json.dumps writes as \\u00xx whose hex has letters: Jackson (to_json) writes them upper case.
_HEX_LETTER_CONTROLS = (0x0B, 0x0E, 0x0F, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F)


def native_value(name: str, dtype: Any) -> Any:
    """canonical_json(normalize(v)) of one column as a Spark SQL expression, for the flat types whose
    canonical form Spark writes the same way; None for any other type (then the Python path).
    Integers: a JSON number when |v| <= 2^53-1, else a quoted decimal string; booleans; dates ISO
    (Spark's date-to-string is yyyy-MM-dd, as Python's isoformat for years 1..9999); strings as
    json.dumps(ensure_ascii=False) escapes them: Jackson (to_json) escapes the same characters
    (" \\ and the controls below U+0020, \\b \\t \\n \\f \\r short) but writes \\u00XX in upper case."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    c = F.col("`" + name.replace("`", "``") + "`")
    if isinstance(dtype, (T.LongType, T.IntegerType, T.ShortType, T.ByteType)):
        s = c.cast("string")
        v = F.when(c.between(-MAX_SAFE_INT, MAX_SAFE_INT), s).otherwise(F.concat(F.lit('"'), s, F.lit('"')))
    elif isinstance(dtype, T.BooleanType):
        v = F.when(c, F.lit("true")).otherwise(F.lit("false"))
    elif isinstance(dtype, T.DateType):
        v = F.concat(F.lit('"'), c.cast("string"), F.lit('"'))
    elif isinstance(dtype, T.StringType):
        j = F.to_json(F.struct(c.alias("a")))  # {"a":"…"}: the JSON string is from the 6th character to the last but one
        v = j.substr(F.lit(6), F.length(j) - 6)
        fixed = v
        for code in _HEX_LETTER_CONTROLS:
            up, low = f"{code:04X}", f"{code:04x}"
            # \\u00XX not preceded by an odd number of backslashes (those would be an escaped '\\' then text).
            fixed = F.regexp_replace(fixed, r"(?<!\\)((?:\\\\)*)\\u" + up, r"$1\\u" + low)
        v = F.when(F.instr(v, "\\u00") > 0, fixed).otherwise(v)
    else:
        return None
    return F.when(c.isNull(), F.lit("null")).otherwise(v)


def native_line(schema: Any) -> Any:
    """The whole canonical line as one Spark SQL expression (keys sorted as json.dumps sorts them), or
    None when a column's type is not one native_value handles."""
    from pyspark.sql import functions as F

    parts: List[Any] = []
    for f in sorted(schema.fields, key=lambda f: f.name):
        v = native_value(f.name, f.dataType)
        if v is None:
            return None
        parts += [F.lit(("," if parts else "{") + _ENCODE(f.name) + ":"), v]
    return F.concat(*parts, F.lit("}")) if parts else F.lit("{}")


def canonical_lines(spark: Any, df: Any, native: bool = True) -> Any:
    """A DataFrame of one string column `line`: each row of df as canonical.py's canonical JSON —
    in Spark SQL when every column is of a type native_value handles, else in Python."""
    line = native_line(df.schema) if native else None
    if line is not None:
        return df.select(line.alias("line"))
    return spark.createDataFrame(df.rdd.mapPartitions(lines_of_rows(df.schema)), "line string", verifySchema=False)


def pieces(lines: Iterator[str]) -> Iterator[Tuple[bytes, int, int]]:
    """One sorted partition's lines → pieces (data, repeat, lines): `data` is lines each prefixed with
    "\n" (distinct neighbours packed up to ~CHUNK_BYTES), sent `repeat` times; `lines` lines per copy.
    A line repeated in a row is one piece, however often (flat memory for skewed tables)."""
    blob: List[bytes] = []
    size = 0
    prev: Optional[str] = None
    n = 0
    for line in list_end(lines):
        if line == prev:
            n += 1
            continue
        if prev is not None:
            data = b"\n" + prev.encode("utf-8")
            if n == 1:
                blob.append(data)
                size += len(data)
            if blob and (n > 1 or size >= CHUNK_BYTES or line is None):
                yield (b"".join(blob), 1, len(blob))
                blob, size = [], 0
            if n > 1:
                yield (data, n, 1)
        prev, n = line, 1


def list_end(lines: Iterator[str]) -> Iterator[Optional[str]]:
    """The lines, then None (the end: the last run is flushed)."""
    yield from lines
    yield None


def hash_stream(stream: Iterator[Tuple[bytes, int, int]]) -> Dict[str, Any]:
    """sha256 over the pieces' lines, in order, joined by "\n" (the first line's "\n" dropped)."""
    h = hashlib.sha256()
    rows = 0
    for data, repeat, lines in stream:
        if rows == 0 and repeat > 0:
            h.update(data[1:])
            repeat -= 1
            rows = lines
        for _ in range(repeat):
            h.update(data)
        rows += repeat * lines
    return {"rows": rows, "checksum": h.hexdigest()}


def partitions_for(nbytes: int) -> int:
    return max(1, -(-nbytes // PARTITION_BYTES))


def content_checksum(spark: Any, df: Any, native: bool = True) -> Dict[str, Any]:
    """Rows and canonical.py's checksum of df, streamed in sorted order through the driver."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    lines = canonical_lines(spark, df, native).persist(StorageLevel.DISK_ONLY)
    try:
        stats = lines.agg(F.count(F.lit(1)).alias("n"), F.sum(F.octet_length("line")).alias("b")).collect()[0]
        if stats["n"] == 0:
            return {"rows": 0, "checksum": hashlib.sha256(b"").hexdigest()}
        parts = partitions_for(int(stats["b"]) + int(stats["n"]))
        ordered = lines.repartitionByRange(parts, F.col("line")).sortWithinPartitions(F.col("line"))
        # The pieces of every partition first, in parallel (persisted: they are compact), then streamed
        # to the driver in order: toLocalIterator runs one partition at a time, on one core.
        packed = ordered.rdd.mapPartitions(lambda rows: pieces(r[0] for r in rows)).persist(StorageLevel.DISK_ONLY)
        try:
            packed.count()
            result = hash_stream(packed.toLocalIterator(prefetchPartitions=False))
        finally:
            packed.unpersist()
        if result["rows"] != stats["n"]:
            raise RuntimeError(f"checksum streamed {result['rows']} lines of {stats['n']}")
        return result
    finally:
        lines.unpersist()
