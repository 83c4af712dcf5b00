// Insert-only ACID tables on the real stack: a database of its own seeded through
// the metastore's transaction API (dev/seed/acid.ts: committed, aborted and open writes) → plan:
// the insert-only tables are planned metadata-only (INSERT_ONLY_METADATA; the one with an open write
// warned INSERT_ONLY_WRITE_OPEN) → a write committed after the plan → apply: the committed writes'
// files (that new one included) and nothing else are the Iceberg tables, read by PyIceberg and Spark
// with the checksum the verifier computes from exactly those files; the table with the open write
// fails ACID_WRITE_OPEN with nothing registered → rollback restores the catalog and HMS; every file
// (the aborted and open writes' too) byte-identical. The real CLI, a real worker, Temporal, the REST
// catalog, HMS 4.0.1 and S3.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { openHms } from '../../adapters/hms/thrift/connection';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { readManifest, readManifestFiles } from '../../adapters/avro/manifest-reader';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { tableIdent } from '../../core/catalog/catalog';
import { tableFingerprint } from '../../core/hive/fingerprint';
import type { AcidSeedManifest, AcidSeedWrite } from '../../dev/seed/acid';
import { AcidWriter, seedAcid } from '../../dev/seed/acid';
import { ROOT, run } from '../helpers/cli';
import { dropNamespace, migrateWith, suiteConfig } from '../helpers/e2e-suite';
import type { WorkerProc } from '../helpers/hostile';
import { startWorker } from '../helpers/hostile';
import { testStack, uniqueName } from '../helpers/stack-env';
import { readWith } from '../helpers/verifier';

const env = testStack();
const db = `${uniqueName('lb_acid').toLowerCase()}`;
const nsPrefix = 'acid_';
const ns = `${nsPrefix}${db}`;
const taskQueue = `him-e2e-${db}`;
const s3 = {
  endpoint: env.HIM_S3_ENDPOINT as string,
  region: env.AWS_REGION as string,
  accessKeyId: env.AWS_ACCESS_KEY_ID as string,
  secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string,
};
let dir = '';
let cfgFile = '';
let seed: AcidSeedManifest;
let worker: WorkerProc | undefined;
let reader: ThriftHmsReader;
const log: string[] = [];

let migrate: ReturnType<typeof migrateWith>;
const table = (name: string) => seed.tables.find((t) => t.name === name) as AcidSeedManifest['tables'][number];
const committedFiles = (name: string, extra: readonly AcidSeedWrite[] = []): string[] =>
  [...table(name).writes, ...extra].filter((w) => w.state === 'committed').flatMap((w) => w.rows.map((r) => r.file));
const filesOf = (name: string, state: AcidSeedWrite['state']): string[] =>
  table(name)
    .writes.filter((w) => w.state === state)
    .flatMap((w) => w.rows.map((r) => r.file));

async function sha256Of(store: RoutingObjectStore, uri: string): Promise<string> {
  const { size } = await store.head(uri);
  return createHash('sha256')
    .update(await store.readRange(uri, 0, size))
    .digest('hex');
}

/** The verifier's rows and checksum over exactly `files` (with their partition value when partitioned). */
async function checksumOfFiles(
  files: readonly { file: string; partition: string }[],
  partitioned: boolean,
): Promise<{ rows: number; checksum: string }> {
  const r = await run(env.HIM_VERIFIER_PYTHON as string, [
    path.join(ROOT, 'dev/verifier/read_files_only.py'),
    '--s3-endpoint',
    env.HIM_S3_ENDPOINT as string,
    ...(partitioned ? ['--partition-key', 'day'] : []),
    ...files.map((f) => (partitioned ? `${f.file}@${f.partition}` : f.file)),
  ]);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as { rows: number; checksum: string };
}

describe('insert-only ACID tables: committed writes migrate metadata-only, aborted and open ones do not', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-acid-'));
    reader = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
    seed = await seedAcid({
      hms: env.HIM_HMS_PG_URI as string,
      database: db,
      bucket: 'hive',
      s3,
      python: env.HIM_VERIFIER_PYTHON as string,
      log: (m) => log.push(m),
    });
    cfgFile = suiteConfig({ dir, queue: taskQueue, nsPrefix, databases: [db] });
    migrate = migrateWith(cfgFile);
    worker = startWorker(cfgFile);
  }, 600_000);

  afterAll(async () => {
    await reader?.close();
    await worker?.stop();
    // End the open write (its files stay, as an aborted write's do), then drop what the seed made.
    const hms = await openHms(env.HIM_HMS_PG_URI as string, { connectTimeoutMs: 10_000, callTimeoutMs: 60_000 });
    try {
      const w = new AcidWriter(hms, { bucket: 'hive', s3, python: env.HIM_VERIFIER_PYTHON as string });
      for (const t of seed?.tables ?? []) for (const x of t.writes) if (x.state === 'open') await w.abort(x.txnId).catch(() => undefined);
      await hms.call('drop_database', (c) => c.drop_database(db, false, true)).catch(() => undefined);
    } finally {
      hms.close();
    }
    await dropNamespace(ns);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('plan → a committed write after it → apply → PyIceberg and Spark read exactly the committed rows; the open write refuses its table; rollback restores', async () => {
    // What Hive itself considers: the metastore's valid write ids.
    expect(await reader.getValidWriteIds(db, 'io_events')).toEqual({ table: `${db}.io_events`, highWatermark: 4, open: [], aborted: [3] });
    expect(await reader.getValidWriteIds(db, 'io_open')).toMatchObject({ highWatermark: 2, open: [2], aborted: [] });

    const planFile = path.join(dir, 'plan.json');
    const p = await migrate(['plan', '--out', planFile]);
    expect([p.code, p.stderr]).toEqual([0, expect.any(String)]);
    type Entry = { id: string; class: string; pin: { assessment: { findings: string[] } } };
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as {
      hash: string;
      waves: { number: number; tables: Entry[] }[];
      notPlanned: unknown[];
    };
    const entries = new Map(plan.waves.flatMap((w) => w.tables).map((t) => [t.id, t] as const));
    expect([...entries.keys()].sort()).toEqual([`${db}.io_events`, `${db}.io_open`, `${db}.io_sales`]);
    for (const n of ['io_events', 'io_sales'])
      expect(entries.get(`${db}.${n}`)?.pin.assessment).toEqual({ class: 'migrate', findings: ['INSERT_ONLY_METADATA'] });
    // The open write is a moment, not the table's conversion: warned at plan, left out of the pin.
    expect(entries.get(`${db}.io_open`)?.class).toBe('migrate-with-warnings');
    const assess = await migrate(['assess', '--json']);
    const assessed = (JSON.parse(assess.stdout) as { tables: { id: string; findings: { code: string; evidence: string }[] }[] }).tables;
    const acidCodes = (id: string): string[] =>
      (assessed.find((t) => t.id === id)?.findings ?? []).map((f) => f.code).filter((c) => c.startsWith('INSERT_ONLY'));
    expect(acidCodes(`${db}.io_open`)).toEqual(['INSERT_ONLY_METADATA', 'INSERT_ONLY_WRITE_OPEN']);
    expect(acidCodes(`${db}.io_events`)).toEqual(['INSERT_ONLY_METADATA']);
    expect(assessed.find((t) => t.id === `${db}.io_events`)?.findings[0]?.evidence).toContain('high watermark 4, aborted 3, open none');

    // A write committed between plan and apply is new files: converted, like a new partition.
    const hms = await openHms(env.HIM_HMS_PG_URI as string, { connectTimeoutMs: 10_000, callTimeoutMs: 60_000 });
    const late = await new AcidWriter(hms, { bucket: 'hive', s3, python: env.HIM_VERIFIER_PYTHON as string })
      .write(db, table('io_events'), 'committed', [{ partition: '', start: 10, count: 2 }])
      .finally(() => hms.close());
    expect(late.writeId).toBe(5);

    const store = new RoutingObjectStore({
      metadataPrefixes: [],
      s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
    });
    const every = [...seed.tables.flatMap((t) => t.writes.flatMap((w) => w.rows.map((r) => r.file))), ...late.rows.map((r) => r.file)];
    const before = new Map<string, string>();
    for (const f of every) before.set(f, await sha256Of(store, f));

    const a = await migrate(['apply', planFile, '--auto-approve', '--wait', '--max-failed', '5', '--json'], 600_000);
    const body = JSON.parse(a.stdout) as { result: { state: string; waves: { failed: { tableId: string; code: string }[] }[] } };
    const failed = body.result.waves.flatMap((w) => w.failed);
    if (failed.some((f) => f.tableId !== `${db}.io_open`)) throw new Error(`${a.stdout}\n${worker?.log().slice(-4000) ?? ''}`);
    expect(failed).toEqual([{ tableId: `${db}.io_open`, code: 'ACID_WRITE_OPEN' }]);
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    expect(await catalog.tableExists(tableIdent([ns], 'io_open'))).toBe(false);
    // `migrate table` (outside a workflow) reads the write ids too, and refuses the same way.
    const one = await migrate(['table', `${db}.io_open`, '--target', `${ns}.io_open_one`, '--json']);
    expect([one.code, (JSON.parse(one.stdout) as { error: { code: string } }).error.code]).toEqual([1, 'ACID_WRITE_OPEN']);
    expect(await catalog.tableExists(tableIdent([ns], 'io_open_one'))).toBe(false);

    // The Iceberg tables hold exactly the committed writes' files; the aborted ones are not there.
    for (const [name, extra] of [
      ['io_events', [late]],
      ['io_sales', []],
    ] as const) {
      const m = (await catalog.loadTable(tableIdent([ns], name))).metadata;
      const snap = m.snapshots.find((x) => x.snapshotId === m.currentSnapshotId);
      const [schema, spec] = [
        m.schemas.find((x) => x.schemaId === m.currentSchemaId),
        m.partitionSpecs.find((x) => x.specId === m.defaultSpecId),
      ];
      const files: string[] = [];
      for (const mf of await readManifestFiles(store, snap?.manifestList as string))
        for (const f of await readManifest(store, mf.path, schema as never, spec as never)) files.push(f.filePath);
      files.sort();
      expect({ name, files }).toEqual({ name, files: committedFiles(name, extra).sort() });
      for (const f of filesOf(name, 'aborted')) expect(files).not.toContain(f);
    }

    // PyIceberg and Spark read the rows of exactly those files (the verifier's checksum over them).
    const reads = await readWith('pyiceberg,spark', [`${ns}.io_events`, `${ns}.io_sales`]);
    for (const [name, extra, partitioned] of [
      ['io_events', [late], false],
      ['io_sales', [], true],
    ] as const) {
      const files = [...table(name).writes, ...extra].filter((w) => w.state === 'committed').flatMap((w) => w.rows);
      const want = await checksumOfFiles(files, partitioned);
      expect(want.rows).toBe(files.reduce((n, r) => n + r.count, 0));
      for (const engine of ['pyiceberg', 'spark']) {
        const got = reads.find((r) => r.table === `${ns}.${name}` && r.engine === engine);
        expect({ name, engine, rows: got?.rows, checksum: got?.checksum, error: got?.error }).toEqual({
          name,
          engine,
          rows: want.rows,
          checksum: want.checksum,
          error: undefined,
        });
      }
    }

    // Rollback: catalog entries gone, HMS as saved, every file (aborted and open writes' too) unchanged.
    for (const w of [...plan.waves].reverse()) {
      const rb = await migrate(['rollback', plan.hash.slice(0, 12), '--wave', String(w.number), '--json'], 600_000);
      expect([rb.code, (JSON.parse(rb.stdout) as { refused: unknown[] }).refused]).toEqual([0, []]);
    }
    for (const name of ['io_events', 'io_sales', 'io_open']) expect(await catalog.tableExists(tableIdent([ns], name))).toBe(false);
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      for (const name of ['io_events', 'io_sales']) {
        const [live] = await reader.getTables(db, [name]);
        expect({ name, digest: tableFingerprint(live as never) }).toEqual({
          name,
          digest: (await state.getTable(plan.hash, `${db}.${name}`)).originalDigest,
        });
      }
    } finally {
      await state.close();
    }
    for (const [f, sha] of before) expect({ f, sha: await sha256Of(store, f) }).toEqual({ f, sha });
    const v = await migrate(['audit', 'verify', '--json']);
    expect(v.code).toBe(0);
    store.destroy();
  }, 1_200_000);
});
