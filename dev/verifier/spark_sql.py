#!/usr/bin/env python3
"""Run SQL statements with Spark against the stack's Iceberg REST catalog (another engine writing to a
migrated table: INSERT INTO, DELETE FROM, ...), then print ONE JSON line.

    spark_sql.py --catalog-uri URI --s3-endpoint URL [--jars-dir DIR] --sql "INSERT INTO t ..." [--sql ...]

The catalog is named `verifier` in Spark and is the session's current catalog, so statements may name
tables as `ns`.`tbl` (or verifier.`ns`.`tbl`). Output: {"statements": N, "results": [[rows as lists]...]}
(rows of each statement that returns any, as strings). S3 keys from AWS_ACCESS_KEY_ID /
AWS_SECRET_ACCESS_KEY / AWS_REGION; Spark jars from HIM_SPARK_JARS_DIR. Dev/test tooling: run it with
the verifier venv's python (HIM_VERIFIER_PYTHON). Engine logs go to stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_table import SPARK_CATALOG, spark_session, stop_session  # noqa: E402
from spark_client import delegate  # noqa: E402


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--catalog-uri", default=os.environ.get("HIM_ICEBERG_REST_URI"))
    p.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
    p.add_argument("--jars-dir", default=os.environ.get("HIM_SPARK_JARS_DIR"))
    p.add_argument("--sql", action="append", required=True, help="one statement; repeat for more (run in order)")
    args = p.parse_args(argv)
    if not args.catalog_uri or not args.s3_endpoint:
        p.error("--catalog-uri and --s3-endpoint are required (or HIM_ICEBERG_REST_URI / HIM_S3_ENDPOINT)")
    rc = delegate("spark_sql", argv)
    if rc is not None:
        return rc
    scratch = tempfile.mkdtemp(prefix="him-spark-sql-")
    spark = spark_session(args, scratch)
    try:
        spark.sql(f"USE {SPARK_CATALOG}")
        results = []
        for stmt in args.sql:
            rows = spark.sql(stmt).collect()
            results.append([[None if v is None else str(v) for v in r] for r in rows])
        sys.stdout.write(json.dumps({"statements": len(args.sql), "results": results}) + "\n")
        sys.stdout.flush()
        return 0
    finally:
        stop_session(spark)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
