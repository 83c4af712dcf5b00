#!/usr/bin/env python3
"""A job for test/integration/rewrite/spark-jobs.test.ts, run through the suites' `rewrite:` command:
prints `RESULT {"jvm": <driver JVM pid>, "pid": <this process>, "sum": ...}` from a small Spark job with
a Python function (Spark's Python workers).
    spark_jobs_probe.py sum      the job, then spark.stop() (a no-op on the shared driver)
    spark_jobs_probe.py hang     prints STARTED {...} and runs a Spark job that never ends (to be killed)
    spark_jobs_probe.py static   asks its builder for spark.sql.extensions (fixed at a JVM's start)
Test tooling.
"""
import json
import os
import sys
import time

from pyspark.sql import SparkSession


def main(mode: str) -> int:
    b = SparkSession.builder.appName(f"him-spark-jobs-probe-{mode}").config("spark.sql.shuffle.partitions", "3")
    if mode == "static":
        b = b.config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
    spark = b.getOrCreate()
    info = {"jvm": int(spark.sparkContext._jvm.ProcessHandle.current().pid()), "pid": os.getpid()}
    if mode == "hang":
        print("STARTED " + json.dumps(info), flush=True)
        spark.sparkContext.parallelize(range(2), 2).foreach(lambda _: time.sleep(3600))
        return 1
    total = spark.sparkContext.parallelize(range(1000), 4).map(lambda x: x * x).sum()
    shuffle = spark.conf.get("spark.sql.shuffle.partitions")
    spark.stop()
    print("RESULT " + json.dumps({**info, "sum": total, "shufflePartitions": shuffle}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
