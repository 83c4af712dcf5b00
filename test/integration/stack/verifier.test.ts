// The verifier's independent readers (PyIceberg and Spark, through the REST catalog) read back
// exactly the rows a fixture wrote: same row count, same order-independent checksum, and that
// checksum recomputed here from the fixture's canonical rows. Needs the local stack.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { createContext, loadComponent } from '../../../dev/stack/manifest';
import { testStack, uniqueName } from '../../helpers/stack-env';

const exec = promisify(execFile);
const env = testStack();
const VERIFIER_DIR = path.join(__dirname, '..', '..', '..', 'dev', 'verifier');
const ROWS = 12;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Fixture {
  rows: number;
  checksum: string;
  columns: string[];
  written: Record<string, Json>[];
}
interface ReadResult {
  engine: string;
  rows: number;
  checksum: string;
  columns: string[];
  sample: Record<string, Json>[];
}

/** canonical.py's canonical JSON: sorted keys, no spaces (values are already normalised). */
function canonicalJson(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k] ?? null)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** sha256 over the canonical lines sorted by code point (UTF-8 byte order), joined by "\n". */
function checksumOf(rows: Record<string, Json>[]): string {
  const lines = rows.map((r) => Buffer.from(canonicalJson(r), 'utf8')).sort(Buffer.compare);
  return createHash('sha256')
    .update(Buffer.from(lines.map((b) => b.toString('utf8')).join('\n'), 'utf8'))
    .digest('hex');
}

async function py<T>(script: string, args: string[], timeoutMs: number): Promise<T> {
  const python = env.HIM_VERIFIER_PYTHON ?? 'python3';
  const { stdout } = await exec(python, [path.join(VERIFIER_DIR, script), ...args], {
    env: { ...process.env, ...env },
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as T;
}

const common = (): string[] => ['--catalog-uri', env.HIM_ICEBERG_REST_URI ?? '', '--s3-endpoint', env.HIM_S3_ENDPOINT ?? ''];

describe('verifier (stack component)', () => {
  const ns = uniqueName('it_verifier');
  const table = `${ns}.fixture`;
  let fixture: Fixture;

  beforeAll(async () => {
    fixture = await py<Fixture>('make_table.py', [...common(), '--table', table, '--rows', String(ROWS)], 120_000);
  }, 150_000);

  afterAll(async () => {
    // The test wrote these files, so purging them is safe here (never for migrated tables).
    const rest = env.HIM_ICEBERG_REST_URI ?? '';
    await fetch(`${rest}/v1/namespaces/${ns}/tables/fixture?purgeRequested=true`, { method: 'DELETE' }).catch(() => undefined);
    await fetch(`${rest}/v1/namespaces/${ns}`, { method: 'DELETE' }).catch(() => undefined);
  });

  it('reports healthy: venv imports pyiceberg, pyarrow, pyspark and the jars are present', async () => {
    const h = await loadComponent('verifier').health(createContext(process.env, true));
    expect(h).toMatchObject({ ok: true });
    expect(h.detail).toMatch(/pyiceberg 0\.12\.0/);
  });

  it('fixture checksum matches the one recomputed from its canonical rows', () => {
    expect(fixture.rows).toBe(ROWS);
    expect(fixture.written).toHaveLength(ROWS);
    expect(fixture.checksum).toBe(checksumOf(fixture.written));
    // nulls and the null partition are really in the data
    expect(fixture.written.some((r) => r.amount === null)).toBe(true);
    expect(fixture.written.some((r) => r.region === null)).toBe(true);
  });

  it('PyIceberg reads the same rows', async () => {
    const r = await py<ReadResult>('read_table.py', ['--engine', 'pyiceberg', ...common(), '--table', table], 120_000);
    expect(r).toMatchObject({ engine: 'pyiceberg', rows: ROWS, checksum: fixture.checksum, columns: fixture.columns });
    expect(r.sample).toEqual(fixture.written.slice(0, 5));
  }, 150_000);

  it('Spark reads the same rows', async () => {
    const r = await py<ReadResult>(
      'read_table.py',
      ['--engine', 'spark', ...common(), '--table', table, '--jars-dir', env.HIM_SPARK_JARS_DIR ?? ''],
      240_000,
    );
    expect(r).toMatchObject({ engine: 'spark', rows: ROWS, checksum: fixture.checksum, columns: fixture.columns });
    expect(r.sample).toEqual(fixture.written.slice(0, 5));
  }, 270_000);
});
