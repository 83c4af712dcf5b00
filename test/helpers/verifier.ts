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

/** One engine's (or several, comma-separated: `pyiceberg,spark`) reads through the stack's REST catalog, with the engine of each line. */
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
      ...names,
    ],
    600_000,
  );
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TableRead & { engine: string });
}
