// Nightly-validation benchmark: N tables × M files (scale seeder on hms-pg: N tables × M
// partitions × 1 tiny Parquet file), converted once in-process (not timed) and registered in the
// REST catalog, then the nightly checks of every table (engine/drift-check.ts: HMS
// object + partitions, catalog entry, our metadata files, listing of every partition, manifests
// read back, footer record counts) timed at bounded concurrency. Prints wall time, tables/s,
// files/s and peak RSS; goal: 1,000 × 20 in ≤ 2 min. A peer for the same job does not
// exist in the field (UCX checks once, the Spark procedures not at all), so the ratio printed is
// against the time budget. Run:
//   npx tsx bench/validate/validate.bench.ts [--tables 1000] [--files 20] [--concurrency 16] [--prefix benchval]
// The seeded warehouse stays for reuse (drop: npx tsx dev/seed/main.ts --hms … --prefix benchval --scale N,M,1 --drop).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { convertTable } from '../../engine/convert-table';
import { mapOrdered } from '../../core/ordered-pool';
import { conversionFor, targetOf } from '../../core/convert/plan-conversion';
import { checkTableDrift } from '../../engine/drift-check';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import type { TableRecord } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { fingerprintOf } from '../../activities/index';
import { formatTableIdent } from '../../core/catalog/catalog';
import type { TableInventory } from '../../core/hive/model';
import type { PlanFile } from '../../core/plan/plan-file';
import { runStatus } from '../../core/validate/drift';
import type { ValidationRow } from '../../core/validate/drift';
import { testStack } from '../../test/helpers/stack-env';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const TABLES = Number(arg('tables', '1000'));
const FILES = Number(arg('files', '20'));
const CONCURRENCY = Number(arg('concurrency', '16'));
const PREFIX = arg('prefix', 'benchval');
const root = path.resolve(__dirname, '..', '..');

function rssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const t0 = performance.now();
  execFileSync(
    path.join(root, 'node_modules', '.bin', 'tsx'),
    ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', PREFIX, '--scale', `${TABLES},${FILES},1`],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: process.env },
  );
  const db = `${PREFIX}_scale_${TABLES}x${FILES}x1`;
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string, poolSize: 8, concurrency: 8 });
  const names = await hms.listTables(db);
  const inventories: TableInventory[] = [];
  for (let i = 0; i < names.length; i += 100) inventories.push(...(await hms.getTables(db, names.slice(i, i + 100))));
  process.stderr.write(
    `[bench] ${inventories.length} tables in ${db} (seed/reuse + inventory ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
  );

  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  const store = new RoutingObjectStore({
    metadataPrefixes: inventories.map((i) => `${(i.table.sd.location ?? '').replace(/\/+$/, '')}/metadata/`),
    s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
  });
  const nsPrefix = `${PREFIX}_v_`;
  const plan: PlanFile = {
    hash: `${'b'.repeat(52)}${TABLES.toString(16).padStart(6, '0')}${FILES.toString(16).padStart(6, '0')}`,
    createdAt: '2026-12-01T00:00:00.000Z',
    targetCatalog: catalog.name,
    waves: [
      {
        number: 1,
        tables: inventories.map((i) => ({
          id: `${db}.${i.table.name}`,
          team: `team${i.table.name.slice(-1)}`,
          class: 'migrate',
          fingerprint: fingerprintOf(i),
          files: FILES,
          bytes: 0,
        })),
        estimates: { files: 0, bytes: 0, expectedSeconds: 0 },
      },
    ],
  } as unknown as PlanFile;

  // Setup (not timed): convert + register every table once; a rerun finds them registered.
  const t1 = performance.now();
  const records: TableRecord[] = [];
  for await (const r of mapOrdered(inventories, 8, async (inv) => {
    const id = `${db}.${inv.table.name}`;
    const p = conversionFor(plan, id, inv, nsPrefix, 'bench');
    const ident = targetOf(id, nsPrefix);
    const res = await convertTable(store, catalog, {
      inventory: inv,
      identity: p.identity,
      timestampMs: p.timestampMs,
      toolVersion: 'bench',
      target: ident,
      allowUnbucketed: true,
      write: { footerConcurrency: 16 },
    });
    if (res.validation?.ok !== true) throw new Error(`${id}: ${JSON.stringify(res.validation?.findings)}`);
    const rec: TableRecord = {
      planHash: plan.hash,
      tableId: id,
      wave: 1,
      status: 'migrated',
      original: inv,
      originalDigest: fingerprintOf(inv),
      target: `${catalog.name}:${formatTableIdent(ident)}`,
      metadataLocation: p.metadataLocation,
      snapshotId: p.snapshotId.toString(),
      writtenFiles: res.written?.files.map((f) => ({ path: f.path, bytes: f.bytes, outcome: f.outcome })) ?? [],
      validation: null,
      errorCode: null,
      errorMessage: null,
    };
    return rec;
  }))
    records.push(r);
  process.stderr.write(
    `[bench] setup: ${records.length} tables converted/registered in ${((performance.now() - t1) / 1000).toFixed(1)} s\n`,
  );

  // Timed: the nightly checks of every table.
  const deps = { hms, catalog, storeFor: () => store, namespacePrefix: nsPrefix, toolVersion: 'bench', footerConcurrency: 8 };
  const rows: ValidationRow[] = [];
  const t2 = performance.now();
  for await (const r of mapOrdered(records, CONCURRENCY, (rec) => checkTableDrift(deps, plan, rec, 'bench-run', () => new Date())))
    rows.push(...r);
  const secs = (performance.now() - t2) / 1000;
  const status = runStatus(rows);
  const files = TABLES * FILES;
  const lines = [
    `validate: ${TABLES} tables × ${FILES} files (${files} files), concurrency ${CONCURRENCY}`,
    `  wall ${secs.toFixed(1)} s · ${(TABLES / secs).toFixed(1)} tables/s · ${(files / secs).toFixed(0)} files/s · peak RSS ${rssMb()} MB`,
    `  run status: ${status} (${rows.length} result rows; not ok: ${rows.filter((r) => r.status !== 'ok').length})`,
    `  goal ≤ 120 s: ${secs <= 120 ? 'met' : 'NOT met'} (${(120 / secs).toFixed(2)}x of budget)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--keep') === false) {
    for (const rec of records) await catalog.dropTable(targetOf(rec.tableId, nsPrefix)).catch(() => undefined);
    await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
  }
  await hms.close();
  store.destroy();
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
