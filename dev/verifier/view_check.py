#!/usr/bin/env python3
"""Run an Iceberg view in Spark through the REST catalog and the same view's Hive SQL over the Hive
tables' own files, and print ONE JSON line comparing their content checksums (canonical.py).

    view_check.py --catalog-uri URI --s3-endpoint URL --catalog-name NAME --view ns.v
                  --hive-sql SQL --base db.tbl=s3://bucket/dir [--base ...]
                  [--hive-view db.v=SQL ...] [--jars-dir DIR]

The Spark catalog is named NAME: the view's `default-catalog` (the plan's target catalog name), so
the view's two-part table names resolve where the view says. The Iceberg view is read with the
Iceberg SQL extensions (Spark resolves Iceberg views through them). The Hive side: every --base
directory's Parquet files are read with pyarrow and registered as a temp view `tbl` (unique across databases); every
--hive-view (a view the SQL reads, in dependency order) likewise from its own Hive SQL; then
--hive-sql runs with `db`.`tbl` names rewritten to those temp views. Output:
{"view", "iceberg": {rows, checksum}, "hive": {rows, checksum}, "equal", "sparkSql"}.
Dev/test tooling: the verifier venv's python (HIM_VERIFIER_PYTHON), Spark jars from HIM_SPARK_JARS_DIR.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from typing import Any, Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import summary  # noqa: E402
from read_table import aws, spark_session, split_table, stop_session  # noqa: E402
from spark_client import delegate  # noqa: E402


def pair(text: str) -> Tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or "." not in name:
        raise SystemExit(f"expected db.name=value, got {text!r}")
    return name.lower(), value


def to_temp_names(sql: str, names: List[str]) -> str:
    """`db`.`t` / db.t (any case, either quoting) → `t` (its temp view) for every name the Hive side
    registered: the relation keeps its name, so Hive's `t`.`col` references still resolve."""
    for n in names:
        db, t = n.split(".")
        pat = rf"`?{re.escape(db)}`?\s*\.\s*`?{re.escape(t)}`?(?![A-Za-z0-9_])"
        sql = re.sub(pat, f"`{t}`", sql, flags=re.IGNORECASE)
    return sql


def read_parquet_dir(location: str, endpoint: str) -> Any:
    import pyarrow.parquet as pq
    from pyarrow import fs

    a = aws()
    scheme, _, rest = endpoint.partition("://")
    s3 = fs.S3FileSystem(
        endpoint_override=rest, scheme=scheme, access_key=a["key"], secret_key=a["secret"], region=a["region"]
    )
    path = re.sub(r"^s3a?://", "", location).rstrip("/")
    # As Hive reads an unpartitioned table: the files directly in its directory, hidden ones (`.`, `_`)
    # left out; sub-directories (an Iceberg table's metadata/) are not the table's data.
    listing = s3.get_file_info(fs.FileSelector(path, recursive=False))
    files = [f.path for f in listing if f.is_file and f.size > 0 and not f.base_name.startswith((".", "_"))]
    return pq.ParquetDataset(files, filesystem=s3).read()


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--catalog-uri", default=os.environ.get("HIM_ICEBERG_REST_URI"))
    p.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
    p.add_argument("--jars-dir", default=os.environ.get("HIM_SPARK_JARS_DIR"))
    p.add_argument("--catalog-name", required=True)
    p.add_argument("--view", required=True, help="the Iceberg view, ns.view")
    p.add_argument("--hive-sql", required=True)
    p.add_argument("--base", action="append", default=[], help="db.tbl=s3://bucket/dir (Parquet)")
    p.add_argument("--hive-view", action="append", default=[], help="db.view=SQL (dependency order)")
    args = p.parse_args(argv)
    ns, view = split_table(args.view)
    rc = delegate("view_check", argv)
    if rc is not None:
        return rc
    scratch = tempfile.mkdtemp(prefix="him-view-check-")
    extensions = {"spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"}
    spark = spark_session(args, scratch, catalog_name=args.catalog_name, extra=extensions)
    try:
        ice = spark.sql(f"SELECT * FROM `{args.catalog_name}`.`{ns}`.`{view}`").toArrow()
        rep = spark.sql(f"SHOW CREATE TABLE `{args.catalog_name}`.`{ns}`.`{view}`").collect()
        names: List[str] = []
        for b in args.base:
            name, location = pair(b)
            t = name.split(".")[1]
            # PySpark 4.0 takes a pyarrow Table as it is (no pandas in the verifier venv).
            spark.createDataFrame(read_parquet_dir(location, args.s3_endpoint)).createOrReplaceTempView(t)
            names.append(name)
        for v in args.hive_view:
            name, sql = pair(v)
            t = name.split(".")[1]
            spark.sql(to_temp_names(sql, names)).createOrReplaceTempView(t)
            names.append(name)
        hive = spark.sql(to_temp_names(args.hive_sql, names)).toArrow()
        i, h = summary("spark-iceberg-view", ice, 3), summary("spark-hive-files", hive, 3)
        out: Dict[str, Any] = {
            "view": args.view,
            "iceberg": {"rows": i["rows"], "checksum": i["checksum"], "columns": i.get("columns")},
            "hive": {"rows": h["rows"], "checksum": h["checksum"], "columns": h.get("columns")},
            "equal": i["checksum"] == h["checksum"],
            "showCreate": [str(r[0]) for r in rep],
        }
        sys.stdout.write(json.dumps(out, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()
        return 0
    finally:
        stop_session(spark)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
