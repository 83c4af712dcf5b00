// The stack's `rewrite:` config section: the verifier venv's spark-submit, local[*], the Iceberg
// runtime + AWS bundle jars the readers use plus the S3A jars (HIM_SPARK_REWRITE_JARS_DIR), S3A
// pointed at the stack's S3 (keys from the environment). Test and bench tooling.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { archiveOptions } from './spark-class-archive';

const ROOT = path.resolve(__dirname, '..', '..');

/** The suites' driver JVM options (shortJobs) before the class archive's. */
export const SHORT_JOB_OPTIONS = '-XX:TieredStopAtLevel=1';

/**
 * `shortJobs` (the default, for the suites): the driver JVM compiles with C1 only
 * (-XX:TieredStopAtLevel=1). A suite's job reads a few kilobytes and lives 20-40 s, most of it
 * JIT-compiling Spark: the C2 compiler threads were half its CPU (rewrite_job_check.py through this
 * command: 37.6 CPU s, 18.1 with C1 only, the same answers; docs/timings.md). The benches pass false:
 * they measure jobs over real volumes, where C2's code pays back. With shortJobs the driver also
 * starts from the class archive of ./spark-class-archive.ts once it is made (`classArchive: false`:
 * never; the archive's maker passes it).
 */
export function stackRewriteCommand(
  env: NodeJS.ProcessEnv,
  o: { shortJobs?: boolean; classArchive?: boolean; shared?: boolean; sharedDir?: string } = {},
): { command: string[]; env: Record<string, string> } {
  const python = env.HIM_VERIFIER_PYTHON as string;
  const venv = path.dirname(path.dirname(python));
  const lib = path.join(venv, 'lib');
  const py = readdirSync(lib).find((d) => d.startsWith('python3')) ?? 'python3';
  const jarsOf = (dir: string): string[] =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.jar') && !f.startsWith('postgresql'))
      .map((f) => path.join(dir, f));
  const jars = [...jarsOf(env.HIM_SPARK_JARS_DIR as string), ...jarsOf(env.HIM_SPARK_REWRITE_JARS_DIR as string)];
  const s3 = env.HIM_S3_ENDPOINT as string;
  const conf = {
    'spark.driver.memory': '1g',
    'spark.ui.enabled': 'false',
    'spark.sql.session.timeZone': 'UTC',
    'spark.driver.host': '127.0.0.1',
    'spark.driver.bindAddress': '127.0.0.1',
    'spark.hadoop.fs.s3a.endpoint': s3,
    'spark.hadoop.fs.s3a.path.style.access': 'true',
    'spark.hadoop.fs.s3a.connection.ssl.enabled': 'false',
    'spark.hadoop.fs.s3a.endpoint.region': env.AWS_REGION ?? 'us-east-1',
    'spark.hadoop.fs.s3a.aws.credentials.provider': 'software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider',
    ...(o.shortJobs === false
      ? {}
      : {
          'spark.driver.extraJavaOptions': [
            SHORT_JOB_OPTIONS,
            ...(o.classArchive === false ? [] : archiveOptions(env, SHORT_JOB_OPTIONS)),
          ].join(' '),
        }),
  };
  // With shortJobs (unless `shared: false`) the jobs run on the run's shared driver when they can
  // (dev/verifier/spark_jobs_client.py in front of spark-submit: one JVM for the suites' jobs instead
  // of one each, ~13 → ~4 CPU s a job once warm; a job it cannot take runs on this spark-submit).
  const shared = o.shared ?? (o.shortJobs !== false && o.classArchive !== false && env.HIM_STATE_DIR !== undefined);
  const front = shared
    ? [
        python,
        path.join(ROOT, 'dev', 'verifier', 'spark_jobs_client.py'),
        '--dir',
        o.sharedDir ?? path.join(env.HIM_STATE_DIR as string, 'spark-jobs'),
        '--',
      ]
    : [];
  return {
    command: [
      ...front,
      path.join(venv, 'bin', 'spark-submit'),
      '--master',
      'local[*]',
      '--jars',
      jars.join(','),
      ...Object.entries(conf).flatMap(([k, v]) => ['--conf', `${k}=${v}`]),
    ],
    env: { SPARK_HOME: path.join(lib, py, 'site-packages', 'pyspark'), PYSPARK_PYTHON: python, SPARK_LOCAL_IP: '127.0.0.1' },
  };
}

/** The YAML `rewrite:` section (JSON is YAML) for a config file. */
export function stackRewriteYaml(
  env: NodeJS.ProcessEnv,
  warehouse: string,
  extra: Record<string, unknown> = {},
  o: { shortJobs?: boolean } = {},
): string {
  const c = stackRewriteCommand(env, o);
  return `rewrite: ${JSON.stringify({ command: c.command, env: c.env, warehouse, ...extra })}\n`;
}
