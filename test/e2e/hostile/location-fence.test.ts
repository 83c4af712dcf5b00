// Hostile corpus, names and locations fenced: a partitioned table one of whose
// partitions HMS says is at file:///etc/ssl/certs, and a table at a local directory outside the
// configured storage.localRoots. assess/plan refuse both (LOCATION_NOT_ALLOWED, skip: not in a
// wave); a plan edited to put them into a wave anyway (re-hashed with the project's own function) is
// refused again by the worker with its own config — each table failed LOCATION_NOT_ALLOWED, apply
// exit 1, no catalog entry, no metadata file, no data byte changed — while a good table in the same
// wave migrates. `migrate table` (no plan) refuses the same way (exit 1). The worker never lists /etc.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { RestCatalog } from '../../../adapters/catalog/rest';
import { PostgresStateStore } from '../../../adapters/state/postgres';
import type { RoutingObjectStore } from '../../../adapters/storage/routing-store';
import type { Run } from '../../helpers/cli';
import type { WorkerProc } from '../../helpers/hostile';
import {
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
import type { Built } from './warehouse';
import { buildWarehouse, dropWarehouse, rootOf, setLocations, setPartitionLocation } from './warehouse';

const prefix = uniqueName('himf').toLowerCase();
const db = `${prefix}_f`;
const nsPrefix = `${prefix}_`;
const id = (name: string): string => `${db}.${name}`;

interface Assessed {
  id: string;
  class: string;
  fingerprint: string;
  pin: unknown;
  partitions: unknown;
  files: number;
  bytes: number;
  findings: { code: string; evidence: string }[];
}

let dir = '';
let cfg = '';
let outsideDir = '';
let built: Built[] = [];
let worker: WorkerProc | undefined;
let catalog: RestCatalog;
let store: RoutingObjectStore;
let before: Record<string, string> = {};
let after: Record<string, string> = {};
let assessed: Assessed[] = [];
let notPlanned: { id: string; reason?: string; codes?: string[] }[] = [];
let planId = '';
let apply: Run;
let tableRun: Run;
const records = new Map<string, { status: string; code: string | null }>();

/** Every table of the inventory that is in no wave, moved into wave 1 as assess printed it, re-hashed. */
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
  return rehash({ ...plan, notPlanned: (plan.notPlanned as { id: string }[]).filter((n) => !forged.some((f) => f.id === n.id)) });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-fence-'));
  const allowed = path.join(dir, 'allowed');
  outsideDir = path.join(dir, 'outside', 'local_t');
  mkdirSync(allowed, { recursive: true });
  mkdirSync(outsideDir, { recursive: true });
  writeFileSync(path.join(outsideDir, 'part-00000.parquet'), 'not read');
  const base = stackConfigYaml(`him-hostile-${prefix}`, nsPrefix, `plan:\n  databases: [${db}]\n`);
  if (!base.includes('storage:\n')) throw new Error('the stack config has no storage section any more; edit this test');
  cfg = writeFile(dir, 'migrate.yaml', base.replace('storage:\n', `storage:\n  localRoots: [${allowed}]\n`));
  // certs: partition p=b re-pointed at /etc/ssl/certs; outside: a table at a local directory outside localRoots.
  built = await buildWarehouse(prefix, db, { good: 'good', certs: 'missingdir', outside: 'good' });
  await setPartitionLocation(db, 'certs', 'p=b', 'file:///etc/ssl/certs');
  await setLocations(db, [['outside', `file://${dir}/allowed/../outside/local_t`]]);
  catalog = await openCatalog();
  store = openStore();
  before = await dataDigests(store, `${rootOf(prefix)}/`);
  const a = await migrate(['assess', '--json', '-c', cfg], 300_000);
  assessed = a.code === 0 ? (JSON.parse(a.stdout) as { tables: Assessed[] }).tables : [];
  const planPath = path.join(dir, 'plan.json');
  const p = await migrate(['plan', '--out', planPath, '-c', cfg], 300_000);
  if (p.code !== 0 || assessed.length === 0) throw new Error(`plan/assess failed: ${p.stderr}\n${a.stderr}`);
  const plan = JSON.parse(readFileSync(planPath, 'utf8')) as Record<string, unknown>;
  notPlanned = plan.notPlanned as typeof notPlanned;
  const forgedFile = writeFile(dir, 'forged.json', forge(plan));
  const hash = (JSON.parse(readFileSync(forgedFile, 'utf8')) as { hash: string }).hash;
  planId = hash.slice(0, 12);
  worker = startWorker(cfg);
  apply = await migrate(['apply', forgedFile, '--auto-approve', '--wait', '--json', '--step-timeout', '30', '-c', cfg], 240_000);
  tableRun = await migrate(['table', id('certs'), '--json', '-c', cfg], 120_000);
  after = await dataDigests(store, `${rootOf(prefix)}/`);
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  for (const b of built) {
    const rec = await state.getTable(hash, b.id).catch(() => undefined);
    if (rec) records.set(b.name, { status: rec.status, code: rec.errorCode });
  }
  await state.close();
}, 900_000);

afterAll(async () => {
  const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  const client = new Client({ connection });
  for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH 'migrate/${planId}' AND ExecutionStatus = 'Running'` }))
    await client.workflow
      .getHandle(w.workflowId, w.runId)
      .terminate('location fence cleanup')
      .catch(() => undefined);
  await connection.close();
  await worker?.stop();
  await dropNamespaces(catalog, nsPrefix, [db]);
  await dropWarehouse(
    prefix,
    db,
    built.map((b) => b.name),
  );
  store?.destroy();
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

const findingsOf = (name: string): string[] => assessed.find((a) => a.id === id(name))?.findings.map((f) => f.code) ?? [];

describe('locations fenced', () => {
  it('assess: file:///etc/ssl/certs and a local path outside storage.localRoots are LOCATION_NOT_ALLOWED (skip); the s3a table is not', () => {
    const cls = (name: string) => assessed.find((a) => a.id === id(name))?.class;
    expect([cls('certs'), findingsOf('certs')]).toEqual(['skip', expect.arrayContaining(['LOCATION_NOT_ALLOWED'])]);
    expect([cls('outside'), findingsOf('outside')]).toEqual(['skip', expect.arrayContaining(['LOCATION_NOT_ALLOWED'])]);
    expect(findingsOf('good')).not.toContain('LOCATION_NOT_ALLOWED');
    const certs = assessed.find((a) => a.id === id('certs'))?.findings.find((f) => f.code === 'LOCATION_NOT_ALLOWED');
    expect(certs?.evidence).toContain('partition p=b at file:///etc/ssl/certs');
    const outside = assessed.find((a) => a.id === id('outside'))?.findings.find((f) => f.code === 'LOCATION_NOT_ALLOWED');
    // The `..` is resolved before comparing: the refusal names where the path really goes.
    expect(outside?.evidence).toContain(`local path ${outsideDir} is outside storage.localRoots`);
  });

  it('plan: neither is in a wave', () => {
    expect(notPlanned.map((n) => n.id)).toEqual(expect.arrayContaining([id('certs'), id('outside')]));
  });

  it('edited plan: the worker refuses both at apply (LOCATION_NOT_ALLOWED, exit 1); the good table in the same wave migrates', async () => {
    expect(apply.code).toBe(1);
    expect(records.get('certs')).toEqual({ status: 'failed', code: 'LOCATION_NOT_ALLOWED' });
    expect(records.get('outside')).toEqual({ status: 'failed', code: 'LOCATION_NOT_ALLOWED' });
    expect(records.get('good')?.status).toBe('migrated');
    expect(await catalogEntry(catalog, nsPrefix, id('good'))).not.toBeNull();
  });

  it('no partial state: no catalog entry, no metadata file (s3a and local), no data byte changed', async () => {
    const certs = built.find((b) => b.name === 'certs') as Built;
    expect(await catalogEntry(catalog, nsPrefix, id('certs'))).toBeNull();
    expect(await catalogEntry(catalog, nsPrefix, id('outside'))).toBeNull();
    expect(await metadataFiles(store, certs.location)).toEqual([]);
    expect(existsSync(path.join(outsideDir, 'metadata'))).toBe(false);
    expect(existsSync('/etc/ssl/certs/metadata')).toBe(false);
    expect(after).toEqual(before);
  });

  it('migrate table (no plan) refuses the same table: LOCATION_NOT_ALLOWED, exit 1, nothing registered', async () => {
    expect(outcome(tableRun)).toEqual({ exit: 1, code: 'LOCATION_NOT_ALLOWED' });
    expect(tableRun.stdout).toContain('file:///etc/ssl/certs');
  });
});
