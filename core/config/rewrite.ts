// The `rewrite:` section of the configuration (core/config/schema.ts merges it into the one schema):
// how the worker submits the shipped Spark job for rewrite-required tables. Pure; no I/O.
import { z } from 'zod';

/**
 * The rewrite path (docs/migrating.md "Rewrite through Spark"): tables classed rewrite-required are
 * migrated by the shipped Spark job (`jobs/rewrite.py`) into NEW Iceberg tables, when a plan opts in
 * (`enabled` here or `migrate plan --rewrite`). The worker starts `command` + `<job> --spec F --result F`.
 */
/** Variable names that hold secrets (AWS keys, passwords, tokens): refused in rewrite.env. */
const SECRET_NAME = /secret|password|passwd|token|credential|private[-_]?key|access[-_]?key|session[-_]?key|api[-_]?key/i;

export const rewriteSchema = z
  .object({
    /** Plans include rewrite-required tables the job reads (text/CSV/JSON, bucketed, sub-directories) without `--rewrite`. */
    enabled: z.boolean().default(false),
    /** The spark-submit command line as an argv array (no shell): `[spark-submit, --master, local[*], --jars, …, --conf, …]`. */
    command: z.array(z.string().min(1)).min(1),
    /** Extra environment for the job (SPARK_HOME, PYSPARK_PYTHON, HADOOP_CONF_DIR…); never secrets: S3 keys come from the worker's environment. */
    env: z
      .record(z.string(), z.string())
      .default({})
      .superRefine((env, ctx) => {
        for (const name of Object.keys(env))
          if (SECRET_NAME.test(name))
            ctx.addIssue({
              code: 'custom',
              path: [name],
              message: `rewrite.env.${name} looks like a secret: the config is printed and shared; the job inherits the worker's environment, so set it there (or in a secret store the worker reads)`,
            });
      }),
    /** Where new tables go: `<warehouse>/<namespace>/<name>-<job id>` (s3://bucket/prefix), a location no Hive table uses. */
    warehouse: z.string().regex(/^s3a?:\/\/[^/]+/, 'an s3:// URI'),
    /** Iceberg Spark catalog properties over the ones derived from `catalog` and `storage.s3` (type, uri, io-impl, s3.endpoint…). */
    catalogProperties: z.record(z.string(), z.string()).default({}),
    /** The job's measured throughput, for the plan's estimate of rewrite tables (bytes of source per second). */
    bytesPerSecond: z.number().positive().default(500_000),
    /** The job's wall-clock limit per table, minutes; then it is killed and the table fails. */
    timeoutMinutes: z.number().int().min(1).max(10_080).default(240),
    /** Apply runs each created Iceberg view in Spark (jobs/view_check.py) and compares it with its Hive SQL over the Hive files; false: views are validated by their metadata only. */
    viewCheck: z.boolean().default(true),
  })
  .strict();
export type RewriteConfig = z.output<typeof rewriteSchema>;
