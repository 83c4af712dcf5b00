// Sync the hard way: through Temporal with a real `migrate worker`, the stack's
// REST catalog, HMS and S3. A worker SIGKILLed at every step boundary of a sync (engine
// SYNC_FAILPOINTS: after the manifests, the manifest list, the metadata, before and after the
// commit, before and after the state record), restarted each time → exactly once: one new
// snapshot, the record at it, one `table.synced` event, no metadata file that nothing references,
// PyIceberg reads the Hive content. A sync of more tables than a run's budget continues as new (its
// syncStatus query answers for the tables of every run; `--json` lists every table, read back from
// the state store by the workflow id) and ends with every table; each of its runs replays. A column added at the end on Hive (and a
// partition whose files have it) → the sync's snapshot carries a schema update; PyIceberg and Spark
// read the new column (null in older rows); a type change is SOURCE_CHANGED naming it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { SYNC_FAILPOINTS } from '../../engine/sync-table';
import { syncStatusQuery } from '../../workflows/index';
import type { SyncLive } from '../helpers/sync-live';
import { RestCatalog } from '../../adapters/catalog/rest';
import { tableIdent } from '../../core/catalog/catalog';
import {
  addColumnAndPartition,
  addPartition,
  hiveContent,
  hiveTable,
  migrateIn,
  recordOf,
  retypeColumn,
  setUpSyncLive,
  snapshotsOf,
  syncEventsOf,
  syncThroughKills,
  tearDownSyncLive,
  unreferencedMetadata,
} from '../helpers/sync-live';
import { testStack } from '../helpers/stack-env';
import { readWith, readWithPyIceberg } from '../helpers/verifier';

const env = testStack();
const TABLES = ['customers', 'orders'];
let l: SyncLive | undefined;

interface SyncBody {
  ok: boolean;
  workflowId: string;
  tables: { table: string; ok: boolean; result?: { status: string; snapshotId: string; commit: string | null; columnsAdded?: string[] } }[];
}

describe('migrate sync: kills at every step, continue-as-new, schema additions', () => {
  beforeAll(async () => {
    l = await setUpSyncLive('himsynch', TABLES);
  }, 900_000);

  afterAll(async () => {
    await tearDownSyncLive(l);
  }, 600_000);

  it('a worker SIGKILLed at each sync step and restarted → one snapshot, recorded and audited once, nothing orphaned; PyIceberg reads the Hive content', async () => {
    const s = l as SyncLive;
    const orders = `${s.db}.orders`;
    expect(await unreferencedMetadata(s, 'orders')).toEqual([]);
    for (const [i, point] of SYNC_FAILPOINTS.entries()) {
      const after = await addPartition(s, 'orders', 'year=2024/region=us', [String(2040 + i), 'us']);
      const before = await snapshotsOf(s, 'orders');
      const events = (await syncEventsOf(s, 'orders')).length;
      const fpDir = mkdtempSync(path.join(os.tmpdir(), 'him-synch-fp-'));
      const crash = { HIM_FAILPOINTS: point, HIM_FAILPOINT_DIR: fpDir };
      const { run, kills } = await syncThroughKills(s, ['--table', orders, '--heartbeat-timeout', '5', '--json'], crash);
      rmSync(fpDir, { recursive: true, force: true });
      const failed = run.code === 0 ? '' : run.stdout;
      expect({ point, code: run.code, kills, stderr: run.stderr, failed }).toEqual({ point, code: 0, kills: 1, stderr: '', failed: '' });
      const now = await snapshotsOf(s, 'orders');
      const body = JSON.parse(run.stdout) as SyncBody;
      // Killed after the record, the rerun finds nothing to do; else the commit or the record happens on the rerun.
      expect({ point, count: now.count, tables: body.tables.map((t) => [t.table, t.ok, t.result?.snapshotId]) }).toEqual({
        point,
        count: before.count + 1,
        tables: [[orders, true, now.current]],
      });
      const synced = (await syncEventsOf(s, 'orders')).slice(events);
      expect({ point, synced }).toEqual({
        point,
        synced: [
          expect.objectContaining({
            snapshotId: now.current,
            operation: 'append',
            validation: expect.objectContaining({ files: expect.any(Number) }),
          }),
        ],
      });
      expect({ point, record: await recordOf(s, 'orders') }).toEqual({
        point,
        record: { snapshotId: now.current, metadataLocation: now.metadataLocation },
      });
      expect({ point, orphans: await unreferencedMetadata(s, 'orders') }).toEqual({ point, orphans: [] });
      const expected = await hiveContent(s, after);
      const [read] = await readWithPyIceberg([`${s.ns}.orders`]);
      expect({ point, rows: read?.rows, checksum: read?.checksum, error: read?.error }).toEqual({
        point,
        rows: expected.rows,
        checksum: expected.checksum,
        error: undefined,
      });
    }
  }, 1_800_000);

  it('more tables than a run syncs (--tables-per-run 1) → the workflow continues as new and ends with every table; each run replays', async () => {
    const s = l as SyncLive;
    await addPartition(s, 'orders', 'year=2024/region=us', ['2050', 'us']);
    const r = await migrateIn(s, ['sync', s.planHash.slice(0, 12), '--tables-per-run', '1', '--concurrency', '4', '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const body = JSON.parse(r.stdout) as SyncBody;
    expect(body.tables.map((t) => t.table).sort()).toEqual(TABLES.map((t) => `${s.db}.${t}`));
    expect(body.tables.every((t) => t.ok)).toBe(true);
    expect(body.tables.find((t) => t.table === `${s.db}.orders`)?.result?.status).toBe('appended');
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    try {
      const client = new Client({ connection });
      const runs: { runId: string; status: string }[] = [];
      for await (const w of client.workflow.list({ query: `WorkflowId = '${body.workflowId}'` }))
        runs.push({ runId: w.runId, status: w.status.name });
      expect(runs.map((x) => x.status).sort()).toEqual(['COMPLETED', 'CONTINUED_AS_NEW']);
      // The syncStatus query's per-table results (the newest 50) survive continue-as-new: the last run answers for every table.
      const q = await client.workflow.getHandle(body.workflowId).query(syncStatusQuery);
      expect([q.tables, q.done, q.perTable.map((p) => p.table).sort()]).toEqual([
        TABLES.length,
        TABLES.length,
        TABLES.map((t) => `${s.db}.${t}`),
      ]);
      expect(q.perTable.find((p) => p.table === `${s.db}.orders`)).toMatchObject({ ok: true, status: 'appended' });
      expect(q.lastSyncAt).toBe(q.perTable.at(-1)?.at);
      for (const x of runs) {
        const history = await client.workflow.getHandle(body.workflowId, x.runId).fetchHistory();
        await Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows/index'), replayName: x.status }, history);
        // HIM_RECORD_HISTORIES=<dir>: keep them as replay fixtures (test/fixtures/histories, test/workflows/replay.test.ts).
        const record = process.env.HIM_RECORD_HISTORIES;
        const name = x.status === 'CONTINUED_AS_NEW' ? 'continued-as-new' : 'continued';
        if (record !== undefined) writeFileSync(path.join(record, `syncWorkflow-${name}.json`), historyToJSON(history));
      }
    } finally {
      await connection.close();
    }
  }, 900_000);

  it('a column added at the end on Hive + a partition whose files have it → the snapshot adds it to the schema; PyIceberg and Spark read it (old rows null); a type change is SOURCE_CHANGED naming it', async () => {
    const s = l as SyncLive;
    const id = s.planHash.slice(0, 12);
    const orders = `${s.db}.orders`;
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const ident = tableIdent([s.ns], 'orders');
    const was = (await catalog.loadTable(ident)).metadata;
    const after = await addColumnAndPartition(s, 'orders', 'year=2024/region=us', ['2060', 'us'], 'note');
    const r = await migrateIn(s, ['sync', id, '--table', orders, '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const body = JSON.parse(r.stdout) as SyncBody;
    expect(body.tables.map((t) => [t.table, t.result?.status, t.result?.columnsAdded])).toEqual([[orders, 'appended', ['note']]]);

    // A new current schema: the old fields as they were, then note with the next id, optional; the name mapping names it.
    const t = (await catalog.loadTable(ident)).metadata;
    const schema = t.schemas.find((x) => x.schemaId === t.currentSchemaId);
    const old = was.schemas.find((x) => x.schemaId === was.currentSchemaId);
    expect(t.currentSchemaId).not.toBe(was.currentSchemaId);
    expect(schema?.fields.slice(0, -1)).toEqual(old?.fields);
    expect(schema?.fields.at(-1)).toMatchObject({ id: was.lastColumnId + 1, name: 'note', required: false, type: { kind: 'string' } });
    expect(t.lastColumnId).toBe(was.lastColumnId + 1);
    const mapping = JSON.parse(t.properties['schema.name-mapping.default'] ?? '[]') as { 'field-id': number; names: string[] }[];
    expect(mapping.at(-1)).toEqual({ 'field-id': was.lastColumnId + 1, names: ['note'] });
    const snap = t.snapshots.find((x) => x.snapshotId === t.currentSnapshotId);
    expect(snap?.schemaId).toBe(t.currentSchemaId);
    expect((await syncEventsOf(s, 'orders')).at(-1)).toMatchObject({ snapshotId: String(t.currentSnapshotId), columnsAdded: ['note'] });

    // Both engines read what Hive has: the new partition's notes, null in every older row (the checksum covers every column).
    const expected = await hiveContent(s, after);
    const reads = await readWith('pyiceberg,spark', [`${s.ns}.orders`]);
    expect(reads.map((x) => ({ engine: x.engine, rows: x.rows, checksum: x.checksum, error: x.error }))).toEqual(
      ['pyiceberg', 'spark'].map((engine) => ({ engine, rows: expected.rows, checksum: expected.checksum, error: undefined })),
    );
    const nulls = await hiveContent(s, { ...after, columns: after.columns.slice(0, -1) });
    expect(nulls.checksum).not.toBe(expected.checksum);

    // Again: in sync, nothing committed; the nightly checks find no drift.
    const again = JSON.parse((await migrateIn(s, ['sync', id, '--table', orders, '--json'])).stdout) as SyncBody;
    expect(again.tables.map((x) => [x.result?.status, x.result?.commit])).toEqual([['in-sync', null]]);
    const v = await migrateIn(s, ['validate', id, '--table', orders, '--json']);
    const rows = (JSON.parse(v.stdout) as { rows: { check: string; status: string; actual: string }[] }).rows;
    expect([v.code, rows.filter((x) => x.status !== 'ok' && x.status !== 'info')]).toEqual([0, []]);

    // A type change of a planned column stays SOURCE_CHANGED, naming it; nothing is committed (the table stays changed: the last step).
    const live = await hiveTable(s, 'orders');
    // HMS refuses narrowing and cross-family changes by default; string → varchar(64) it allows (and the conversion differs).
    const first = live.table.sd.columns.find((c) => c.type === 'string') as { name: string; type: string };
    const to = 'varchar(64)';
    await retypeColumn(s, 'orders', first.name, to);
    await addPartition(s, 'orders', 'year=2024/region=us', ['2061', 'us']);
    const refused = await migrateIn(s, ['sync', id, '--table', orders, '--json']);
    const rb = JSON.parse(refused.stdout) as SyncBody & { tables: { error?: { code: string; message: string } }[] };
    expect([refused.code, rb.tables[0]?.error?.code]).toEqual([1, 'SOURCE_CHANGED']);
    expect(rb.tables[0]?.error?.message).toContain(`column ${first.name}: string → ${to}`);
    expect((await snapshotsOf(s, 'orders')).current).toBe(String(t.currentSnapshotId));
  }, 900_000);
});
