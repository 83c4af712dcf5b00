// Rules enforced where the work happens: a worker configured with approvers and
// with plan signing decides, whatever the client that talks to Temporal sent. A raw Temporal update
// (no CLI), and `migrate approve` from a config without approvers, are refused by the worker and
// audited as refusals; `--auto-approve` does not stand in for the worker's approvers; malformed actors
// (newlines, escapes, 120 KB) are refused before anything is recorded; an unsigned plan submitted from
// a config without signing is refused by a signing worker (`plan.refused`, nothing registered), a
// signed one runs and its signer is recorded. Real HMS, S3, REST catalog, Temporal, Postgres; two
// `migrate worker` processes on task queues of their own.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { RestCatalog } from '../../../adapters/catalog/rest';
import { PostgresStateStore } from '../../../adapters/state/postgres';
import type { AuditEvent } from '../../../core/audit/chain';
import type { WorkerProc } from '../../helpers/hostile';
import {
  auditIntact,
  catalogEntry,
  dropNamespaces,
  env,
  migrate,
  openCatalog,
  outcome,
  sleep,
  stackConfigYaml,
  startWorker,
  writeFile,
} from '../../helpers/hostile';
import { uniqueName } from '../../helpers/stack-env';
import { buildWarehouse, dropWarehouse } from './warehouse';

const prefix = uniqueName('himw').toLowerCase();
const nsPrefix = `${prefix}_`;
const DB_A = `${prefix}_a`;
const DB_S = `${prefix}_s`;
// Table locations are per prefix and name (warehouse.ts): distinct names per database.
const NAMES_A = ['a1', 'a2'] as const;
const NAMES_S = ['s1', 's2'] as const;
const PLAN_KEY = `worker-rules-plan-key-${prefix}-0123456789abcdef`;
const APPROVER = 'alice';

let dir = '';
/** Worker A: approvers [alice]. Client A: the same queue, no approvers. */
let workerCfgA = '';
let clientCfgA = '';
/** Worker S: plan.signing. Client S: no signing; signer: a planning config with signing. */
let workerCfgS = '';
let clientCfgS = '';
let signerCfgS = '';
const workers: WorkerProc[] = [];
let temporal: Connection;
let catalog: RestCatalog;

/** `extraAudit` goes under the stack's `audit:` section. */
function cfgText(queue: string, db: string, extraAudit = '', extraPlan = ''): string {
  const y = stackConfigYaml(queue, nsPrefix, `plan:\n  databases: [${db}]\n${extraPlan}`);
  return extraAudit === '' ? y : y.replace(/^audit:\n/m, `audit:\n${extraAudit}`);
}

async function makePlan(name: string, cfg: string): Promise<{ file: string; hash: string; id: string }> {
  const file = path.join(dir, `${name}.json`);
  const r = await migrate(['plan', '--out', file, '-c', cfg], 300_000, { MIGRATE_PLAN_KEY: PLAN_KEY });
  if (r.code !== 0) throw new Error(`plan ${name}: ${r.stdout}${r.stderr}`);
  const hash = (JSON.parse(readFileSync(file, 'utf8')) as { hash: string }).hash;
  return { file, hash, id: hash.slice(0, 12) };
}

async function events(planHash: string): Promise<AuditEvent[]> {
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string, { max: 1 });
  const out: AuditEvent[] = [];
  try {
    for await (const e of state.readAudit()) if (e.planHash === planHash) out.push(e);
  } finally {
    await state.close();
  }
  return out;
}

async function statusOf(id: string, cfg: string): Promise<{ state?: string; approved?: number[]; reason?: string }> {
  const r = await migrate(['status', id, '--json', '-c', cfg]);
  try {
    return JSON.parse(r.stdout) as { state?: string };
  } catch {
    return {};
  }
}

async function waitState(id: string, cfg: string, states: readonly string[], ms = 180_000): Promise<string | undefined> {
  const deadline = Date.now() + ms;
  let s: string | undefined;
  while (Date.now() < deadline) {
    s = (await statusOf(id, cfg)).state;
    if (s !== undefined && states.includes(s)) return s;
    await sleep(1000);
  }
  return s;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-worker-rules-'));
  const qA = `him-rules-a-${prefix}`;
  const qS = `him-rules-s-${prefix}`;
  workerCfgA = writeFile(dir, 'worker-a.yaml', cfgText(qA, DB_A, `  approvers: [${APPROVER}]\n`));
  clientCfgA = writeFile(dir, 'client-a.yaml', cfgText(qA, DB_A));
  const signing = '  signing:\n    type: hmac\n    keyEnv: MIGRATE_PLAN_KEY\n';
  workerCfgS = writeFile(dir, 'worker-s.yaml', cfgText(qS, DB_S, '', signing));
  clientCfgS = writeFile(dir, 'client-s.yaml', cfgText(qS, DB_S));
  signerCfgS = writeFile(dir, 'signer-s.yaml', cfgText(qS, DB_S, '', signing));
  await buildWarehouse(prefix, DB_A, Object.fromEntries(NAMES_A.map((n) => [n, 'good' as const])));
  await buildWarehouse(prefix, DB_S, Object.fromEntries(NAMES_S.map((n) => [n, 'good' as const])));
  catalog = await openCatalog();
  temporal = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  workers.push(startWorker(workerCfgA), startWorker(workerCfgS, { MIGRATE_PLAN_KEY: PLAN_KEY }));
}, 600_000);

afterAll(async () => {
  const client = new Client({ connection: temporal });
  for await (const w of client.workflow.list({ query: `ExecutionStatus = 'Running' AND TaskQueue STARTS_WITH 'him-rules-'` }))
    await client.workflow
      .getHandle(w.workflowId, w.runId)
      .terminate('worker-rules cleanup')
      .catch(() => undefined);
  await temporal?.close();
  for (const w of workers) await w.stop();
  await dropNamespaces(catalog, nsPrefix, [DB_A, DB_S]);
  await dropWarehouse(prefix, DB_A, NAMES_A);
  await dropWarehouse(prefix, DB_S, NAMES_S);
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

describe('the worker decides approvals', () => {
  it('--auto-approve, a raw Temporal update and a CLI without approvers are refused by the worker and audited; alice approves', async () => {
    const p = await makePlan('a', clientCfgA);
    const applied = await migrate(['apply', p.file, '--auto-approve', '--json', '-c', clientCfgA], 120_000);
    expect(outcome(applied)).toEqual({ exit: 0, code: undefined });
    // The worker's approvers hold wave 1: --auto-approve does not approve it.
    expect(await waitState(p.id, clientCfgA, ['waiting-approval', 'running', 'succeeded'])).toBe('waiting-approval');

    const h = new Client({ connection: temporal }).workflow.getHandle(`migrate/${p.id}`);
    const update = (arg: Record<string, unknown>): Promise<unknown> => h.executeUpdate('approve', { args: [arg] });
    // A raw update as an operator with Temporal access can send it: alice's name, no source → nothing vouches for it.
    await expect(update({ wave: 1, by: 'alice@jump-host-1' })).rejects.toMatchObject({
      cause: { type: 'AUDIT_APPROVER_REFUSED', message: expect.stringContaining('no stated source') },
    });
    await expect(update({ wave: 1, by: 'mallory@x', source: 'os' })).rejects.toMatchObject({
      cause: { type: 'AUDIT_APPROVER_REFUSED', message: expect.stringContaining('is not on audit.approvers') },
    });
    // Malformed actors never get as far as a decision: refused by the validator, nothing recorded.
    for (const by of ['alice\nwave 2 approved by bob', 'alice\u001b[2K', 'a'.repeat(120_000)])
      await expect(update({ wave: 1, by, source: 'os' })).rejects.toMatchObject({ cause: { type: 'USAGE' } });
    await expect(update({ wave: 1, by: 'alice', source: 'root' })).rejects.toMatchObject({ cause: { type: 'USAGE' } });
    // The CLI from a config that lists no approvers: its own check passes, the worker refuses (exit 1).
    const cli = await migrate(['approve', p.id, '--wave', '1', '--json', '-c', clientCfgA], 120_000, { MIGRATE_ACTOR: '' });
    expect(outcome(cli)).toEqual({ exit: 1, code: 'AUDIT_APPROVER_REFUSED' });
    expect((await statusOf(p.id, clientCfgA)).state).toBe('waiting-approval');

    const refused = (await events(p.hash)).filter((e) => e.action === 'wave.approval-refused');
    expect(refused.map((e) => [e.actor, e.actorSource])).toEqual([
      ['alice@jump-host-1', 'unspecified'],
      ['mallory@x', 'os'],
      [expect.stringMatching(/@/), 'os'],
    ]);
    expect((await events(p.hash)).filter((e) => e.action === 'wave.approved')).toEqual([]);

    // alice, from an OS account: approved, recorded with its source, and the wave runs.
    await expect(update({ wave: 1, by: 'alice@jump-host-1', source: 'os' })).resolves.toMatchObject({ approved: [1] });
    expect(await waitState(p.id, clientCfgA, ['succeeded', 'failed'])).toBe('succeeded');
    const approved = (await events(p.hash)).filter((e) => e.action === 'wave.approved');
    expect(approved.map((e) => [e.actor, e.actorSource])).toEqual([['alice@jump-host-1', 'os']]);
    for (const t of NAMES_A) expect(await catalogEntry(catalog, nsPrefix, `${DB_A}.${t}`)).not.toBeNull();
    expect(await auditIntact(clientCfgA)).toEqual({ exit: 0, ok: true, code: undefined });
  }, 500_000);
});

describe('the worker decides plan signing', () => {
  it('an unsigned plan from a client without signing is refused by the signing worker (audited, nothing registered); a signed one runs and records its signer', async () => {
    const unsigned = await makePlan('s-unsigned', clientCfgS);
    const r = await migrate(['apply', unsigned.file, '--auto-approve', '--wait', '--json', '-c', clientCfgS], 300_000);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBe(70);
    expect(`${r.stdout}${r.stderr}`).toMatch(
      /the worker refused plan [0-9a-f]{12} \(its own plan.signing decides\): signature: .*not signed/,
    );
    // The plan workflow failed at its first activity: the worker's refusal, non-retryable.
    await expect(new Client({ connection: temporal }).workflow.getHandle(`migrate/${unsigned.id}`).result()).rejects.toMatchObject({
      cause: { cause: { type: 'PLAN_UNSIGNED' } },
    });
    const ev = await events(unsigned.hash);
    expect(ev.filter((e) => e.action === 'plan.refused').map((e) => e.details.code)).toEqual(['PLAN_UNSIGNED']);
    expect(ev.filter((e) => /^table\./.test(e.action))).toEqual([]);
    for (const t of NAMES_S) expect(await catalogEntry(catalog, nsPrefix, `${DB_S}.${t}`)).toBeNull();

    // The same tables planned with signing (another plan hash): the worker verifies it and records the signer.
    const signed = await makePlan('s-signed', signerCfgS);
    const ok = await migrate(['apply', signed.file, '--auto-approve', '--wait', '--json', '-c', signerCfgS], 300_000, {
      MIGRATE_PLAN_KEY: PLAN_KEY,
    });
    expect([outcome(ok), ok.code === 0 ? '' : ok.stdout.slice(0, 3000)]).toEqual([{ exit: 0, code: undefined }, '']);
    const verified = (await events(signed.hash)).filter((e) => e.action === 'plan.signature-verified');
    expect(verified.map((e) => [e.details.type, e.details.signer])).toEqual([['hmac-sha256', expect.any(String)]]);
    for (const t of NAMES_S) expect(await catalogEntry(catalog, nsPrefix, `${DB_S}.${t}`)).not.toBeNull();
  }, 600_000);
});
