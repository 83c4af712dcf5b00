#!/usr/bin/env python3
"""Run one SQL statement in the stack's Trino and print one JSON line: its rows' canonical summary,
or the error Trino answered with:

    trino_sql.py [--trino-uri URL] [--session name=value ...] [--sample N] "SELECT ..."

    {"rows": N, "checksum": "...", "columns": [...], "sample": [...]}   or
    {"error": "message", "errorName": "GENERIC_INTERNAL_ERROR"}

--session sets session properties (catalog ones as iceberg.<name>, e.g.
iceberg.parquet_ignore_statistics=true). Exit 0 in both cases (the error is a result); 2 on bad usage.
Dev/test tooling.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import summary  # noqa: E402
from trino_client import Rows, TrinoError, query  # noqa: E402


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trino-uri", default=os.environ.get("HIM_TRINO_URI"))
    p.add_argument("--session", action="append", default=[])
    p.add_argument("--sample", type=int, default=0)
    p.add_argument("sql")
    args = p.parse_args(argv)
    if not args.trino_uri:
        p.error("--trino-uri (or HIM_TRINO_URI) is required")
    session = {}
    for kv in args.session:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            p.error(f"--session wants name=value, got {kv!r}")
        session[k] = v
    try:
        cols, rows = query(args.trino_uri, args.sql, session=session)
        out = summary("trino", Rows(cols, rows), args.sample)
    except TrinoError as e:
        out = {"error": e.message, "errorName": e.name}
    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
