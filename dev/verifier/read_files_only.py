#!/usr/bin/env python3
"""The canonical rows and checksum of exactly the given Parquet files (what Hive reads of a table
when these are the files of its committed writes), for comparing with an Iceberg read.

    read_files_only.py --s3-endpoint URL [--partition-key day] s3a://b/k1[@value] s3a://b/k2[@value] ...

Each file's rows get the partition key (string) with the value after '@' when --partition-key is
given. Prints {"rows", "checksum", "files"} (canonical.py). S3 keys from AWS_*. Test tooling; run it
with the verifier venv's python.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs"))  # canonical.py: the shipped definition
from canonical import canonical_rows, checksum  # noqa: E402

import pyarrow as pa  # noqa: E402
import pyarrow.fs as pafs  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--s3-endpoint", default=os.environ.get("HIM_S3_ENDPOINT"))
    p.add_argument("--partition-key")
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    scheme, _, host = a.s3_endpoint.partition("://")
    fs = pafs.S3FileSystem(endpoint_override=host, scheme=scheme, access_key=os.environ["AWS_ACCESS_KEY_ID"],
                           secret_key=os.environ["AWS_SECRET_ACCESS_KEY"], region=os.environ.get("AWS_REGION", "us-east-1"))
    rows = []
    for spec in a.files:
        uri, _, value = spec.partition("@")
        path = uri.split("://", 1)[1]
        for r in pq.read_table(path, filesystem=fs).to_pylist():
            rows.append({**r, a.partition_key: value} if a.partition_key else r)
    canon = canonical_rows(pa.Table.from_pylist(rows))
    print(json.dumps({"rows": len(canon), "checksum": checksum(canon), "files": len(a.files)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
