#!/usr/bin/env python3
"""Peer for bench/footers: pyarrow reads the same Parquet footers from the stack's S3.

    pyarrow_footers.py BUCKET/PREFIX CONCURRENCY   (env: HIM_S3_ENDPOINT, AWS_* keys)
    pyarrow_footers.py DIR CONCURRENCY --local     (the same over the local filesystem)

Lists the prefix with S3FileSystem.get_file_info, then pq.read_metadata on every file from a
thread pool; prints {"files", "rows", "list_s", "footers_s"} as JSON. Bench tooling.
"""
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pyarrow.fs as pafs
import pyarrow.parquet as pq

prefix, conc = sys.argv[1], int(sys.argv[2])
if "--local" in sys.argv:
    fs = pafs.LocalFileSystem()
else:
    endpoint = os.environ["HIM_S3_ENDPOINT"]
    fs = pafs.S3FileSystem(endpoint_override=endpoint.split("://", 1)[1], scheme=endpoint.split("://", 1)[0],
                           access_key=os.environ["AWS_ACCESS_KEY_ID"], secret_key=os.environ["AWS_SECRET_ACCESS_KEY"],
                           region=os.environ.get("AWS_REGION", "us-east-1"))
t0 = time.perf_counter()
files = [f.path for f in fs.get_file_info(pafs.FileSelector(prefix, recursive=False)) if f.type == pafs.FileType.File]
t1 = time.perf_counter()
with ThreadPoolExecutor(conc) as pool:
    rows = sum(pool.map(lambda p: pq.read_metadata(p, filesystem=fs).num_rows, files))
t2 = time.perf_counter()
print(json.dumps({"files": len(files), "rows": rows, "list_s": t1 - t0, "footers_s": t2 - t1}))
