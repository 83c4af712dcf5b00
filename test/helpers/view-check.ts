// dev/verifier/view_check.py from a test: the Iceberg view in Spark through the stack's REST catalog
// vs the Hive view's SQL over the Hive tables' Parquet files (pyarrow), one JSON line back. Test tooling.
import path from 'node:path';
import { ROOT, run } from './cli';
import { testStack } from './stack-env';

export interface VerifierSide {
  readonly rows: number;
  readonly checksum: string;
}

export async function verifierViewCheck(o: {
  readonly catalog: string;
  /** `ns.view` in the catalog. */
  readonly view: string;
  readonly hiveSql: string;
  /** `db.table` → its directory (s3://). */
  readonly bases: readonly (readonly [string, string])[];
  /** `db.view` → its SQL, in dependency order. */
  readonly hiveViews: readonly (readonly [string, string])[];
}): Promise<{ iceberg: VerifierSide; hive: VerifierSide; equal: boolean }> {
  const args = [
    path.join(ROOT, 'dev', 'verifier', 'view_check.py'),
    ...['--catalog-name', o.catalog, '--view', o.view, '--hive-sql', o.hiveSql],
    ...o.bases.flatMap(([t, dir]) => ['--base', `${t}=${dir}`]),
    ...o.hiveViews.flatMap(([v, sql]) => ['--hive-view', `${v}=${sql}`]),
  ];
  const r = await run(testStack().HIM_VERIFIER_PYTHON as string, args, 400_000);
  if (r.code !== 0) throw new Error(`view_check.py ${o.view} failed (${r.code}):\n${r.stderr.slice(-3000)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as never;
}
