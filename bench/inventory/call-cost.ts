// Per-call cost of the HMS calls an inventory can use, on one connection, serially: how much of a
// get_partitions is per call and how much per partition. Prints ms per call for each method.
// Run: npx tsx bench/inventory/call-cost.ts --prefix bench_scale_10000x10x1 [--n 300]
import { performance } from 'node:perf_hooks';
import { openHms } from '../../adapters/hms/thrift/connection';
import * as ttypes from '../../thrift-idl/gen/hive_metastore_types';

const argv = process.argv.slice(2);
const arg = (k: string, d: string): string => {
  const i = argv.indexOf(`--${k}`);
  return i >= 0 && argv[i + 1] !== undefined ? (argv[i + 1] as string) : d;
};

/** Every Partition field the core/hive model keeps. */
const PARTITION_FIELDS = [
  'values',
  'createTime',
  'lastAccessTime',
  'parameters',
  'sd.location',
  'sd.inputFormat',
  'sd.outputFormat',
  'sd.compressed',
  'sd.numBuckets',
  'sd.serdeInfo.name',
  'sd.serdeInfo.serializationLib',
  'sd.serdeInfo.parameters',
  'sd.cols',
  'sd.bucketCols',
  'sd.sortCols',
  'sd.parameters',
  'sd.skewedInfo',
  'sd.storedAsSubDirectories',
];

async function main(): Promise<void> {
  const db = arg('prefix', 'bench_scale_10000x10x1');
  const n = Number(arg('n', '300'));
  const conn = await openHms(arg('hms-uri', 'thrift://127.0.0.1:9083'), { connectTimeoutMs: 10_000, callTimeoutMs: 60_000 });
  const names = (await conn.call('get_all_tables', (c) => c.get_all_tables(db))).slice(0, n);
  const time = async (label: string, fn: (t: string) => Promise<unknown>): Promise<void> => {
    for (const t of names.slice(0, 20)) await fn(t); // warm-up
    const t0 = performance.now();
    for (const t of names) await fn(t);
    process.stdout.write(`${label.padEnd(44)} ${((performance.now() - t0) / names.length).toFixed(2)} ms/call\n`);
  };
  const caps = new ttypes.ClientCapabilities({ values: [ttypes.ClientCapability.INSERT_ONLY_TABLES] });
  await time('get_database', () => conn.call('get_database', (c) => c.get_database(db)));
  await time('get_partition_names', (t) => conn.call('x', (c) => c.get_partition_names(db, t, -1)));
  await time('get_partitions max 1', (t) => conn.call('x', (c) => c.get_partitions(db, t, 1)));
  await time('get_partitions all', (t) => conn.call('x', (c) => c.get_partitions(db, t, -1)));
  const specs = (fields: string[]) => (t: string) =>
    conn.call('x', (c) =>
      c.get_partitions_with_specs(
        new ttypes.GetPartitionsRequest({
          dbName: db,
          tblName: t,
          projectionSpec: new ttypes.GetProjectionsSpec({ fieldList: fields, includeParamKeyPattern: '', excludeParamKeyPattern: '' }),
          filterSpec: new ttypes.GetPartitionsFilterSpec({}),
        }),
      ),
    );
  if (process.env.SHOW) process.stdout.write(`${JSON.stringify(await specs([])(names[0] as string)).slice(0, 4000)}\n`);
  await time('get_partitions_with_specs, all fields', specs([]));
  await time('get_partitions_with_specs, values+location', specs(['values', 'sd.location']));
  await time('get_partitions_with_specs, model fields', specs(PARTITION_FIELDS)).catch((e: unknown) =>
    process.stdout.write(`model fields: ${String(e)}\n`),
  );
  await time('get_table_objects_by_name_req 1 table', (t) =>
    conn.call('x', (c) => c.get_table_objects_by_name_req(new ttypes.GetTablesRequest({ dbName: db, tblNames: [t], capabilities: caps }))),
  );
  const proj = async (fields: string[]): Promise<void> => {
    const spec = new ttypes.GetProjectionsSpec({ fieldList: fields, includeParamKeyPattern: '', excludeParamKeyPattern: '' });
    const t0 = performance.now();
    for (let i = 0; i + 100 <= names.length; i += 100) {
      const r = await conn.call('x', (c) =>
        c.get_table_objects_by_name_req(
          new ttypes.GetTablesRequest({ dbName: db, tblNames: names.slice(i, i + 100), capabilities: caps, projectionSpec: spec }),
        ),
      );
      if (i === 0 && process.env.SHOW) process.stdout.write(JSON.stringify(r.tables?.[0]).slice(0, 3000) + '\n');
    }
    process.stdout.write(
      `${`tables by 100, projection ${fields.join(',')}`.slice(0, 60).padEnd(60)} ${((performance.now() - t0) / names.length).toFixed(2)} ms/table\n`,
    );
  };
  await proj(['tableName']);
  await proj(['tableName', 'owner', 'sd.location']);
  await proj([
    'tableName',
    'dbName',
    'owner',
    'ownerType',
    'createTime',
    'lastAccessTime',
    'retention',
    'sd.location',
    'sd.cols',
    'sd.serdeInfo',
    'sd.parameters',
    'parameters',
    'viewOriginalText',
    'viewExpandedText',
    'tableType',
  ]).catch((e: unknown) => process.stdout.write(`${String(e)}\n`));
  for (const size of [10, 100, 300]) {
    const t0 = performance.now();
    let k = 0;
    for (let i = 0; i + size <= names.length; i += size, k++) {
      await conn.call('x', (c) =>
        c.get_table_objects_by_name_req(
          new ttypes.GetTablesRequest({ dbName: db, tblNames: names.slice(i, i + size), capabilities: caps }),
        ),
      );
    }
    process.stdout.write(
      `${`get_table_objects_by_name_req ${size} tables`.padEnd(44)} ${((performance.now() - t0) / (k * size)).toFixed(2)} ms/table\n`,
    );
  }
  conn.close();
}
main().catch((e: unknown) => {
  setTimeout(() => process.exit(1), 100).unref();
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
