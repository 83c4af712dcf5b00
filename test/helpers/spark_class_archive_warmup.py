#!/usr/bin/env python3
"""The Spark job test/helpers/spark-class-archive.ts runs once, under -XX:ArchiveClassesAtExit, to
make the class archive the suites' spark-submit jobs start from: a session with an Iceberg REST
catalog and S3A, an Iceberg table written (partitioned, the common types), read with a filter, a
Parquet file written and read through S3A, then everything it made dropped (test-owned data).

    spark_class_archive_warmup.py <namespace>
Needs HIM_ICEBERG_REST_URI and HIM_S3_ENDPOINT (the stack's environment). Test tooling.
"""
import os
import sys

from pyspark.sql import SparkSession


def main(ns: str) -> int:
    spark = (
        SparkSession.builder.appName("him-spark-class-archive")
        .config("spark.sql.catalog.w", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.w.type", "rest")
        .config("spark.sql.catalog.w.uri", os.environ["HIM_ICEBERG_REST_URI"])
        .config("spark.sql.catalog.w.io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
        .config("spark.sql.catalog.w.s3.endpoint", os.environ["HIM_S3_ENDPOINT"])
        .config("spark.sql.catalog.w.s3.path-style-access", "true")
        .getOrCreate()
    )
    table = f"w.{ns}.t"
    path = f"s3a://warehouse/spark-class-archive/{ns}"
    try:
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS w.{ns}")
        spark.sql(
            f"CREATE TABLE {table} (id bigint, s string, d date, ts timestamp, x decimal(10,2)) USING iceberg PARTITIONED BY (d)"
        )
        spark.sql(
            f"INSERT INTO {table} VALUES (1, 'a', DATE'2024-01-01', TIMESTAMP'2024-01-01 00:00:00', 1.50), "
            "(2, 'b', DATE'2024-01-02', TIMESTAMP'2024-01-02 00:00:00', 2.25)"
        )
        filtered = spark.sql(f"SELECT count(*) FROM {table} WHERE id > 1").collect()[0][0]
        spark.table(table).write.mode("overwrite").parquet(path)
        back = spark.read.parquet(path).count()
        print(f"warm-up: {filtered} filtered row(s), {back} row(s) back through S3A")
        return 0 if (filtered, back) == (1, 2) else 1
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")
        spark.sql(f"DROP NAMESPACE IF EXISTS w.{ns}")
        jvm = spark.sparkContext._jvm
        hpath = jvm.org.apache.hadoop.fs.Path(path)
        hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).delete(hpath, True)
        spark.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
