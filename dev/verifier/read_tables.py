#!/usr/bin/env python3
"""Read several Iceberg tables with PyIceberg, Spark (one Spark session for all of them) and/or Trino,
and print one JSON line per (engine, table):

    read_tables.py --engines pyiceberg,spark,trino --catalog-uri URI --s3-endpoint URL [--jars-dir DIR]
                   [--trino-uri URL] ns.t1 ns.t2 ...

Trino (--trino-uri, default HIM_TRINO_URI) reads through its own catalog `iceberg`, which the stack
points at the same REST catalog and S3 (dev/stack/components/trino.ts); trino_client.py turns its
values into what canonical.py expects.

The catalog is the REST catalog at --catalog-uri by default. Spark can also read through:
  --catalog-type jdbc --catalog-name NAME --jdbc-url jdbc:postgresql://HOST:PORT/DB --jdbc-user U
      Iceberg's JdbcCatalog (org.apache.iceberg.jdbc.JdbcCatalog) on that database. It keeps only the
      rows whose catalog_name is NAME, so NAME must be the name the tables were registered under; it
      is also the Spark catalog's name. Password from --jdbc-password or PGPASSWORD. The Postgres
      driver jar must be in --jars-dir.
  --catalog-type hive --hms-uri thrift://HOST:PORT
      Iceberg's HiveCatalog on that Hive Metastore (PySpark's bundled Hive 2.3 metastore client).
--warehouse sets the catalog's warehouse location (JdbcCatalog requires one; it is used only for new
tables, and nothing is written here).
PyIceberg reads through the REST catalog only here (read_sql_table.py / read_hive_table.py read
through its SQL and Hive catalogs). Data files are read with S3FileIO at --s3-endpoint, keys from
AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_REGION.

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
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import summary  # noqa: E402
from read_table import SPARK_CATALOG, open_spark, pyiceberg_catalog, split_table, stop_session  # noqa: E402
from spark_client import delegate  # noqa: E402
from trino_client import Rows, query as trino_query  # noqa: E402

CATALOG_TYPES = ("rest", "jdbc", "hive")


def emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def spark_catalog(args: argparse.Namespace) -> Dict[str, str]:
    """Iceberg catalog properties of the Spark catalog for --catalog-type."""
    if args.catalog_type == "rest":
        props = {"type": "rest", "uri": args.catalog_uri}
    elif args.catalog_type == "jdbc":
        props = {
            "catalog-impl": "org.apache.iceberg.jdbc.JdbcCatalog",
            "uri": args.jdbc_url,
            "jdbc.user": args.jdbc_user,
            # The tables exist (the migrator's layout, with iceberg_type): use them, create nothing.
            "jdbc.schema-version": "V1",
            "jdbc.init-catalog-tables": "false",
        }
        if args.jdbc_password:
            props["jdbc.password"] = args.jdbc_password
    else:
        props = {"type": "hive", "uri": args.hms_uri}
    if args.warehouse:
        props["warehouse"] = args.warehouse
    return props


def read_trino(uri: str, tables: List[str], sample: int) -> None:
    for t in tables:
        ns, tbl = split_table(t)
        try:
            cols, rows = trino_query(uri, f'SELECT * FROM iceberg."{ns}"."{tbl}"')
            emit({**summary("trino", Rows(cols, rows), sample), "table": t})
        except Exception as e:
            emit({"engine": "trino", "table": t, "error": f"{type(e).__name__}: {str(e)[:2000]}"})


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engines", default="pyiceberg,spark")
    p.add_argument("--catalog-type", choices=CATALOG_TYPES, default="rest")
    p.add_argument("--catalog-name", default=SPARK_CATALOG)
    p.add_argument("--catalog-uri", default=os.environ.get("HIM_ICEBERG_REST_URI"))
    p.add_argument("--jdbc-url")
    p.add_argument("--jdbc-user")
    p.add_argument("--jdbc-password", default=os.environ.get("PGPASSWORD"))
    p.add_argument("--hms-uri")
    p.add_argument("--warehouse")
    p.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
    p.add_argument("--jars-dir", default=os.environ.get("HIM_SPARK_JARS_DIR"))
    p.add_argument("--trino-uri", default=os.environ.get("HIM_TRINO_URI"))
    p.add_argument("--sample", type=int, default=0)
    p.add_argument("tables", nargs="+")
    args = p.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    if args.catalog_type != "rest" and "pyiceberg" in engines:
        p.error(f"--catalog-type {args.catalog_type}: only --engines spark (PyIceberg: read_sql_table.py, read_hive_table.py)")
    if args.catalog_type == "jdbc" and not (args.jdbc_url and args.jdbc_user and args.warehouse):
        p.error("--catalog-type jdbc needs --jdbc-url, --jdbc-user and --warehouse (JdbcCatalog requires one)")
    if args.catalog_type == "hive" and not args.hms_uri:
        p.error("--catalog-type hive needs --hms-uri")
    if "trino" in engines and (args.catalog_type != "rest" or not args.trino_uri):
        p.error("--engines trino reads through the REST catalog only and needs --trino-uri (or HIM_TRINO_URI)")
    for t in args.tables:
        split_table(t)
    if "spark" in engines:
        rc = delegate("read_tables", argv)
        if rc is not None:
            return rc
    if "pyiceberg" in engines:
        cat = pyiceberg_catalog(args.catalog_uri, args.s3_endpoint)
        for t in args.tables:
            try:
                emit({**summary("pyiceberg", cat.load_table(t).scan().to_arrow(), args.sample), "table": t})
            except Exception as e:  # report and go on: one bad table must not hide the others
                emit({"engine": "pyiceberg", "table": t, "error": f"{type(e).__name__}: {e}"})
    if "trino" in engines:
        read_trino(args.trino_uri, args.tables, args.sample)
    if "spark" in engines:
        scratch = tempfile.mkdtemp(prefix="him-spark-")
        # A JdbcCatalog keeps only the rows of its own name: that name is fixed; a REST or Hive catalog's is not.
        spark, name = open_spark(args, scratch, args.catalog_name, spark_catalog(args), fixed_name=args.catalog_type == "jdbc")
        try:
            for t in args.tables:
                ns, tbl = split_table(t)
                try:
                    rows = spark.table(f"`{name}`.`{ns}`.`{tbl}`").toArrow()
                    emit({**summary("spark", rows, args.sample), "table": t})
                except Exception as e:
                    emit({"engine": "spark", "table": t, "error": f"{type(e).__name__}: {str(e)[:2000]}"})
        finally:
            stop_session(spark)
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
