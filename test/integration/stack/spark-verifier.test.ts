// The long-lived Spark verifier (stack component spark-verifier, dev/verifier/spark_server.py): two
// requests reuse one JVM and the second is much faster than a read in a process of its own; a
// request's catalog never serves metadata from before a change made between requests; a failing
// request answers its error and the next one succeeds; a request past its timeout or one that kills
// the JVM answers fallback and the server comes back with a new JVM. Needs the local stack with
// spark-verifier (and the REST catalog, S3).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createContext, loadComponent } from '../../../dev/stack/manifest';
import { testStack, uniqueName } from '../../helpers/stack-env';

const exec = promisify(execFile);
const env = testStack();
const ROOT = path.join(__dirname, '..', '..', '..');
const VERIFIER_DIR = path.join(ROOT, 'dev', 'verifier');
const URL = env.HIM_SPARK_VERIFIER_URL as string;

interface Answer {
  code?: number;
  stdout?: string;
  stderr?: string;
  fallback?: boolean;
  reason?: string;
  jvm?: number;
}
interface Health {
  ok: boolean;
  jvm: number;
  restarts: number;
}
interface Read {
  rows: number;
  checksum: string;
}

/** The environment a script sees (what spark_client.py sends). */
function scriptEnv(): Record<string, string> {
  const all = { ...process.env, ...env } as Record<string, string>;
  return Object.fromEntries(
    Object.entries(all).filter(([k]) => /^(HIM_|AWS_|PG|KRB5|HADOOP_CONF_DIR|JAVA_TOOL_OPTIONS)/.test(k) && k !== 'HIM_SPARK_VERIFIER_URL'),
  );
}

async function post(script: string, args: string[], timeoutSeconds = 300): Promise<{ status: number; answer: Answer; ms: number }> {
  const t0 = Date.now();
  const body = { script, args, cwd: ROOT, dir: VERIFIER_DIR, env: scriptEnv(), timeoutSeconds, queueSeconds: 120 };
  const res = await fetch(`${URL}/run`, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
  return { status: res.status, answer: (await res.json()) as Answer, ms: Date.now() - t0 };
}

async function health(): Promise<Health> {
  const res = await fetch(`${URL}/health`);
  return (await res.json()) as Health;
}

/** Until the server's Spark is up again (after a restart). */
async function healthyAgain(): Promise<Health> {
  const until = Date.now() + 280_000;
  for (;;) {
    const h = await health().catch(() => undefined);
    if (h?.ok) return h;
    if (Date.now() > until) throw new Error('spark-verifier not healthy again after 280 s');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** A script run as the tests run it: `python <script>.py args`, through the server unless `extraEnv` says otherwise. */
async function script(
  name: string,
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string; ms: number }> {
  const t0 = Date.now();
  const r = await exec(env.HIM_VERIFIER_PYTHON as string, [path.join(VERIFIER_DIR, `${name}.py`), ...args], {
    env: { ...process.env, ...env, ...extraEnv },
    cwd: ROOT,
    timeout: 400_000,
    maxBuffer: 64 << 20,
  });
  return { stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
}

const lastJson = <T>(stdout: string): T => JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as T;
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('spark-verifier (stack component)', () => {
  const ns = uniqueName('it_spark_verifier');
  const table = `${ns}.t`;
  const read = ['--engine', 'spark', '--table', table];
  let made: Read;

  beforeAll(async () => {
    made = lastJson<Read>((await script('make_table', ['--table', table, '--rows', '12'])).stdout);
  }, 120_000);

  afterAll(async () => {
    // The test wrote these files, so purging them is safe here (never for migrated tables).
    const rest = env.HIM_ICEBERG_REST_URI ?? '';
    await fetch(`${rest}/v1/namespaces/${ns}/tables/t?purgeRequested=true`, { method: 'DELETE' }).catch(() => undefined);
    await fetch(`${rest}/v1/namespaces/${ns}`, { method: 'DELETE' }).catch(() => undefined);
  });

  it('two requests reuse one JVM: same pid, the second much faster than a read in a process of its own', async () => {
    const h = await loadComponent('spark-verifier').health(createContext(process.env, true));
    expect(h.ok).toBe(true);
    const { jvm } = await health();
    const first = await post('read_table', read);
    const second = await post('read_table', read);
    expect([first.status, first.answer.code, first.answer.jvm]).toEqual([200, 0, jvm]);
    expect([second.status, second.answer.code, second.answer.jvm]).toEqual([200, 0, jvm]);
    for (const r of [first, second]) expect(lastJson<Read>(r.answer.stdout ?? '')).toMatchObject({ rows: 12, checksum: made.checksum });
    // The same script with the server unreachable: its own process and JVM, the same answer.
    const own = await script('read_table', read, { HIM_SPARK_VERIFIER_URL: 'http://127.0.0.1:1' });
    expect(own.stderr).toContain('[spark-verifier] http://127.0.0.1:1');
    expect(lastJson<Read>(own.stdout)).toMatchObject({ rows: 12, checksum: made.checksum });
    expect(second.ms * 3).toBeLessThan(own.ms);
    // Through the client, as the tests call it: the server's answer, printed as the script would.
    const client = await script('read_table', read);
    expect(client.stderr).not.toContain('[spark-verifier]');
    expect(lastJson<Read>(client.stdout)).toMatchObject({ rows: 12, checksum: made.checksum });
    expect((await health()).jvm).toBe(jvm);
  }, 400_000);

  it('a request’s catalog sees the table as it is now, after changes made between requests', async () => {
    const before = lastJson<Read>((await post('read_table', read)).answer.stdout ?? '');
    // Changed outside the server (PyIceberg appends 5 rows) ...
    const append = [
      'import sys',
      `sys.path.insert(0, ${JSON.stringify(VERIFIER_DIR)})`,
      'from read_table import pyiceberg_catalog',
      'from make_table import arrow_table, rows',
      `cat = pyiceberg_catalog(${JSON.stringify(env.HIM_ICEBERG_REST_URI)}, ${JSON.stringify(env.HIM_S3_ENDPOINT)})`,
      `cat.load_table(${JSON.stringify(table)}).append(arrow_table(rows(5)))`,
    ].join('\n');
    await exec(env.HIM_VERIFIER_PYTHON as string, ['-c', append], { env: { ...process.env, ...env } });
    const after = lastJson<Read>((await post('read_table', read)).answer.stdout ?? '');
    expect([before.rows, after.rows]).toEqual([12, 17]);
    expect(after.checksum).not.toBe(before.checksum);
    // ... and by another request (Spark SQL in the server: ids 1–3 are there twice, 6 rows more): the next request's catalog sees it too.
    const sql = await post('spark_sql', ['--sql', `INSERT INTO \`${ns}\`.t SELECT * FROM \`${ns}\`.t WHERE id <= 3`]);
    expect(sql.answer.code).toBe(0);
    const tables = await post('read_tables', ['--engines', 'pyiceberg,spark', table]);
    const lines = (tables.answer.stdout ?? '')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Read & { engine: string });
    expect(lines.map((l) => [l.engine, l.rows])).toEqual([
      ['pyiceberg', 23],
      ['spark', 23],
    ]);
    expect(lines[1]?.checksum).toBe(lines[0]?.checksum);
  }, 300_000);

  it('a failing request answers its error and exit code; the next one succeeds on the same JVM', async () => {
    const { jvm } = await health();
    const bad = await post('spark_sql', ['--sql', `SELECT count(*) FROM \`${ns}\`.no_such_table`]);
    expect([bad.status, bad.answer.code, bad.answer.jvm]).toEqual([200, 1, jvm]);
    expect(bad.answer.stderr).toContain('TABLE_OR_VIEW_NOT_FOUND');
    const usage = await post('read_table', ['--engine', 'spark']);
    expect(usage.answer.code).toBe(2); // argparse's exit code, as in a process of its own
    const good = await post('spark_sql', ['--sql', `SELECT count(*) FROM \`${ns}\`.t`]);
    expect([good.answer.code, good.answer.jvm, JSON.parse(good.answer.stdout ?? '{}')]).toEqual([
      0,
      jvm,
      { statements: 1, results: [[['23']]] },
    ]);
  }, 300_000);

  it('a request past its timeout answers fallback; the JVM is killed and a new one serves the next request', async () => {
    const h0 = await health();
    const hung = await post('spark_sql', ['--sql', "SELECT java_method('java.lang.Thread', 'sleep', 600000L)"], 5);
    expect([hung.status, hung.answer.fallback]).toEqual([503, true]);
    expect(hung.answer.reason).toMatch(/timed out after 5 s/);
    const h1 = await healthyAgain();
    expect(h1.jvm).not.toBe(h0.jvm);
    expect(h1.restarts).toBe(h0.restarts + 1);
    expect(alive(h0.jvm)).toBe(false);
    const next = await post('read_table', read);
    expect([next.answer.code, next.answer.jvm, lastJson<Read>(next.answer.stdout ?? '').rows]).toEqual([0, h1.jvm, 23]);
  }, 400_000);

  it('a request that kills the JVM answers fallback (never an answer from a dead JVM); the server restarts', async () => {
    const h0 = await health();
    const crash = await post('spark_sql', ['--sql', "SELECT java_method('java.lang.System', 'exit', 3)"]);
    expect([crash.status, crash.answer.fallback]).toEqual([503, true]);
    expect(crash.answer.reason).toMatch(/died/);
    const h1 = await healthyAgain();
    expect(h1.jvm).not.toBe(h0.jvm);
    expect(alive(h0.jvm)).toBe(false);
    const next = await post('read_table', read);
    expect([next.answer.code, next.answer.jvm, lastJson<Read>(next.answer.stdout ?? '').rows]).toEqual([0, h1.jvm, 23]);
  }, 400_000);
});
