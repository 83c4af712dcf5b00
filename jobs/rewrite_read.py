"""The rewrite job's reader: one Hive table's files as a Spark DataFrame of its columns, read as Hive reads
them (shipped with the tool; jobs/rewrite.py's step 2).

Text (LazySimpleSerDe) is read by Spark's own text source (native, no per-row Python): lines as Hadoop's
TextInputFormat gives them, split on the delimiter and cast in Spark SQL. The header line of each file
(the line at byte offset 0, as Hive skips it) is found by an aggregate over the first split of each
file (`_metadata.file_block_start` = 0, Spark ≥ 3.5) and removed by an anti-join (drop_headers).
`read_text_rows` is the earlier reader (Hadoop's TextInputFormat keyed by offset, split in Python),
kept as the reference the tests compare with.
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional

TEXT_SERDES = ("org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe2")
CSV_SERDE = "org.apache.hadoop.hive.serde2.OpenCSVSerde"
PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
ORC_SERDE = "org.apache.hadoop.hive.ql.io.orc.OrcSerde"
JSON_SERDES = ("org.apache.hive.hcatalog.data.JsonSerDe", "org.apache.hadoop.hive.serde2.JsonSerDe", "org.openx.data.jsonserde.JsonSerDe")


class SpecError(Exception):
    pass


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def ddl(columns: List[Dict[str, str]]) -> str:
    return ", ".join(f"{quote(c['name'])} {c['type']}" for c in columns)


def read_location(spark: Any, src: Dict[str, Any], path: str) -> Any:
    """One location of the source as a DataFrame of the table's columns (in Hive's order)."""
    serde = src.get("serde") or ""
    p = src.get("serdeParams") or {}
    schema = ddl(src["columns"])
    # recursiveFileLookup: data in sub-directories (UNION ALL output, list bucketing); Spark skips _ and . files as Hive does.
    reader = spark.read.option("recursiveFileLookup", "true").schema(schema)
    if serde in TEXT_SERDES:
        return read_text(spark, src, path)
    if serde == CSV_SERDE:
        header = int(src.get("tableParams", {}).get("skip.header.line.count", p.get("skip.header.line.count", "0")) or 0)
        return (
            reader.option("sep", p.get("separatorChar", ","))
            .option("quote", p.get("quoteChar", '"'))
            .option("escape", p.get("escapeChar", "\\"))
            .option("header", "true" if header == 1 else "false")
            .option("mode", "FAILFAST")
            .csv(path)
        )
    if serde in JSON_SERDES:
        return reader.option("mode", "FAILFAST").json(path)
    if serde == PARQUET_SERDE:
        return reader.parquet(path)
    if serde == ORC_SERDE:
        return reader.orc(path)
    raise SpecError(f"serde {serde!r} is not one the rewrite job reads")


def text_params(src: Dict[str, Any]) -> Dict[str, Any]:
    """LazySimpleSerDe's properties as the reader needs them; the ones it cannot honour are refused."""
    p = src.get("serdeParams") or {}
    tp = src.get("tableParams") or {}
    header = int(tp.get("skip.header.line.count", p.get("skip.header.line.count", "0")) or 0)
    if header > 1:
        raise SpecError(f"skip.header.line.count={header}: only 0 or 1 header line is supported")
    if int(tp.get("skip.footer.line.count", "0") or 0) > 0:
        raise SpecError("skip.footer.line.count is not supported")
    if p.get("escape.delim") or p.get("line.delim", "\n") != "\n":
        raise SpecError("escape.delim and a line.delim other than \\n are not supported")
    delim = p.get("field.delim", p.get("serialization.format", "\u0001"))
    if delim.isdigit():  # Hive reads a number as the byte value ("1" = ^A, "44" = ',')
        delim = chr(int(delim))
    return {"header": header, "delim": delim, "null": p.get("serialization.null.format", "\\N")}


def read_text(spark: Any, src: Dict[str, Any], path: str) -> Any:
    """LazySimpleSerDe exactly: lines split on the delimiter (no quoting), the null format → NULL, an
    empty field stays '' for strings, missing trailing fields NULL, extra ones ignored, values cast as
    Hive does (unparseable → NULL: try_cast). With a header line, the frame keeps the columns
    HEADER_KEYS for drop_headers (read_source calls it once over all locations)."""
    from pyspark.sql import functions as F

    tp = text_params(src)
    cols = src["columns"]
    lines = spark.read.option("recursiveFileLookup", "true").text(path)
    keys: List[Any] = []
    if tp["header"] == 1:
        # Lines as Hadoop's LineRecordReader gives them (\n, \r, \r\n), in file order within a split.
        lines = lines.select(
            "value",
            F.col("_metadata.file_path").alias("_hp"),
            F.col("_metadata.file_block_start").alias("_hs"),
            F.monotonically_increasing_id().alias("_hm"),
        )
        keys = [F.col(k) for k in HEADER_KEYS]
    delim = "".join(f"\\x{{{ord(ch):x}}}" for ch in tp["delim"])  # a Java regex matching the delimiter literally
    parts = lines.select(F.split(F.col("value"), delim, -1).alias("_f"), *keys)
    null = F.lit(tp["null"])
    fields = [F.nullif(F.expr(f"try_element_at(_f, {i + 1})"), null).alias(f"_c{i}") for i in range(len(cols))]
    raw = parts.select(*fields, *keys)
    return raw.select(*[F.expr(f"try_cast(_c{i} AS {c['type']})").alias(c["name"]) for i, c in enumerate(cols)], *keys)


HEADER_KEYS = ("_hp", "_hs", "_hm")


def drop_headers(spark: Any, df: Any) -> Any:
    """Without each file's header: the line at byte offset 0 (as Hive's TextInputFormat keys it) is the
    first row of the file's split that starts at 0 — the least monotonically_increasing_id among that
    split's rows (ids rise with the row's place in its partition; a split's rows are contiguous). The
    ids of a file scan follow from its partitioning, the same in both queries: found by one small
    aggregate (a row per file, to the driver), removed by a broadcast anti-join."""
    from pyspark.sql import functions as F

    heads = df.where(F.col("_hs") == 0).groupBy("_hp").agg(F.min("_hm").alias("_hm")).collect()
    if heads:
        found = spark.createDataFrame([(r[0], r[1]) for r in heads], "_hp string, _hm bigint")
        df = df.join(F.broadcast(found), on=["_hp", "_hm"], how="left_anti")
    return df.drop(*HEADER_KEYS)


def read_text_rows(spark: Any, src: Dict[str, Any], path: str) -> Any:
    """read_text without pyarrow: Hadoop's TextInputFormat (lines keyed by byte offset) split in Python."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    tp = text_params(src)
    cols = src["columns"]
    n = len(cols)
    conf = {"mapreduce.input.fileinputformat.input.dir.recursive": "true"}
    lines = spark.sparkContext.newAPIHadoopFile(
        path, "org.apache.hadoop.mapreduce.lib.input.TextInputFormat", "org.apache.hadoop.io.LongWritable", "org.apache.hadoop.io.Text", conf=conf
    )
    delim, null = tp["delim"], tp["null"]

    def split(kv: Any) -> List[Optional[str]]:
        parts = kv[1].split(delim)[:n]
        return [None if v == null else v for v in parts] + [None] * (n - len(parts))

    rows = lines.filter(lambda kv: kv[0] != 0).map(split)
    raw = spark.createDataFrame(rows, T.StructType([T.StructField(f"_c{i}", T.StringType()) for i in range(n)]))
    return raw.select(*[F.expr(f"try_cast(_c{i} AS {c['type']})").alias(c["name"]) for i, c in enumerate(cols)])


def read_source(spark: Any, src: Dict[str, Any]) -> Any:
    from pyspark.sql import functions as F

    keys = src.get("partitionKeys") or []
    frames = []
    for loc in src["locations"]:
        df = read_location(spark, src, loc["location"])
        for k, v in zip(keys, loc.get("values") or []):
            df = df.withColumn(k["name"], F.lit(v).cast(k["type"]))
        frames.append(df)
    if not frames:
        raise SpecError("the spec lists no source location")
    out = frames[0]
    for f in frames[1:]:
        out = out.unionByName(f)
    return drop_headers(spark, out) if HEADER_KEYS[0] in out.columns else out


