// Hostile corpus, odd HMS metadata and corrupt files, through one apply: a bucketed
// table forged into a wave (the fingerprint and pin `assess --json` prints, the plan re-hashed with the
// project's own function), an int partition whose value is `abc`, an empty and a relative location,
// two tables sharing one location, a partition directory with no files, a view without text, a table
// dropped after planning, a zero-byte, a truncated-footer and a wrong-magic Parquet file. apply must
// re-check each table, fail the bad ones with their code and leave nothing behind (no catalog entry,
// no metadata file), never change a data byte, keep the audit chain intact, and end (exit 1).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { RestCatalog } from '../../../adapters/catalog/rest';
import { PostgresStateStore } from '../../../adapters/state/postgres';
import type { RoutingObjectStore } from '../../../adapters/storage/routing-store';
import type { Run } from '../../helpers/cli';
import type { WorkerProc } from '../../helpers/hostile';
import {
  auditIntact,
  catalogEntry,
  dataDigests,
  dropNamespaces,
  env,
  metadataFiles,
  migrate,
  openCatalog,
  openStore,
  outcome,
  rehash,
  stackConfigYaml,
  startWorker,
  writeFile,
} from '../../helpers/hostile';
import { uniqueName } from '../../helpers/stack-env';
import type { Built, Kind } from './warehouse';
import { buildWarehouse, dropHmsTable, dropWarehouse, rootOf } from './warehouse';

const prefix = uniqueName('himx').toLowerCase();
const db = `${prefix}_h`;
const nsPrefix = `${prefix}_`;
const TABLES: Record<string, Kind> = {
  good: 'good',
  bucketed: 'bucketed',
  badint: 'badint',
  emptyloc: 'emptyloc',
  relloc: 'relloc',
  shared_a: 'shared',
  shared_b: 'shared',
  missingdir: 'missingdir',
  view_notext: 'view_notext',
  dropped: 'good',
  zerobyte: 'zerobyte',
  truncfooter: 'truncfooter',
  badmagic: 'badmagic',
  oddname: 'oddname',
};
const id = (name: string): string => `${db}.${name}`;

interface Status {
  state: string;
  waves: { wave: number; migrated: number; skipped: number; failed: { tableId: string; code: string }[] }[];
}
interface Assessed {
  id: string;
  class: string;
  fingerprint: string;
  pin: unknown;
  partitions: unknown;
  files: number;
  bytes: number;
  findings: { code: string; severity: string }[];
}

let dir = '';
let cfg = '';
let built: Built[] = [];
let worker: WorkerProc | undefined;
let catalog: RestCatalog;
let store: RoutingObjectStore;
let before: Record<string, string> = {};
let after: Record<string, string> = {};
let assessRun: Run;
let assessed: Assessed[] = [];
let planFile = '';
let planId = '';
let apply: Run;
let status: Status | undefined;
let audit: { exit: number; ok: boolean; code: string | undefined } = { exit: -1, ok: false, code: undefined };
/** The state store's record of each table (status and code), whatever the plan workflow reported. */
const records = new Map<string, { status: string; code: string | null }>();

/** Move every table that is in no wave into wave 1 (class, fingerprint and pin as assess printed them), re-hashed. */
function forge(plan: Record<string, unknown>): string {
  const waves = plan.waves as { number: number; tables: { id: string }[] }[];
  const inWaves = new Set(waves.flatMap((w) => w.tables.map((t) => t.id)));
  const forged = assessed
    .filter((a) => !inWaves.has(a.id))
    .map((a) => ({
      id: a.id,
      team: null,
      class: 'migrate',
      fingerprint: a.fingerprint,
      files: a.files,
      bytes: a.bytes,
      pin: a.pin,
      partitions: a.partitions,
    }));
  if (waves.length === 0) waves.push({ number: 1, tables: [], estimates: { files: 0, bytes: 0, expectedSeconds: 0 } } as never);
  (waves[0] as { tables: unknown[] }).tables.push(...forged);
  const notPlanned = (plan.notPlanned as { id: string }[]).filter((n) => !forged.some((f) => f.id === n.id));
  return rehash({ ...plan, waves: waves.map((w) => w), notPlanned });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-odd-'));
  cfg = writeFile(
    dir,
    'migrate.yaml',
    stackConfigYaml(`him-hostile-${prefix}`, nsPrefix, `plan:\n  databases: [${db}]\n  waves:\n    maxTablesPerWave: 20\n`),
  );
  built = await buildWarehouse(prefix, db, TABLES);
  catalog = await openCatalog();
  store = openStore();
  before = await dataDigests(store, `${rootOf(prefix)}/`);
  assessRun = await migrate(['assess', '--json', '-c', cfg], 300_000);
  assessed = assessRun.code === 0 ? (JSON.parse(assessRun.stdout) as { tables: Assessed[] }).tables : [];
  const p = await migrate(['plan', '--out', path.join(dir, 'plan.json'), '-c', cfg], 300_000);
  if (p.code !== 0 || assessed.length === 0) throw new Error(`plan/assess failed: ${p.stderr}\n${assessRun.stderr}`);
  const plan = JSON.parse(readFileSync(path.join(dir, 'plan.json'), 'utf8')) as Record<string, unknown>;
  planFile = path.join(dir, 'forged.json');
  writeFileSync(planFile, forge(plan));
  planId = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash.slice(0, 12);
  await dropHmsTable(db, 'dropped');
  worker = startWorker(cfg);
  // A wave that does not end within 4 minutes is a hang (the apply is killed: exit 143).
  apply = await migrate(
    // --accept-stale: past the stale-plan pre-check (the dropped table), so each table fails in the run.
    ['apply', planFile, '--accept-stale', '--auto-approve', '--wait', '--json', '--concurrency', '8', '--step-timeout', '30', '-c', cfg],
    240_000,
  );
  try {
    status = (JSON.parse(apply.stdout) as { result?: Status }).result;
  } catch {
    status = undefined;
  }
  after = await dataDigests(store, `${rootOf(prefix)}/`);
  audit = await auditIntact(cfg);
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  const hash = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash;
  for (const b of built) {
    const rec = await state.getTable(hash, b.id).catch(() => undefined);
    if (rec) records.set(b.name, { status: rec.status, code: rec.errorCode });
  }
  await state.close();
}, 900_000);

afterAll(async () => {
  // A plan workflow that did not end by itself is ended here, so it cannot run on after the test.
  const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  const client = new Client({ connection });
  for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH 'migrate/${planId}' AND ExecutionStatus = 'Running'` })) {
    await client.workflow
      .getHandle(w.workflowId, w.runId)
      .terminate('hostile corpus cleanup')
      .catch(() => undefined);
  }
  await connection.close();
  await worker?.stop();
  await dropNamespaces(catalog, nsPrefix, [db]);
  await dropWarehouse(prefix, db, Object.keys(TABLES));
  store?.destroy();
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

/** The table's failure code as the plan result reports it. */
const failedCode = (name: string): string | undefined => status?.waves.flatMap((w) => w.failed).find((f) => f.tableId === id(name))?.code;
const errorMessage = (r: Run): string | undefined => {
  try {
    return (JSON.parse(r.stdout) as { error?: { message?: string } }).error?.message;
  } catch {
    return r.stdout.slice(0, 500) || undefined;
  }
};

/** The invariants of a failed table: the plan's exit code, its code, no catalog entry, no metadata file, data and audit intact. */
async function expectRefused(name: string, code: string): Promise<void> {
  const t = built.find((b) => b.name === name) as Built;
  // The plan result and the state store's record both say failed with the code.
  expect({ exit: apply.code, table: failedCode(name), record: records.get(name) }).toEqual({
    exit: 1,
    table: code,
    record: { status: 'failed', code },
  });
  expect(await catalogEntry(catalog, nsPrefix, t.id)).toBeNull();
  expect(await metadataFiles(store, t.location)).toEqual([]);
  expect(after).toEqual(before);
  expect(audit).toEqual({ exit: 0, ok: true, code: undefined });
}

describe('hostile HMS metadata and files, one forged apply', () => {
  it('the wave ends by itself: apply --wait returns, the plan is failed, exit 1', () => {
    expect({ exit: apply.code, state: status?.state, error: outcome(apply).code, message: errorMessage(apply) }).toEqual({
      exit: 1,
      state: 'failed',
      error: undefined,
      message: undefined,
    });
  });

  it('forged plan: a bucketed table moved from notPlanned into a wave fails CONVERT_BUCKETED (apply re-checks)', async () => {
    await expectRefused('bucketed', 'CONVERT_BUCKETED');
  });

  it('int partition value `abc` → PARTITION_VALUE_INVALID', async () => {
    await expectRefused('badint', 'PARTITION_VALUE_INVALID');
  });

  it('empty location → LOCATION_INVALID', async () => {
    await expectRefused('emptyloc', 'LOCATION_INVALID');
  });

  it('relative location → LOCATION_INVALID', async () => {
    await expectRefused('relloc', 'LOCATION_INVALID');
  });

  it('two tables sharing one location → both LOCATION_SHARED', async () => {
    await expectRefused('shared_a', 'LOCATION_SHARED');
    await expectRefused('shared_b', 'LOCATION_SHARED');
  });

  it('a table dropped after planning → HMS_NOT_FOUND, the table fails, apply --wait exit 1', async () => {
    await expectRefused('dropped', 'HMS_NOT_FOUND');
  });

  it('a truncated Parquet footer → FORMAT_CORRUPT_FOOTER, nothing left', async () => {
    await expectRefused('truncfooter', 'FORMAT_CORRUPT_FOOTER');
  });

  it('a Parquet file with the wrong magic → FORMAT_CORRUPT_FOOTER, nothing left', async () => {
    await expectRefused('badmagic', 'FORMAT_CORRUPT_FOOTER');
  });

  it('a data file named part;00000?v=1#x.parquet: assess flags FILE_NAME_UNREADABLE (rewrite), forced apply → CONVERT_FILE_NAME_UNREADABLE, nothing left', async () => {
    const a = assessed.find((x) => x.id === id('oddname'));
    expect([a?.class, a?.findings.map((f) => f.code)]).toEqual(['rewrite-required', expect.arrayContaining(['FILE_NAME_UNREADABLE'])]);
    await expectRefused('oddname', 'CONVERT_FILE_NAME_UNREADABLE');
  });

  it('a partition directory missing in storage: the table migrates (an empty partition) or fails coded, and leaves nothing when it fails', async () => {
    const t = built.find((b) => b.name === 'missingdir') as Built;
    const rec = records.get('missingdir');
    const entry = await catalogEntry(catalog, nsPrefix, t.id);
    if (rec?.status === 'migrated')
      expect({ entry: entry !== null, failed: failedCode('missingdir') }).toEqual({ entry: true, failed: undefined });
    else {
      const internal = ['INTERNAL', 'TEMPORAL_WORKFLOW_ENDED', null, undefined].includes(rec?.code);
      expect({
        status: rec?.status,
        internal,
        reported: failedCode('missingdir'),
        entry,
        metadata: await metadataFiles(store, t.location),
      }).toEqual({ status: 'failed', internal: false, reported: rec?.code, entry: null, metadata: [] });
    }
    expect(apply.code).toBe(1);
    expect(after).toEqual(before);
  });

  it('a view without text: assess does not crash (exit 0, the view is listed), apply does not fail it with an internal error', () => {
    expect(outcome(assessRun)).toEqual({ exit: 0, code: undefined });
    expect(assessed.map((a) => a.id)).toContain(id('view_notext'));
    expect(['INTERNAL', 'TEMPORAL_WORKFLOW_ENDED']).not.toContain(failedCode('view_notext'));
    expect(apply.code).toBe(1);
  });

  it('a zero-byte .parquet: FILE_EMPTY (warn) at assess; apply skips it or fails the table coded, never internally', () => {
    const a = assessed.find((x) => x.id === id('zerobyte'));
    expect(a?.findings.filter((f) => f.code === 'FILE_EMPTY').map((f) => f.severity)).toEqual(['warn']);
    expect(['INTERNAL', 'TEMPORAL_WORKFLOW_ENDED']).not.toContain(failedCode('zerobyte'));
    expect(after).toEqual(before);
  });

  it('signing configured: the plan edited and re-hashed with plain sha256 → PLAN_SIGNATURE_INVALID, exit 2', async () => {
    const key = { MIGRATE_PLAN_KEY: 'hostile-corpus-key-0123456789abcdef' };
    const signing = writeFile(
      dir,
      'signing.yaml',
      `${readFileSync(cfg, 'utf8').replace('plan:\n', 'plan:\n  signing:\n    type: hmac\n    keyEnv: MIGRATE_PLAN_KEY\n')}`,
    );
    const signed = path.join(dir, 'signed.json');
    const p = await migrate(['plan', '--out', signed, '-c', signing], 300_000, key);
    expect(outcome(p)).toEqual({ exit: 0, code: undefined });
    const edited = writeFile(dir, 'signed-edited.json', forge(JSON.parse(readFileSync(signed, 'utf8')) as Record<string, unknown>));
    const r = await migrate(['apply', edited, '--json', '-c', signing], 60_000, key);
    expect(outcome(r)).toEqual({ exit: 2, code: 'PLAN_SIGNATURE_INVALID' });
  }, 400_000);
});
