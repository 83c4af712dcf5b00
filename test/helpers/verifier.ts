// Reading migrated tables back with the stack's verifier (dev/verifier/read_tables.py): one JSON
// line per table with its row count and canonical checksum, or the engine's error.
import path from 'node:path';
import { ROOT, run } from './cli';
import { testStack } from './stack-env';

export interface TableRead {
  readonly table: string;
  readonly rows: number;
  readonly checksum: string;
  readonly error?: string;
}

/** PyIceberg through the stack's REST catalog: `names` are `namespace.table`. */
export async function readWithPyIceberg(names: readonly string[]): Promise<TableRead[]> {
  return readWith('pyiceberg', names);
}

/**
 * One engine's (or several, comma-separated: `pyiceberg,spark,trino`) reads through the stack's REST
 * catalog, with the engine of each line. Trino is the stack's `trino` component (its catalog `iceberg`
 * points at the same REST catalog and S3).
 */
export async function readWith(engines: string, names: readonly string[]): Promise<(TableRead & { readonly engine: string })[]> {
  const env = testStack();
  const r = await run(
    env.HIM_VERIFIER_PYTHON as string,
    [
      path.join(ROOT, 'dev/verifier/read_tables.py'),
      '--engines',
      engines,
      '--catalog-uri',
      env.HIM_ICEBERG_REST_URI ?? '',
      '--s3-endpoint',
      env.HIM_S3_ENDPOINT ?? '',
      ...(env.HIM_TRINO_URI ? ['--trino-uri', env.HIM_TRINO_URI] : []),
      ...names,
    ],
    600_000,
  );
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TableRead & { engine: string });
}

/** A Trino query's canonical rows (canonical.py values), or the error Trino answered with. */
export type TrinoResult =
  | { readonly rows: number; readonly checksum: string; readonly sample: Record<string, unknown>[] }
  | { readonly error: string; readonly errorName: string };

/** Run `sql` in the stack's Trino (dev/verifier/trino_sql.py); `session` e.g. { 'iceberg.parquet_ignore_statistics': 'true' }. */
export async function trinoSql(sql: string, session: Record<string, string> = {}): Promise<TrinoResult> {
  const env = testStack();
  const r = await run(
    env.HIM_VERIFIER_PYTHON as string,
    [
      path.join(ROOT, 'dev/verifier/trino_sql.py'),
      '--trino-uri',
      env.HIM_TRINO_URI ?? '',
      '--sample',
      '1000000',
      ...Object.entries(session).flatMap(([k, v]) => ['--session', `${k}=${v}`]),
      sql,
    ],
    600_000,
  );
  if (r.code !== 0) throw new Error(`trino_sql.py exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as TrinoResult;
}
