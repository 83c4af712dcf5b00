// Plan signing end to end (docs/plan-signing.md): the real `migrate plan` against the stack's HMS
// (a tiny --scale warehouse under a prefix of our own) with plan.signing configured writes a plan
// whose signature verifies with node:crypto directly (HMAC and Ed25519) and whose target is pinned;
// `migrate apply` refuses an edited (re-hashed) plan and an unsigned one with exit 2 before any
// connection: nothing reaches the state store. A signing misconfiguration writes no plan.
import { createHash, createHmac, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { canonicalJson, sha256Hex } from '../../core/hash';
import type { Run } from '../helpers/cli';
import { MIGRATE, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const stackCfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const prefix = uniqueName('himsig').toLowerCase();
const database = `${prefix}_scale_2x1x1`;
const taskQueue = `him-e2e-${prefix}`;
const HMAC_KEY = `e2e-plan-signing-key-${prefix}-0123456789abcdef`;
let dir = '';
const forgedHashes: string[] = [];

interface Signature {
  type: string;
  keyId: string;
  signer: string;
  value: string;
}
interface PlanJson {
  hash: string;
  version: number;
  target: unknown;
  signature?: Signature;
  waves: { number: number; tables: { id: string; files: number }[] }[];
  notPlanned: unknown[];
}

/** The stack's config on our own task queue, plus a plan section with `signing`. */
function config(name: string, signingYaml: string): string {
  const base = readFileSync(stackCfg, 'utf8')
    .replace(/taskQueue:.*\n/, '')
    .replace(/namespace: default/, `namespace: default\n  taskQueue: ${taskQueue}`);
  const file = path.join(dir, name);
  writeFileSync(file, `${base}\nplan:\n  databases: [${database}]\n  signing:\n${signingYaml.replace(/^/gm, '    ')}\n`);
  return file;
}

const migrate = (args: string[], extraEnv: Record<string, string> = {}): Promise<Run> =>
  run(MIGRATE, args, 300_000, { MIGRATE_PLAN_KEY: HMAC_KEY, MIGRATE_ACTOR: 'e2e-planner', ...extraEnv });
/** The error code of a --json run, or what happened instead (readable in a failed expectation). */
function errorCode(r: Run): string {
  try {
    return (JSON.parse(r.stdout) as { error?: { code: string } }).error?.code ?? `no error: ${r.stdout.trim()}`;
  } catch {
    return `not JSON: ${r.stdout}${r.stderr}`;
  }
}
const message = (hash: string, s: Signature): string =>
  ['hms-iceberg-migrator plan signature v1', hash, s.type, s.keyId, s.signer].join('\n');

/** An operator's edit: one table's file count changed, the hash recomputed with plain sha256, the signature kept. */
function forge(plan: PlanJson, file: string): string {
  const doc = JSON.parse(JSON.stringify(plan)) as PlanJson & Record<string, unknown>;
  doc.waves[0]!.tables[0]!.files += 1;
  const { hash: _h, signature: _s, ...rest } = doc;
  doc.hash = sha256Hex(canonicalJson(rest));
  forgedHashes.push(doc.hash);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

async function expectNotSubmitted(hash: string): Promise<void> {
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string, { max: 1 });
  try {
    await expect(state.getPlan(hash)).rejects.toMatchObject({ code: 'PLAN_INVALID' });
  } finally {
    await state.close();
  }
}

describe('plan signing (real CLI, stack HMS)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-plansig-'));
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', '2,1,1']);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
  }, 600_000);

  afterAll(async () => {
    // Until apply calls readPlanForApply, a forged plan may have been started: end it.
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    const client = new Client({ connection });
    for (const h of forgedHashes)
      await client.workflow
        .getHandle(`migrate/${h.slice(0, 12)}`)
        .terminate('plan-signing e2e cleanup')
        .catch(() => undefined);
    await connection.close();
    await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', '2,1,1', '--drop']);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('hmac: the plan carries a verifiable signature and a pinned target; apply refuses it edited or unsigned (exit 2)', async () => {
    const cfg = config('hmac.yaml', 'type: hmac\nkeyEnv: MIGRATE_PLAN_KEY');
    const planFile = path.join(dir, 'hmac-plan.json');
    const p = await migrate(['plan', '-c', cfg, '--out', planFile]);
    expect([p.code, p.stderr]).toEqual([0, expect.any(String)]);
    expect(p.stdout).toMatch(/signed \(hmac-sha256, key [0-9a-f]{16}\) by e2e-planner/);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as PlanJson;
    expect(plan.version).toBe(3);
    expect(plan.target).toEqual({ catalog: 'local-rest', type: 'rest', mode: null, namespacePrefix: '' });
    expect(plan.waves.flatMap((w) => w.tables.map((t) => t.id.split('.')[0]))).toEqual([database, database]);
    const s = plan.signature!;
    expect([s.type, s.signer]).toEqual(['hmac-sha256', 'e2e-planner']);
    expect(createHmac('sha256', HMAC_KEY).update(message(plan.hash, s)).digest('base64')).toBe(s.value);

    const edited = await migrate(['apply', forge(plan, path.join(dir, 'hmac-edited.json')), '-c', cfg, '--json']);
    expect([errorCode(edited), edited.code]).toEqual(['PLAN_SIGNATURE_INVALID', 2]);
    await expectNotSubmitted(forgedHashes.at(-1)!);

    const { signature: _s, ...unsigned } = plan;
    const unsignedFile = path.join(dir, 'hmac-unsigned.json');
    writeFileSync(unsignedFile, JSON.stringify(unsigned));
    forgedHashes.push(plan.hash);
    const u = await migrate(['apply', unsignedFile, '-c', cfg, '--json']);
    expect([errorCode(u), u.code]).toEqual(['PLAN_UNSIGNED', 2]);
    await expectNotSubmitted(plan.hash);
  }, 300_000);

  it('ed25519: the signature verifies with the public key; apply with another key pair refuses it (exit 2)', async () => {
    const pair = (name: string) => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      writeFileSync(path.join(dir, `${name}.pem`), privateKey.export({ type: 'pkcs8', format: 'pem' }));
      writeFileSync(path.join(dir, `${name}.pub.pem`), publicKey.export({ type: 'spki', format: 'pem' }));
      return `privateKeyFile: ${path.join(dir, `${name}.pem`)}\npublicKeyFile: ${path.join(dir, `${name}.pub.pem`)}`;
    };
    const cfg = config('ed.yaml', `type: ed25519\n${pair('main')}`);
    const planFile = path.join(dir, 'ed-plan.json');
    expect((await migrate(['plan', '-c', cfg, '--out', planFile])).code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as PlanJson;
    const s = plan.signature!;
    const pub = createPublicKey(readFileSync(path.join(dir, 'main.pub.pem')));
    expect(s.keyId).toBe(
      createHash('sha256')
        .update(pub.export({ type: 'spki', format: 'der' }))
        .digest('hex')
        .slice(0, 16),
    );
    expect(verify(null, Buffer.from(message(plan.hash, s)), pub, Buffer.from(s.value, 'base64'))).toBe(true);

    const other = config('ed-other.yaml', `type: ed25519\n${pair('other')}`);
    forgedHashes.push(plan.hash);
    const r = await migrate(['apply', planFile, '-c', other, '--json']);
    expect([errorCode(r), r.code]).toEqual(['PLAN_SIGNATURE_INVALID', 2]);
    await expectNotSubmitted(plan.hash);
  }, 300_000);

  it('a signing misconfiguration (key variable unset) exits 2 and writes no plan', async () => {
    const cfg = config('unset.yaml', 'type: hmac\nkeyEnv: HIM_E2E_UNSET_PLAN_KEY');
    const out = path.join(dir, 'never.json');
    const r = await migrate(['plan', '-c', cfg, '--out', out, '--json']);
    expect([r.code, (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error]).toEqual([
      2,
      {
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(/plan\.signing\.keyEnv: environment variable HIM_E2E_UNSET_PLAN_KEY is not set/),
        context: expect.anything(),
      },
    ]);
    expect(existsSync(out)).toBe(false);
  }, 300_000);
});
