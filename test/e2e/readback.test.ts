// The read-back proof (`validation.readBack`) on the real stack: HMS, S3, the REST
// catalog, Temporal, a real `migrate worker` whose `rewrite:` section is the verifier venv's
// spark-submit. Seed `<prefix>_sales` (partitioned and unpartitioned Parquet tables, INT96, decimals,
// a managed table, views) →
// 1. plan + apply: the wave succeeds; every metadata-only table's record holds `validation.readBack`
//    (the sampled files, equal rows and checksums on both sides, one job for the wave), audited as
//    `table.read-back`.
// 2. `migrate validate` with readBack: one ok `read-back` row per table; then `orders`' metadata.json
//    is rewritten in S3 (the name mapping gives `customer` another field id: every reader now reads
//    it as NULL) → READBACK_MISMATCH drift, exit 3 (validate reports; it rolls nothing back).
// 3. Rolled back and planned again; apply with the worker killed as soon as `orders` is migrated (the
//    wave's read-back has not run: asserted), the same tamper written over the new metadata, a new
//    worker started: the retried read-back fails `orders` with READBACK_MISMATCH and compensates it
//    (unregistered, metadata deleted, recorded failed, each audited); Hive still serves the seed's
//    content; the other tables of the wave stay migrated with equal evidence.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { RestCatalog } from '../../adapters/catalog/rest';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { tableIdent } from '../../core/catalog/catalog';
import type { TableRecord } from '../../core/state/store';
import type { SeedManifest } from '../../dev/seed/manifest';
import { TSX, run } from '../helpers/cli';
import type { SupervisedWorker } from '../helpers/e2e-suite';
import { dropNamespace, migrateWith, planAndApply, suiteConfig, superviseWorker } from '../helpers/e2e-suite';
import { startWorker } from '../helpers/hostile';
import { hiveContent, seedWarehouse } from '../helpers/live-tables';
import { stackRewriteYaml } from '../helpers/rewrite';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himrb').toLowerCase();
const nsPrefix = `${prefix}_`;
const db = `${prefix}_sales`;
const NS = `${nsPrefix}${db}`;
const ORDERS = `${db}.orders`;
let dir = '';
let cfgFile = '';
let manifest: SeedManifest;
let worker: SupervisedWorker | undefined;
let migrate: ReturnType<typeof migrateWith>;
const s3 = new S3Client({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });

interface Side {
  rows: number;
  checksum: string;
}
interface Evidence {
  engine?: string;
  jobId?: string;
  files?: string[];
  iceberg?: Side;
  hive?: Side;
  equal?: boolean;
  seconds?: number;
  skipped?: string;
  error?: string;
}

const evidenceOf = (rec: TableRecord): Evidence | undefined => (rec.validation as { readBack?: Evidence } | null)?.readBack;
const bucketKey = (uri: string): { Bucket: string; Key: string } => {
  const m = /^s3[an]?:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (m === null) throw new Error(`not an s3 uri: ${uri}`);
  return { Bucket: m[1] as string, Key: m[2] as string };
};

/**
 * Rewrite the table's metadata.json in place: the name mapping sends `customer` to a field id no
 * column has. Only that property's string is replaced in the raw text: parsing the whole document
 * as JS numbers would round its 64-bit snapshot ids (a different table, not a tampered mapping).
 */
async function tamper(metadataLocation: string): Promise<string> {
  const loc = bucketKey(metadataLocation);
  const body = await (await s3.send(new GetObjectCommand(loc))).Body!.transformToString();
  const m = /"schema\.name-mapping\.default"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(body);
  if (m === null) throw new Error('no schema.name-mapping.default property');
  const mapping = JSON.parse(JSON.parse(m[1] as string) as string) as { 'field-id': number; names: string[] }[];
  const entry = mapping.find((e) => e.names.includes('customer'));
  if (entry === undefined) throw new Error('no name-mapping entry for customer');
  entry['field-id'] = 9999;
  const start = m.index + m[0].length - (m[1] as string).length;
  const tampered = body.slice(0, start) + JSON.stringify(JSON.stringify(mapping)) + body.slice(start + (m[1] as string).length);
  await s3.send(new PutObjectCommand({ ...loc, Body: tampered }));
  return body;
}

async function withState<T>(fn: (s: PostgresStateStore) => Promise<T>): Promise<T> {
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  try {
    return await fn(state);
  } finally {
    await state.close();
  }
}

/** The plan's metadata-only table records (views and tables that did not migrate left out). */
const provable = (recs: TableRecord[]): TableRecord[] =>
  recs.filter((r) => r.status === 'migrated' && r.original?.table.tableType !== 'VIRTUAL_VIEW');

describe('validation.readBack: sampled files read through Iceberg and Hive in Spark', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-readback-'));
    manifest = await seedWarehouse(prefix, dir);
    cfgFile = suiteConfig({
      dir,
      queue: `him-rb-${prefix}`,
      nsPrefix,
      databases: [db],
      planYaml: '  waves:\n    maxTablesPerWave: 50\n',
      extraYaml:
        stackRewriteYaml(env, `s3://warehouse/${nsPrefix}rewrite`, { viewCheck: false }) +
        `validation:\n  resultsLocation: s3://results/${prefix}/validation\n  readBack: { filesPerTable: 2, tablesPerJob: 200 }\n`,
    });
    migrate = migrateWith(cfgFile);
    worker = superviseWorker(cfgFile, { HIM_REWRITE_WORK_DIR: path.join(dir, 'jobs') });
  }, 600_000);

  afterAll(async () => {
    await worker?.stop();
    await dropNamespace(NS);
    await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
    s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  let firstHash = '';

  it('a correct wave passes: every metadata-only table carries equal read-back evidence, audited, one job', async () => {
    const { hash, apply } = await planAndApply(migrate, dir, { workerLog: () => worker?.log() ?? '' });
    firstHash = hash;
    const result = (JSON.parse(apply.stdout) as { result: { state: string } }).result;
    expect(result.state).toBe('succeeded');
    await withState(async (state) => {
      const recs = provable(await state.listTables(hash));
      expect(recs.map((r) => r.tableId)).toEqual(expect.arrayContaining([ORDERS, `${db}.all_types`, `${db}.customers`]));
      const jobs = new Set<string>();
      for (const r of recs) {
        const e = evidenceOf(r);
        if (e?.skipped !== undefined) throw new Error(`${r.tableId}: read-back not made: ${e.skipped}`);
        expect({ table: r.tableId, engine: e?.engine, equal: e?.equal, error: e?.error }).toEqual({
          table: r.tableId,
          engine: 'spark',
          equal: true,
          error: undefined,
        });
        expect(e?.iceberg).toEqual(e?.hive);
        expect(e?.files?.length).toBeGreaterThanOrEqual(1);
        expect(e?.files?.length).toBeLessThanOrEqual(2);
        expect(e?.seconds).toBeGreaterThan(0);
        jobs.add(e?.jobId as string);
      }
      // The tables of one wave are read in one job (tablesPerJob 200).
      const waves = new Set(recs.map((r) => r.wave));
      expect(jobs.size).toBe(waves.size);
      // orders: both sides read rows; the sample is the two files the plan's hash picks.
      const orders = evidenceOf(recs.find((r) => r.tableId === ORDERS) as TableRecord);
      expect(orders?.iceberg?.rows).toBeGreaterThan(0);
      const audited = new Map<string, Record<string, unknown>>();
      for await (const ev of state.readAudit())
        if (ev.action === 'table.read-back' && ev.planHash === hash) audited.set(ev.object, ev.details as Record<string, unknown>);
      for (const r of recs) expect(audited.get(`hms:${r.tableId}`)).toMatchObject({ ok: true, equal: true, jobId: evidenceOf(r)?.jobId });
    });
    const files = readdirSync(path.join(dir, 'jobs'));
    const orders = await withState(async (s) => evidenceOf(await s.getTable(hash, ORDERS)));
    expect(files).toEqual(expect.arrayContaining([`${orders?.jobId}.spec.json`, `${orders?.jobId}.result.json`, `${orders?.jobId}.log`]));
  }, 1_200_000);

  it('migrate validate runs it too: ok rows; a tampered name mapping is READBACK_MISMATCH drift (exit 3)', async () => {
    const id = firstHash.slice(0, 12);
    const clean = await migrate(['validate', id, '--table', ORDERS, '--json'], 600_000);
    const rowsOf = (out: string) => (JSON.parse(out) as { rows: { check: string; status: string; code: string; table: string }[] }).rows;
    expect(rowsOf(clean.stdout).filter((r) => r.check === 'read-back')).toEqual([
      expect.objectContaining({ table: ORDERS, status: 'ok', code: 'OK' }),
    ]);
    expect(clean.code).toBe(0);

    const rec = await withState((s) => s.getTable(firstHash, ORDERS));
    const original = await tamper(rec.metadataLocation as string);
    try {
      const bad = await migrate(['validate', id, '--table', ORDERS, '--json'], 600_000);
      expect(rowsOf(bad.stdout).filter((r) => r.check === 'read-back')).toEqual([
        expect.objectContaining({ table: ORDERS, status: 'drift', code: 'READBACK_MISMATCH' }),
      ]);
      expect(bad.code).toBe(3);
    } finally {
      await s3.send(new PutObjectCommand({ ...bucketKey(rec.metadataLocation as string), Body: original }));
    }
  }, 1_200_000);

  it('tampered between registration and read-back: READBACK_MISMATCH, compensated, Hive still serves it', async () => {
    // Undo the first plan (views wave first), then plan again: a new plan, the same tables.
    const waves = await withState(async (s) => [...new Set((await s.listTables(firstHash)).map((r) => r.wave))].sort((a, b) => b - a));
    for (const w of waves) {
      const rb = await migrate(['rollback', firstHash.slice(0, 12), '--wave', String(w), '--json'], 600_000);
      expect({ w, code: rb.code, err: rb.code === 0 ? '' : rb.stdout + rb.stderr }).toEqual({ w, code: 0, err: '' });
    }
    await worker?.stop();
    const planFile = path.join(dir, 'plan2.json');
    await new Promise((r) => setTimeout(r, 1100)); // a later createdAt: another plan hash
    expect((await migrate(['plan', '--out', planFile])).code).toBe(0);
    const hash = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash;
    expect(hash).not.toBe(firstHash);

    const first = startWorker(cfgFile, { HIM_REWRITE_WORK_DIR: path.join(dir, 'jobs') });
    const applying = migrate(['apply', planFile, '--auto-approve', '--wait', '--json', '--heartbeat-timeout', '10'], 1_200_000);
    // The pause: as soon as orders is migrated, the worker is killed (its wave's read-back job needs
    // a Spark start first: the evidence must still be absent, or this test proves nothing).
    let rec: TableRecord | undefined;
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      for (let i = 0; i < 6000; i++) {
        rec = await state.getTable(hash, ORDERS).catch(() => undefined);
        if (rec?.status === 'migrated' || rec?.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      process.kill(-(first.proc.pid as number), 'SIGKILL'); // no graceful drain: the read-back must not finish
      await new Promise((r) => setTimeout(r, 500));
      rec = await state.getTable(hash, ORDERS);
      expect([rec.status, evidenceOf(rec)]).toEqual(['migrated', undefined]);
    } finally {
      await state.close();
    }
    const written = (rec.writtenFiles ?? []).map((f) => f.path);
    expect(written.length).toBeGreaterThan(0);
    await tamper(rec.metadataLocation as string);
    worker = superviseWorker(cfgFile, { HIM_REWRITE_WORK_DIR: path.join(dir, 'jobs') });
    const apply = await applying;
    const result = (
      JSON.parse(apply.stdout) as { result: { waves: { wave: number; status: string; failed: { tableId: string; code: string }[] }[] } }
    ).result;
    const failed = result.waves.flatMap((w) => w.failed);
    // On a wrong code, the recorded message says why (the assertion prints it).
    const rb = failed.filter((f) => f.code.startsWith('READBACK_'));
    const why = await withState(async (s) => (await s.getTable(hash, ORDERS)).errorMessage);
    const right = rb.length === 1 && rb[0]?.code === 'READBACK_MISMATCH';
    expect({ rb, why: right ? '' : why }).toEqual({ rb: [{ tableId: ORDERS, code: 'READBACK_MISMATCH' }], why: '' });

    await withState(async (s) => {
      const after = await s.getTable(hash, ORDERS);
      const e = evidenceOf(after);
      expect([after.status, after.errorCode, e?.equal, e?.iceberg?.rows]).toEqual(['failed', 'READBACK_MISMATCH', false, e?.hive?.rows]);
      expect(e?.iceberg?.checksum).not.toBe(e?.hive?.checksum);
      expect(after.writtenFiles ?? []).toEqual([]);
      const actions: string[] = [];
      for await (const ev of s.readAudit())
        if (ev.planHash === hash && (ev.object === `hms:${ORDERS}` || ev.object.endsWith(`${NS}.orders`))) actions.push(ev.action);
      const tail = actions.slice(actions.indexOf('table.read-back'));
      expect(tail).toEqual(['table.read-back', 'table.unregistered', 'table.metadata-deleted', 'table.failed']);
      // The rest of the wave: migrated, proved.
      for (const r of provable(await s.listTables(hash)))
        expect({ t: r.tableId, equal: evidenceOf(r)?.equal }).toEqual({ t: r.tableId, equal: true });
    });
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    expect(await catalog.tableExists(tableIdent([NS], 'orders'))).toBe(false);
    for (const f of written) await expect(s3.send(new HeadObjectCommand(bucketKey(f)))).rejects.toThrow();
    // Hive still serves the table: its files read as Hive reads them give the seed's content.
    const seedOrders = manifest.tables.find((t) => t.db === db && t.name === 'orders');
    if (seedOrders === undefined) throw new Error('no orders in the seed');
    expect(await hiveContent(dir, manifest, seedOrders)).toMatchObject({ rows: seedOrders.rows, checksum: seedOrders.checksum });
  }, 1_800_000);
});
