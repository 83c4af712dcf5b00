#!/usr/bin/env python3
"""Write V distinct small Parquet variants (pyarrow) for bench/convert: a realistic schema of C columns
(long/string/double/date/decimal/timestamp/boolean), ~R rows, 2 row groups, and the partition column
`dt` stored in the file too (so PyIceberg add_files reads the right partition from the footer).
Prints JSON {variants: [{name, dt}], columns: [[name, type]...]}.

    gen_files.py OUT_DIR --variants 8 --columns 20 --rows 200 --partitions 100
"""
import argparse, datetime as dt, decimal, json, os, random
import pyarrow as pa, pyarrow.parquet as pq

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--variants", type=int, default=8)
p.add_argument("--columns", type=int, default=20)
p.add_argument("--rows", type=int, default=200)
p.add_argument("--partitions", type=int, default=100)
a = p.parse_args()
os.makedirs(a.out, exist_ok=True)
kinds = ["long", "string", "double", "date", "decimal", "timestamp", "boolean"]
cols = [(f"c{i:03d}_{kinds[i % len(kinds)]}", kinds[i % len(kinds)]) for i in range(a.columns - 1)]
arrow = {"long": pa.int64(), "string": pa.string(), "double": pa.float64(), "date": pa.date32(), "decimal": pa.decimal128(12, 2), "timestamp": pa.timestamp("us"), "boolean": pa.bool_()}
out = []
for v in range(a.variants):
    r = random.Random(v)
    day = dt.date(2024, 1, 1) + dt.timedelta(days=v % a.partitions)
    data = {}
    for name, k in cols:
        if k == "long": data[name] = [r.randrange(-10**12, 10**12) for _ in range(a.rows)]
        elif k == "string": data[name] = [f"val-{v}-{r.randrange(10**6)}" for _ in range(a.rows)]
        elif k == "double": data[name] = [r.random() * 1000 for _ in range(a.rows)]
        elif k == "date": data[name] = [day - dt.timedelta(days=r.randrange(365)) for _ in range(a.rows)]
        elif k == "decimal": data[name] = [decimal.Decimal(r.randrange(-10**9, 10**9)) / 100 for _ in range(a.rows)]
        elif k == "timestamp": data[name] = [dt.datetime(2024, 1, 1) + dt.timedelta(seconds=r.randrange(10**7)) for _ in range(a.rows)]
        else: data[name] = [r.random() < 0.5 for _ in range(a.rows)]
    data["dt"] = [day.isoformat()] * a.rows
    schema = pa.schema([(n, arrow[k]) for n, k in cols] + [("dt", pa.string())])
    name = f"v{v}.parquet"
    pq.write_table(pa.table(data, schema=schema), os.path.join(a.out, name), row_group_size=max(1, a.rows // 2))
    out.append({"name": name, "dt": day.isoformat()})
print(json.dumps({"variants": out, "columns": [[n, k] for n, k in cols]}))
