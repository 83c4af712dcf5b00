// A class-data-sharing archive (AppCDS, JDK 17's dynamic archive) of the Spark driver's classes for
// the suites' spark-submit jobs (test/helpers/rewrite.ts, shortJobs): a job that maps the classes
// from it instead of loading, verifying and linking them from the jars spends ~30 % less CPU (the
// warm-up job below under load: 16.8-17.6 CPU s against 24.2-27.3 without; docs/timings.md).
//
// Made once per component cache (dev/test.sh runs `make` in the background once the stack is up):
// the warm-up job (spark_class_archive_warmup.py) through the very command the suites use, with
// -XX:ArchiveClassesAtExit into a file of its own, then renamed into place, so a job sees a whole
// archive or none. Its name is a hash of what the archive depends on (the verifier install, the jar
// lists, the java version, the driver options, the warm-up script): another stack makes another
// archive. A job whose JVM cannot use it runs as before (-Xshare:auto; the CDS log lines are off, so
// they never reach the job's stdout). Test tooling, never the product.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

const WARMUP = path.join(__dirname, 'spark_class_archive_warmup.py');
const LOCK_STALE_MS = 15 * 60_000;

/** spark-submit's java (JAVA_HOME's, else the one on PATH): its `-version` text (stderr). */
let javaMemo: string | undefined;
function javaVersion(env: NodeJS.ProcessEnv): string {
  const java = env.JAVA_HOME ? path.join(env.JAVA_HOME, 'bin', 'java') : 'java';
  javaMemo ??= spawnSync(java, ['-version'], { env: { ...env, JAVA_TOOL_OPTIONS: '' }, encoding: 'utf8' }).stderr ?? 'no java';
  return javaMemo;
}

/** This stack's archive (made or not): <cache>/spark-class-archive/<hash>.jsa. */
export function archiveFile(env: NodeJS.ProcessEnv, driverOptions: string): string {
  const jars = [env.HIM_SPARK_JARS_DIR, env.HIM_SPARK_REWRITE_JARS_DIR].map((d) => `${d}: ${readdirSync(String(d)).sort().join(',')}`);
  const parts = [String(env.HIM_VERIFIER_PYTHON), ...jars, javaVersion(env), driverOptions, readFileSync(WARMUP, 'utf8')];
  const key = createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
  return path.join(String(env.HIM_CACHE_DIR), 'spark-class-archive', `${key}.jsa`);
}

/** The driver's JVM options to start from the archive, or none while it is not made. */
export function archiveOptions(env: NodeJS.ProcessEnv, driverOptions: string): string[] {
  const file = archiveFile(env, driverOptions);
  return existsSync(file) ? [`-XX:SharedArchiveFile=${file}`, '-Xlog:cds*=off'] : [];
}

/**
 * Make the archive when it is missing: `command`/`commandEnv` are the suites' spark-submit command
 * (without the archive options). 'present' when it is there, 'busy' when another process is making
 * it, 'made' once this one did.
 */
export async function makeArchive(
  env: NodeJS.ProcessEnv,
  driverOptions: string,
  command: readonly string[],
  commandEnv: Record<string, string>,
): Promise<'present' | 'busy' | 'made'> {
  const file = archiveFile(env, driverOptions);
  if (existsSync(file)) return 'present';
  mkdirSync(path.dirname(file), { recursive: true });
  const lock = `${file}.lock`;
  if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
  try {
    mkdirSync(lock);
  } catch {
    return 'busy';
  }
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    const withDump = command.map((a) => (a.startsWith('spark.driver.extraJavaOptions=') ? `${a} -XX:ArchiveClassesAtExit=${tmp}` : a));
    if (withDump.join('\n') === command.join('\n')) throw new Error('the command sets no spark.driver.extraJavaOptions');
    const ns = `him_class_archive_${process.pid}`;
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(withDump[0] as string, [...withDump.slice(1), WARMUP, ns], {
        env: { ...env, ...commandEnv },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      child.once('error', reject);
      child.once('exit', (c) => resolve(c));
    });
    if (code !== 0 || !existsSync(tmp) || statSync(tmp).size === 0) throw new Error(`the warm-up job exited ${code} without an archive`);
    renameSync(tmp, file);
    return 'made';
  } finally {
    rmSync(tmp, { force: true });
    rmSync(lock, { recursive: true, force: true });
  }
}
