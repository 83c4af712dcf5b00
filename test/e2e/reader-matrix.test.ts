// The reader matrix, measured: one Hive table per encoding key of core/readers/encodings.ts
// (dev/readers/generate_matrix.py: two files with disjoint ranges, NULLs and edge values, each
// file's footer checked against its key), migrated metadata-only with `migrate table` through the
// REST catalog, then read back by PyIceberg, Spark (one session) and Trino — full read against the
// Hive content checksum (jobs/canonical.py) and predicate counts against Hive's — into one verdict
// per cell. The run's cells go to a results file; the test fails when one differs from
// core/readers/matrix.ts (regenerate with `npx tsx dev/readers/matrix.ts --write <results>`).
// Real CLI, HMS, S3, REST catalog, PyIceberg, Spark and Trino.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ErrorCode } from '../../core/errors';
import { MigrationError } from '../../core/errors';
import { ENCODINGS } from '../../core/readers/encodings';
import type { MatrixRow, ReaderCell } from '../../core/readers/matrix';
import { READER_MATRIX } from '../../core/readers/matrix';
import { dropMatrix, seedMatrix } from '../../dev/readers/seed';
import type { MatrixSeed, MatrixTable } from '../../dev/readers/seed';
import type { FullRead, MatrixResults, PredicateCount } from '../../dev/readers/verdicts';
import { cellOf, differences, refusedRow, sortRows, stable } from '../../dev/readers/verdicts';
import { mapLimit } from '../../dev/seed/s3';
import { ROOT, run } from '../helpers/cli';
import { dropNamespace, migrateWith, suiteConfig } from '../helpers/e2e-suite';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himx').toLowerCase();
const db = `${prefix}_enc`;
const nsPrefix = `${prefix}_`;
const ns = `${nsPrefix}${db}`;
const results = process.env.HIM_READER_MATRIX_OUT ?? path.join(env.HIM_STATE_DIR as string, 'reader-matrix.json');
const s3 = {
  endpoint: env.HIM_S3_ENDPOINT as string,
  region: env.AWS_REGION ?? 'us-east-1',
  accessKeyId: env.AWS_ACCESS_KEY_ID as string,
  secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string,
};
const bucket = env.HIM_S3_BUCKET ?? 'hive';
let dir = '';
let seed: MatrixSeed;
/** Wall seconds per phase, recorded in the results file (the suite must stay a few minutes). */
const seconds: Record<string, number> = {};
async function timed<T>(phase: string, f: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  try {
    return await f();
  } finally {
    seconds[phase] = (Date.now() - t0) / 1000;
  }
}

type Table = MatrixTable & { readonly canonical: readonly Record<string, unknown>[] };

/**
 * The one place the suite's migrate.yaml is made. It measures what readers do with every encoding, so
 * the conversion's reader guard (which decides from this very matrix) is off: `readers.required: []`.
 */
function matrixConfig(): string {
  return suiteConfig({ dir, queue: `${prefix}-q`, nsPrefix, databases: [db], extraYaml: 'readers:\n  required: []\n' });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-matrix-'));
  seed = await timed('seed', () =>
    seedMatrix({
      hms: env.HIM_HMS_PG_URI as string,
      db,
      bucket,
      s3,
      python: env.HIM_VERIFIER_PYTHON as string,
      log: () => undefined,
    }),
  );
}, 300_000);

afterAll(async () => {
  await dropNamespace(ns);
  await dropMatrix({ hms: env.HIM_HMS_PG_URI as string, db, bucket, s3 });
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

/**
 * `migrate table` for every table: the refusals by table name. The first alone (it creates the
 * namespace: concurrent creations race in the REST catalog), then three at a time. A retryable error
 * (catalog, HMS, S3 unavailable...) is not the tool refusing the table: the run stops there.
 */
async function migrateAll(tables: readonly Table[]): Promise<Map<string, string>> {
  const migrate = migrateWith(matrixConfig());
  const refused = new Map<string, string>();
  const one = async (t: Table): Promise<void> => {
    const r = await migrate(['table', `${db}.${t.name}`, '--json'], 300_000);
    if (r.code === 0) return;
    const { code, text } = refusal(r.stdout, r.stderr);
    if (code !== undefined && new MigrationError(code as ErrorCode, '').retryable) {
      throw new Error(`migrate table ${db}.${t.name}: ${text} (retryable: not a refusal, so not a measurement)`);
    }
    refused.set(t.name, stable(`exit ${r.code}: ${text}`, db));
  };
  const [first, ...rest] = tables;
  if (first !== undefined) await one(first);
  await mapLimit(rest, 3, one);
  return refused;
}

/** What `migrate table --json` said when it did not migrate: the error code and message, or the findings. */
function refusal(stdout: string, stderr: string): { readonly code?: string; readonly text: string } {
  try {
    const j = JSON.parse(stdout) as {
      error?: { code?: string; message?: string };
      code?: string;
      message?: string;
      findings?: { code: string }[];
    };
    const e = j.error ?? j;
    if (e.code !== undefined) return { code: e.code, text: `${e.code}: ${(e.message ?? '').split('\n')[0] ?? ''}`.slice(0, 240) };
    if (j.findings !== undefined) return { text: j.findings.map((f) => f.code).join(', ') };
  } catch {
    // not JSON: the first line of what it printed
  }
  return { text: ((stderr || stdout).trim().split('\n')[0] ?? '').slice(0, 240) };
}

interface Measured {
  readonly reads: Map<string, FullRead>;
  readonly counts: Map<string, PredicateCount[]>;
}

/** dev/verifier/read_matrix.py over every migrated table: full reads and predicate counts, keyed `engine/table`. */
async function readMatrix(tables: readonly Table[]): Promise<Measured> {
  const spec = path.join(dir, 'matrix-spec.json');
  writeFileSync(spec, JSON.stringify(tables.map((t) => ({ table: `${ns}.${t.name}`, predicates: t.predicates }))));
  const r = await run(
    env.HIM_VERIFIER_PYTHON as string,
    [
      path.join(ROOT, 'dev/verifier/read_matrix.py'),
      '--spec',
      spec,
      '--engines',
      'pyiceberg,spark,trino',
      '--sample',
      '100',
      '--catalog-uri',
      env.HIM_ICEBERG_REST_URI as string,
      '--s3-endpoint',
      env.HIM_S3_ENDPOINT as string,
      '--trino-uri',
      env.HIM_TRINO_URI as string,
    ],
    600_000,
  );
  if (r.code !== 0) throw new Error(`read_matrix.py exited ${r.code}: ${r.stderr.slice(-2000)}`);
  const reads = new Map<string, FullRead>();
  const counts = new Map<string, PredicateCount[]>();
  for (const line of r.stdout.trim().split('\n')) {
    const c = JSON.parse(line) as FullRead & PredicateCount & { engine: string; table: string; kind: 'read' | 'count' };
    const k = `${c.engine}/${c.table}`;
    if (c.kind === 'read') reads.set(k, c);
    else counts.set(k, [...(counts.get(k) ?? []), c]);
  }
  return { reads, counts };
}

describe('the reader matrix', () => {
  it('every encoding key: migrated metadata-only, read by PyIceberg, Spark and Trino, verdicts equal core/readers/matrix.ts', async () => {
    const tables = seed.tables as readonly Table[];
    // Every key the generator makes is a key of the matrix, and at least 40 are measured.
    expect(tables.map((t) => t.encoding).filter((k) => !ENCODINGS.some((e) => e.key === k))).toEqual([]);
    expect(tables.length).toBeGreaterThanOrEqual(40);

    const refused = await timed('migrate', () => migrateAll(tables));
    const migrated = tables.filter((t) => !refused.has(t.name));
    const { reads, counts } =
      migrated.length > 0
        ? await timed('read', () => readMatrix(migrated))
        : { reads: new Map<string, FullRead>(), counts: new Map<string, PredicateCount[]>() };

    const rows: MatrixRow[] = tables.map((t) => {
      const why = refused.get(t.name);
      if (why !== undefined) return refusedRow(t.encoding, why);
      const cell = (engine: 'pyiceberg' | 'spark' | 'trino'): ReaderCell => {
        const k = `${engine}/${ns}.${t.name}`;
        const c = cellOf(t, reads.get(k), counts.get(k) ?? []);
        return { verdict: c.verdict, detail: stable(c.detail, ns) };
      };
      return { key: t.encoding, cells: { pyiceberg: cell('pyiceberg'), spark: cell('spark'), trino: cell('trino') } };
    });
    const out: MatrixResults = { rows: sortRows(rows), seconds };
    writeFileSync(results, `${JSON.stringify(out, null, 1)}\n`);
    console.log(`reader matrix: ${rows.length} encodings × 3 readers measured in ${JSON.stringify(seconds)} s; results in ${results}`);

    const diff = differences(out.rows, READER_MATRIX);
    if (diff.length > 0) {
      throw new Error(
        `the measured reader matrix differs from core/readers/matrix.ts in ${diff.length} cell(s):\n  ${diff.join('\n  ')}\n` +
          `regenerate: npx tsx dev/readers/matrix.ts --write ${results} && npx tsx dev/docs/gen.ts`,
      );
    }
    expect(diff).toEqual([]);
  }, 900_000);
});
