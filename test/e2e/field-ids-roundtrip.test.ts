// Field ids embedded in the data files, on the stack: orders planned and applied through a real
// `migrate worker` (REST catalog, HMS, S3); Hive gains a column `note` at the end (after the
// partition keys in Iceberg's order) and `migrate sync` adds it; the wave is cut over; Spark sets
// write.data.path to the Hive location and appends a new partition — its Parquet files carry
// Iceberg field ids (year 5, region 6, note 7); `rollback` puts that partition back into Hive. A new
// `plan` (the assessment reports FIELD_IDS_ADOPTED from the newest partition's footer) and `apply`:
// the conversion adopts the files' ids instead of fresh ids in Hive column order (which would give
// note 5 and make readers read the appended rows' year as note), validation finds no id pointing at
// another column, and PyIceberg, Spark and Trino read exactly Hive's content (canonical checksum of
// the files as Hive reads them); `year = 2099` returns the appended rows in each engine, with their
// note; under fresh ids in Hive order (today's conversion) the same footer fails the id check
// validation runs (VALIDATION_FIELD_ID_MISMATCH naming year and note). Then ids that disagree: the
// Spark file rewritten with note's and region's ids swapped, as a new Hive partition — `sync` refuses
// it and a new conversion (`migrate table`) refuses the table, both FIELD_IDS_INCONSISTENT naming the file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import type { HivePartition } from '../../core/hive/model';
import { ParquetFooterReader } from '../../adapters/storage/object-read/parquet-footer-reader';
import { tableIdent } from '../../core/catalog/catalog';
import { ErrorCode } from '../../core/errors';
import { buildNameMapping } from '../../core/iceberg/name-mapping';
import type { Schema } from '../../core/iceberg/types';
import { fieldIdMismatches } from '../../core/validate/field-ids';
import type { SeedFile, SeedTable } from '../../dev/seed/manifest';
import { ROOT, run } from '../helpers/cli';
import { planAndApply } from '../helpers/e2e-suite';
import { seedPartition } from '../helpers/live-tables';
import type { SyncLive } from '../helpers/sync-live';
import { addColumnAndPartition, hiveContent, hiveTable, migrateIn, setUpSyncLive, tearDownSyncLive } from '../helpers/sync-live';
import { testStack } from '../helpers/stack-env';
import { readWith, trinoSql } from '../helpers/verifier';

const env = testStack();
let l: SyncLive | undefined;
/** What the round trip leaves for the refusal: the Spark file, the second plan's hash, the Hive location. */
let trip: { sparkFile: SeedFile; plan2: string; hiveLocation: string } | undefined;

/** `src` rewritten by pyarrow to `dst` with the field ids of columns `a` and `b` swapped (same data). */
const SWAP_IDS_PY = `
import sys, pyarrow as pa, pyarrow.parquet as pq
src, dst, a, b = sys.argv[1:5]
t = pq.read_table(src)
ids = {f.name: f.metadata[b'PARQUET:field_id'] for f in t.schema}
swap = {a: ids[b], b: ids[a]}
fields = [f.with_metadata({b'PARQUET:field_id': swap.get(f.name, ids[f.name])}) for f in t.schema]
pq.write_table(t.cast(pa.schema(fields)), dst)
print(pq.read_metadata(dst).num_rows)
`;

/** Spark SQL against the stack's REST catalog (dev/verifier/spark_sql.py): each statement's rows. */
async function spark(statements: string[]): Promise<string[][][]> {
  const r = await run(env.HIM_VERIFIER_PYTHON as string, [
    path.join(ROOT, 'dev/verifier/spark_sql.py'),
    '--catalog-uri',
    env.HIM_ICEBERG_REST_URI as string,
    '--s3-endpoint',
    env.HIM_S3_ENDPOINT as string,
    ...statements.flatMap((s) => ['--sql', s]),
  ]);
  if (r.code !== 0) throw new Error(`spark_sql.py failed (${r.code}): ${r.stderr.slice(-4000)}`);
  return (JSON.parse(r.stdout) as { results: string[][][] }).results;
}

/** PyIceberg's rows of `table` under `filter` (order_id, note, year), sorted. */
async function pyicebergWhere(table: string, filter: string): Promise<string[][]> {
  const py = [
    'import sys, json',
    `sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'dev/verifier'))})`,
    'from read_table import pyiceberg_catalog',
    'cat = pyiceberg_catalog(sys.argv[1], sys.argv[2])',
    't = cat.load_table(sys.argv[3]).scan(row_filter=sys.argv[4], selected_fields=("order_id", "note", "year")).to_arrow()',
    'rows = sorted([[str(r["order_id"]), str(r["note"]), str(r["year"])] for r in t.to_pylist()])',
    'print(json.dumps(rows))',
  ].join('\n');
  const r = await run(env.HIM_VERIFIER_PYTHON as string, [
    '-c',
    py,
    env.HIM_ICEBERG_REST_URI as string,
    env.HIM_S3_ENDPOINT as string,
    table,
    filter,
  ]);
  if (r.code !== 0) throw new Error(`pyiceberg scan failed (${r.code}): ${r.stderr.slice(-3000)}`);
  return JSON.parse(r.stdout) as string[][];
}

/** The files directly in `location` (as Hive lists a partition: not recursive; `_`/`.` files are not data). */
async function filesIn(s: SyncLive, location: string, partition: string): Promise<SeedFile[]> {
  const out: SeedFile[] = [];
  for await (const e of s.store.list(location)) {
    const base = e.path.slice(e.path.lastIndexOf('/') + 1);
    if (e.kind !== 'file' || base.startsWith('_') || base.startsWith('.')) continue;
    out.push({ key: e.path.replace(/^s3[an]?:\/\/[^/]+\//, ''), location: e.path, size: e.size, rows: 0, sha256: '', partition });
  }
  return out;
}

/** Hive's rows and canonical checksum of orders, read from its partitions' files as HMS has them now. */
async function hiveNow(s: SyncLive, base: SeedTable): Promise<{ rows: number; checksum: string }> {
  const inv = await hiveTable(s, 'orders');
  const files: SeedFile[] = [];
  for (const p of inv.partitions) files.push(...(await filesIn(s, p.sd.location as string, p.name)));
  return hiveContent(s, { ...base, partitions: inv.partitions.map(seedPartition), files });
}

interface AssessedJson {
  id: string;
  class: string;
  findings: { code: string; effect: string; evidence: string }[];
}

describe('embedded field ids: migrate → sync (trailing column) → cutover → Spark append → rollback → plan → apply', () => {
  beforeAll(async () => {
    l = await setUpSyncLive('himids', ['orders']);
  }, 900_000);

  afterAll(async () => {
    await tearDownSyncLive(l);
  }, 600_000);

  it('the files ids are adopted: PyIceberg, Spark and Trino read exactly what Hive reads, and year = 2099 returns the appended rows with their note', async () => {
    const s = l as SyncLive;
    const id = s.planHash.slice(0, 12);
    const orders = `${s.db}.orders`;
    const ident = tableIdent([s.ns], 'orders');
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });

    // Hive gains `note` at the end (and a partition whose files have it); the sync adds it to the schema after year, region.
    const withNote = await addColumnAndPartition(s, 'orders', 'year=2024/region=us', ['2030', 'us'], 'note');
    const sync = await migrateIn(s, ['sync', id, '--table', orders, '--json']);
    expect([sync.code, sync.stderr]).toEqual([0, '']);
    const synced = (await catalog.loadTable(ident)).metadata;
    const syncedSchema = synced.schemas.find((x) => x.schemaId === synced.currentSchemaId) as Schema;
    const idOf = (sc: Schema, n: string): number | undefined => sc.fields.find((f) => f.name === n)?.id;
    expect(syncedSchema.fields.map((f) => f.name).slice(-3)).toEqual(['year', 'region', 'note']);

    // Cutover, then Spark writes into the Hive layout and appends a new partition (year=2099/region=zz).
    const hiveLocation = ((await hiveTable(s, 'orders')).table.sd.location as string).replace(/\/+$/, '');
    const cut = await migrateIn(s, ['cutover', id, '--wave', '1', '--wait', '--json'], 900_000);
    if (cut.code !== 0)
      throw new Error(`cutover failed (${cut.code}): ${cut.stdout}\n${cut.stderr}\n${s.worker?.log().slice(-4000) ?? ''}`);
    const cols = syncedSchema.fields.map((f) => f.name);
    const value: Record<string, string> = {
      order_id: 'order_id + 900000',
      year: '2099',
      region: "'zz'",
      note: "concat('spark-', CAST(order_id AS STRING))",
    };
    const appended = await spark([
      `ALTER TABLE \`${s.ns}\`.orders SET TBLPROPERTIES ('write.data.path' = '${hiveLocation}')`,
      `INSERT INTO \`${s.ns}\`.orders SELECT ${cols.map((c) => value[c] ?? `\`${c}\``).join(', ')} FROM \`${s.ns}\`.orders WHERE year = 2024 AND region = 'eu'`,
      `SELECT count(*) FROM \`${s.ns}\`.orders WHERE year = 2099`,
    ]);
    const sparkRows = Number(appended[2]?.[0]?.[0]);
    expect(sparkRows).toBeGreaterThan(0);
    const afterAppend = (await catalog.loadTable(ident)).metadata;
    const head = afterAppend.snapshots.find((x) => x.snapshotId === afterAppend.currentSnapshotId);
    expect(head?.summary['engine-name']).toBe('spark');

    // The appended file carries the ids the synced table gave each column (Spark writes them).
    const newPart = `${hiveLocation}/year=2099/region=zz`;
    const [sparkFile] = (await filesIn(s, newPart, 'year=2099/region=zz')).filter((f) => f.location.endsWith('.parquet'));
    expect(sparkFile).toBeDefined();
    const footer = await new ParquetFooterReader(s.store).readStats(sparkFile?.location as string, sparkFile?.size as number, {
      schema: syncedSchema,
      nameMapping: buildNameMapping(syncedSchema),
    });
    const fileId = (n: string): number | null | undefined =>
      footer.fileFieldIds?.[(footer.fileColumns ?? []).findIndex((c) => c[0] === n)]?.[0];
    expect(['year', 'region', 'note'].map(fileId)).toEqual(['year', 'region', 'note'].map((n) => idOf(syncedSchema, n)));

    // Rollback puts the partition back into Hive.
    const rb = await migrateIn(s, ['rollback', id, '--wave', '1', '--json'], 900_000);
    expect([rb.code, rb.stderr]).toEqual([0, '']);
    expect((await hiveTable(s, 'orders')).partitions.map((p) => p.name)).toContain('year=2099/region=zz');
    expect(await catalog.tableExists(ident)).toBe(false);
    const hive = await hiveNow(s, withNote);
    trip = { sparkFile: sparkFile as SeedFile, plan2: '', hiveLocation };

    // Assessment: the newest partition's footer carries ids consistent with the Hive columns.
    const assess = await run(path.join(ROOT, 'bin', 'migrate'), ['assess', '--config', s.cfgFile, '--database', s.db, '--json']);
    expect([assess.code, assess.stderr]).toEqual([0, '']);
    const assessed = (JSON.parse(assess.stdout) as { tables: AssessedJson[] }).tables.find((t) => t.id === orders);
    const adopted = assessed?.findings.find((f) => f.code === 'FIELD_IDS_ADOPTED');
    expect(adopted?.evidence).toContain(`note=${String(idOf(syncedSchema, 'note'))}`);
    expect(['migrate', 'migrate-with-warnings']).toContain(assessed?.class);

    // A new plan + apply: the conversion adopts the files' ids; validation passes.
    const again = await planAndApply((args, timeout) => migrateIn(s, args, timeout), mkdtempSync(path.join(os.tmpdir(), 'him-ids-plan-')), {
      workerLog: () => s.worker?.log() ?? '',
    });
    expect(again.hash).not.toBe(s.planHash);
    trip.plan2 = again.hash;
    const re = (await catalog.loadTable(ident)).metadata;
    const reSchema = re.schemas.find((x) => x.schemaId === re.currentSchemaId) as Schema;
    expect(reSchema.fields.map((f) => [f.name, f.id])).toEqual(
      [...cols.filter((c) => !['year', 'region', 'note'].includes(c)), 'note', 'year', 'region'].map((n) => [n, idOf(syncedSchema, n)]),
    );
    const spec = re.partitionSpecs.find((x) => x.specId === re.defaultSpecId);
    expect(spec?.fields.map((f) => [f.name, f.sourceId])).toEqual([
      ['year', idOf(syncedSchema, 'year')],
      ['region', idOf(syncedSchema, 'region')],
    ]);
    // The id check validation runs: nothing under the adopted schema; under fresh ids in Hive order, year and note.
    const layout = [{ file: sparkFile?.location as string, columns: footer.fileColumns ?? [], fieldIds: footer.fileFieldIds ?? [] }];
    expect(fieldIdMismatches(reSchema, reSchema.fields.length - 2, layout)).toEqual([]);
    const fresh: Schema = { ...reSchema, fields: reSchema.fields.map((f, i) => ({ ...f, id: i + 1 })) };
    const caught = fieldIdMismatches(fresh, fresh.fields.length - 2, layout);
    expect(caught.every((f) => f.code === ErrorCode.VALIDATION_FIELD_ID_MISMATCH)).toBe(true);
    expect(caught.map((f) => f.path)).toEqual(expect.arrayContaining(['note', 'year']));

    // The nightly checks see the appended file's ids agree with the schema (check field-ids).
    const nightly = await migrateIn(s, ['validate', again.hash.slice(0, 12), '--json']);
    const rows = (JSON.parse(nightly.stdout || '{"rows":[]}') as { rows: { check: string; status: string; code: string }[] }).rows;
    expect(rows.filter((r) => r.check === 'field-ids').map((r) => [r.status, r.code])).toEqual([['ok', 'OK']]);

    // Every engine reads exactly Hive's content.
    const reads = await readWith('pyiceberg,spark,trino', [`${s.ns}.orders`]);
    expect(reads.map((r) => [r.engine, r.error, r.rows, r.checksum])).toEqual(
      ['pyiceberg', 'trino', 'spark'].map((e) => [e, undefined, hive.rows, hive.checksum]),
    );
    // year = 2099: the appended rows, with their note, in each engine.
    const py = await pyicebergWhere(`${s.ns}.orders`, 'year = 2099');
    expect(py).toHaveLength(sparkRows);
    expect(py.every(([oid, note, year]) => note === `spark-${Number(oid) - 900000}` && year === '2099')).toBe(true);
    const sp = (
      await spark([
        `SELECT count(*), count_if(note = concat('spark-', CAST(order_id - 900000 AS STRING))) FROM \`${s.ns}\`.orders WHERE year = 2099`,
      ])
    )[0]?.[0];
    expect(sp).toEqual([String(sparkRows), String(sparkRows)]);
    const tr = await trinoSql(
      `SELECT order_id, note FROM iceberg."${s.ns}".orders WHERE year = 2099 AND note = concat('spark-', CAST(order_id - 900000 AS varchar))`,
    );
    expect('rows' in tr ? tr.rows : tr).toBe(sparkRows);
  }, 3_600_000);

  it('ids that disagree: sync refuses the added file and a new conversion refuses the table, both FIELD_IDS_INCONSISTENT naming file and columns', async () => {
    const s = l as SyncLive;
    const t = trip as NonNullable<typeof trip>;
    const orders = `${s.db}.orders`;
    // The Spark file again, with note's and region's ids swapped, as a new Hive partition year=2100/region=zz.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'him-ids-swap-'));
    const src = path.join(dir, 'spark.parquet');
    const dst = path.join(dir, 'swapped.parquet');
    writeFileSync(src, await s.store.readRange(t.sparkFile.location, 0, t.sparkFile.size));
    const py = await run(env.HIM_VERIFIER_PYTHON as string, ['-c', SWAP_IDS_PY, src, dst, 'note', 'region']);
    expect([py.code, py.stderr.slice(-2000)]).toEqual([0, '']);
    const name = 'year=2100/region=zz';
    const location = `${t.hiveLocation}/${name}`;
    const swapped = `${location}/part-00000-swapped.parquet`;
    await s.store.put(swapped, readFileSync(dst));
    const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
    try {
      const inv = await hiveTable(s, 'orders');
      const from = inv.partitions.find((p) => p.name === 'year=2099/region=zz') as HivePartition;
      await writer.addPartitions(s.db, 'orders', [
        { ...from, values: ['2100', 'zz'], name, createTime: Math.floor(Date.now() / 1000), sd: { ...from.sd, location } },
      ]);
    } finally {
      await writer.close();
    }
    rmSync(dir, { recursive: true, force: true });

    // sync: the added file's ids point at other columns than the table's schema says → refused, nothing committed.
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const ident = tableIdent([s.ns], 'orders');
    const before = (await catalog.loadTable(ident)).metadataLocation;
    const sync = await migrateIn(s, ['sync', t.plan2.slice(0, 12), '--table', orders, '--json']);
    expect(sync.code).not.toBe(0);
    expect(sync.stdout + sync.stderr).toContain('FIELD_IDS_INCONSISTENT');
    expect(sync.stdout + sync.stderr).toContain('part-00000-swapped.parquet');
    expect((await catalog.loadTable(ident)).metadataLocation).toBe(before);

    // A new conversion of the table (`migrate table`, into another identifier): the files disagree → refused, nothing registered.
    const other = tableIdent([s.ns], 'orders_ids');
    const conv = await migrateIn(s, ['table', orders, '--target', `${s.ns}.orders_ids`, '--json'], 900_000);
    expect(conv.code).not.toBe(0);
    const said = conv.stdout + conv.stderr;
    expect(said).toContain('FIELD_IDS_INCONSISTENT');
    expect(said).toContain('part-00000-swapped.parquet');
    expect(said).toMatch(/'note'|'region'/);
    expect(await catalog.tableExists(other)).toBe(false);
  }, 1_800_000);
});
