#!/usr/bin/env python3
"""Read several Iceberg tables through the REST catalog with PyIceberg and/or Spark (one Spark
session for all of them) and print one JSON line per (engine, table):

    read_tables.py --engines pyiceberg,spark --catalog-uri URI --s3-endpoint URL [--jars-dir DIR] ns.t1 ns.t2 ...

Each line: {"engine", "table", "rows", "checksum", "columns", "sample"} or {"engine", "table", "error"}
when that table could not be read (the other tables are still read). Checksums as in canonical.py.
Dev/test tooling; shares its catalog and session setup with read_table.py.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from typing import Any, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from canonical import summary  # noqa: E402
from read_table import SPARK_CATALOG, pyiceberg_catalog, spark_session, split_table  # noqa: E402


def emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engines", default="pyiceberg,spark")
    p.add_argument("--catalog-uri", default=os.environ.get("HIM_ICEBERG_REST_URI"))
    p.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
    p.add_argument("--jars-dir", default=os.environ.get("HIM_SPARK_JARS_DIR"))
    p.add_argument("--sample", type=int, default=0)
    p.add_argument("tables", nargs="+")
    args = p.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    for t in args.tables:
        split_table(t)
    if "pyiceberg" in engines:
        cat = pyiceberg_catalog(args.catalog_uri, args.s3_endpoint)
        for t in args.tables:
            try:
                emit({**summary("pyiceberg", cat.load_table(t).scan().to_arrow(), args.sample), "table": t})
            except Exception as e:  # report and go on: one bad table must not hide the others
                emit({"engine": "pyiceberg", "table": t, "error": f"{type(e).__name__}: {e}"})
    if "spark" in engines:
        scratch = tempfile.mkdtemp(prefix="him-spark-")
        spark = spark_session(args, scratch)
        try:
            for t in args.tables:
                ns, tbl = split_table(t)
                try:
                    emit({**summary("spark", spark.table(f"{SPARK_CATALOG}.`{ns}`.`{tbl}`").toArrow(), args.sample), "table": t})
                except Exception as e:
                    emit({"engine": "spark", "table": t, "error": f"{type(e).__name__}: {str(e)[:2000]}"})
        finally:
            spark.stop()
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
