"""Checks of the rewrite job's modules in a local Spark (run by rewrite-job.test.ts through spark-submit).

    spark-submit ... rewrite_job_check.py <jobs dir> <scratch dir>

Prints one JSON line: for each case the job's answer and the reference (canonical.py over the rows as
pyarrow gives them, the verifiers' way), so the test asserts on both.
"""
import datetime as dt
import decimal
import json
import os
import sys

JOBS, SCRATCH = sys.argv[1], sys.argv[2]
sys.path.insert(0, JOBS)
import canonical  # noqa: E402
import rewrite_checksum  # noqa: E402
import rewrite_read  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

spark = SparkSession.builder.getOrCreate()
for m in ("canonical.py", "rewrite_read.py", "rewrite_checksum.py"):
    spark.sparkContext.addPyFile(os.path.join(JOBS, m))
# Tiny partitions and chunks: the range sort, the per-partition stream and the chunking all take part.
rewrite_checksum.PARTITION_BYTES = 2048
rewrite_checksum.CHUNK_BYTES = 300

SCHEMA = T.StructType(
    [
        T.StructField("id", T.LongType()),
        T.StructField("big", T.LongType()),
        T.StructField("s", T.StringType()),
        T.StructField("f", T.DoubleType()),
        T.StructField("r", T.FloatType()),
        T.StructField("d", T.DecimalType(10, 2)),
        T.StructField("day", T.DateType()),
        T.StructField("ts", T.TimestampType()),
        T.StructField("ntz", T.TimestampNTZType()),
        T.StructField("b", T.BinaryType()),
        T.StructField("ok", T.BooleanType()),
        T.StructField("st", T.StructType([T.StructField("a", T.IntegerType()), T.StructField("z", T.ArrayType(T.StringType()))])),
        T.StructField("m", T.MapType(T.StringType(), T.LongType())),
    ]
)


def row(i: int):
    odd = i % 2 == 1
    return (
        i,
        None if i % 7 == 0 else (2**53 + i if odd else -(2**60) - i),
        None if i % 5 == 0 else ["", "ünïcödé 雪", 'quote " back \\ nl \n tab \t', "\u0001ctl", "plain"][i % 5] + str(i % 3),
        [float("nan"), float("inf"), -0.0, 0.1, 1e300][i % 5],
        None if i % 4 == 0 else 0.1 * i,
        None if i % 6 == 0 else decimal.Decimal(f"{i}.{i % 100:02d}"),
        dt.date(2024, 1, 1) + dt.timedelta(days=i),
        None if i % 9 == 0 else dt.datetime(2024, 3, 10, 12, 0, 0, i) + dt.timedelta(hours=i),
        dt.datetime(2020, 2, 29, 23, 59, 59, 999999 - i),
        bytes([i % 256, 0, 255]),
        None if i % 3 == 0 else odd,
        None if i % 8 == 0 else (i, None if i % 2 else ["x", None, "é"]),
        None if i % 10 == 0 else ({} if i % 3 == 0 else {"k2": i, "k1": None, "ä": -i}),
    )


def reference(df) -> dict:
    return {"rows": df.count(), "checksum": canonical.checksum(canonical.canonical_rows(df.toArrow()))}


out = {}
# Specials over several input partitions, with duplicated rows (each twice) and one row 40 times.
rows = [row(i) for i in range(300)] + [row(i) for i in range(0, 300, 2)] + [row(11)] * 40
df = spark.createDataFrame(rows, SCHEMA).repartition(7)
out["specials"] = {"job": rewrite_checksum.content_checksum(spark, df), "reference": reference(df)}
# Flat columns (the Spark SQL path): every control character, quotes, backslashes before "u00..", unicode
# (astral too), U+2028, integers at and past ±(2^53-1), dates from year 1, booleans, NULLs, odd column names.
FLAT = "`id` bigint, `s` string, `n` int, `t` tinyint, `d` date, `ok` boolean, `Zé col` string, `a.b` smallint"
texts = [chr(c) for c in range(0x20)] + ['"', "\\", "\\u001B", "\\\u001b", "\\\\u000B", "/", "\u007f", "\u2028", "é雪😀", "", "x\u001by"]
M = 2**53 - 1
flat = [
    (
        [M, -M, M + 1, -M - 1, 2**63 - 1, -(2**63), 0, None][i % 8],
        None if i % 13 == 0 else texts[i % len(texts)] + texts[(i * 7) % len(texts)],
        None if i % 11 == 0 else [2**31 - 1, -(2**31), 0, 7][i % 4],
        [127, -128, None, 0][i % 4],
        None if i % 6 == 0 else [dt.date(1, 1, 1), dt.date(999, 12, 31), dt.date(9999, 12, 31), dt.date(2024, 2, 29)][i % 4],
        [True, False, None][i % 3],
        texts[(i * 3) % len(texts)],
        None if i % 5 == 0 else i - 100,
    )
    for i in range(240)
]
fdf = spark.createDataFrame(flat, FLAT).repartition(3)
native_lines = sorted(r[0] for r in rewrite_checksum.canonical_lines(spark, fdf, native=True).collect())
python_lines = sorted(r[0] for r in rewrite_checksum.canonical_lines(spark, fdf, native=False).collect())
out["flat"] = {
    "native": rewrite_checksum.content_checksum(spark, fdf, native=True),
    "python": rewrite_checksum.content_checksum(spark, fdf, native=False),
    "reference": reference(fdf),
    "nativePlanned": rewrite_checksum.native_line(fdf.schema) is not None,
    "specialsNative": rewrite_checksum.native_line(SCHEMA) is not None,
    "linesEqual": native_lines == python_lines,
    "differ": [[a, b] for a, b in zip(native_lines, python_lines) if a != b][:5],
}
one = spark.createDataFrame([row(3)], SCHEMA)
out["one"] = {"job": rewrite_checksum.content_checksum(spark, one), "reference": reference(one)}
empty = spark.createDataFrame([], SCHEMA)
out["empty"] = {"job": rewrite_checksum.content_checksum(spark, empty), "reference": reference(empty)}
same = spark.createDataFrame([(1, "x")] * 5000, "a bigint, s string").repartition(3)
out["skew"] = {"job": rewrite_checksum.content_checksum(spark, same), "reference": reference(same)}
# The read-back job's small-sample path (jobs/readback.py sample_checksum): the same definition.
import readback  # noqa: E402

out["sample"] = {k: readback.sample_checksum(spark, d) for k, d in (("specials", df), ("one", one), ("empty", empty), ("skew", same))}

# LazySimpleSerDe text: header line per file, '|' delimiter, \N nulls, empty/short/long lines, CRLF,
# a line equal to the header further down, files in a sub-directory, one file of only its header.
root = os.path.join(SCRATCH, "text")
os.makedirs(os.path.join(root, "sub"), exist_ok=True)
files = {
    "a.txt": "id|name|n\n1|one|10\n2||\\N\n\n3|three\n4|four|40|extra\nid|name|n\n",
    "sub/b.txt": "id|name|n\r\n5|fünf|x\r\n6|six|60\r\n",
    "c.txt": "id|name|n\n",
    "_skipped.txt": "id|name|n\n9|hidden|9\n",
}
for name, body in files.items():
    with open(os.path.join(root, name), "w", encoding="utf-8", newline="") as f:
        f.write(body)
src = {
    "columns": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}, {"name": "n", "type": "int"}],
    "serde": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
    "serdeParams": {"field.delim": "|"},
    "tableParams": {"skip.header.line.count": "1"},
}
native = rewrite_read.read_source(spark, dict(src, locations=[{"location": "file://" + root, "values": []}]))
pickled = rewrite_read.read_text_rows(spark, src, "file://" + root)
key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
out["text"] = {
    "native": sorted((r.asDict() for r in native.collect()), key=key),
    "pickled": sorted((r.asDict() for r in pickled.collect()), key=key),
}
src0 = dict(src, tableParams={}, serdeParams={"field.delim": "44"})  # no header; the delimiter as a byte number
root0 = os.path.join(SCRATCH, "text0")
os.makedirs(root0, exist_ok=True)
with open(os.path.join(root0, "a.csv"), "w", encoding="utf-8") as f:
    f.write("7,seven,70\n8,eight|x,oops\n")
out["text0"] = sorted(
    (r.asDict() for r in rewrite_read.read_source(spark, dict(src0, locations=[{"location": "file://" + root0, "values": []}])).collect()),
    key=key,
)
spark.stop()
print("RESULT " + json.dumps(out, default=str))
