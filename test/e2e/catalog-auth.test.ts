// The REST catalog behind authentication, end to end with the real CLI and a real worker: the
// stack's catalog-gateway verifies OAuth2 JWTs from Keycloak (10 s access tokens) on one port and
// SigV4 signatures (recomputed by the AWS SDK's signer) on another, in front of the reference REST
// catalog. Proves: apply of a seeded plan through OAuth2 succeeds while the worker's token is
// refreshed before expiry (≥ 2 worker tokens, no request refused); neither the client secret nor
// any token appears in the workflow histories, worker log, CLI output, plan file or state/audit
// tables; doctor reports the method and identity and fails with the code and remedy for a wrong or
// missing secret; `migrate table` and `migrate apply` (a worker signing every request) through
// SigV4 register the tables, doctor names service, region, key prefix and credential source, and a
// wrong AWS secret is CATALOG_AUTH_FAILED.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { RestCatalog } from '../../adapters/catalog/rest';
import type { Run } from '../helpers/cli';
import { MIGRATE, ROOT, TSX, run, withCatalogSection } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import type { Check } from '../../app/doctor/doctor';

const env = testStack();
const prefix = uniqueName('himca').toLowerCase();
const nsPrefix = `${prefix}_`;
const dbs = [`${prefix}_sales`, `${prefix}_misc`];
const taskQueue = `him-e2e-${prefix}`;
const SECRET_ENV = 'HIM_E2E_CATALOG_CLIENT_SECRET';
const SECRET = 'him-dev-oauth-secret-0123456789'; // the stack's dev-only client secret (temporal-dev.yml)
const tokenEndpoint = `${env.HIM_OAUTH_URL}/realms/him/protocol/openid-connect/token`;
const gateway = env.HIM_CATALOG_GATEWAY_URI as string;
let dir = '';
const workers: ChildProcess[] = [];
let workerLog = '';
const outputs: string[] = [];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Stats {
  oauth2: { rejected: Record<string, number>; tokens: { jti: string; azp?: string; firstSeen: number }[] };
  sigv4: { accepted: number; rejected: Record<string, number> };
}
const stats = async (): Promise<Stats> => (await (await fetch(`${gateway}/__gateway/stats`)).json()) as Stats;
const refused = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

function config(name: string, catalog: string, db = dbs[0], queue = taskQueue): string {
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8').replace(
    /namespace: default/,
    `namespace: default\n  taskQueue: ${queue}`,
  );
  const file = path.join(dir, `${name}.yaml`);
  const plan = `plan:\n  databases: [${db}]\n  waves:\n    maxTablesPerWave: 40\n`;
  writeFileSync(file, `${withCatalogSection(base, catalog)}${plan}`);
  return file;
}

const oauthCatalog = (clientId: string): string =>
  `catalog:\n  name: local-rest\n  type: rest\n  uri: ${gateway}\n  warehouse: s3://warehouse/rest/\n  namespacePrefix: ${nsPrefix}\n` +
  `  auth:\n    type: oauth2\n    tokenEndpoint: ${tokenEndpoint}\n    clientId: ${clientId}\n    clientSecretEnv: ${SECRET_ENV}\n    scope: catalog\n`;
const sigv4Catalog =
  `catalog:\n  name: local-rest\n  type: rest\n  uri: ${env.HIM_CATALOG_GATEWAY_SIGV4_URI}\n  warehouse: s3://warehouse/rest/\n` +
  `  namespacePrefix: ${nsPrefix}\n  auth:\n    type: sigv4\n    service: glue\n    region: eu-west-1\n`;

async function migrate(cfg: string, args: string[], extraEnv: Record<string, string> = { [SECRET_ENV]: SECRET }): Promise<Run> {
  const r = await run(MIGRATE, [...args, '--config', cfg], 300_000, extraEnv);
  outputs.push(r.stdout, r.stderr);
  return r;
}

const catalogCheck = (r: Run, check: string): Check | undefined =>
  (JSON.parse(r.stdout) as { checks: Check[] }).checks.find((c) => c.component === 'catalog' && c.check === check);

function startWorker(cfg: string, extraEnv: Record<string, string>): void {
  const w = spawn(MIGRATE, ['worker', '--config', cfg], {
    env: { ...process.env, ...env, ...extraEnv },
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  w.stdout?.on('data', (d: Buffer) => (workerLog += d.toString()));
  w.stderr?.on('data', (d: Buffer) => (workerLog += d.toString()));
  workers.push(w);
}

interface Applied {
  readonly id: string;
  readonly took: number;
  readonly started: number;
  readonly migrated: number;
}

/** plan → apply → approve each wave when asked → succeeded (or throw with the worker's log). */
async function applyAndWait(cfg: string, planFile: string, extraEnv: Record<string, string>, applyFlags: string[] = []): Promise<Applied> {
  expect((await migrate(cfg, ['plan', '--out', planFile], extraEnv)).code).toBe(0);
  const id = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash.slice(0, 12);
  const started = Date.now();
  expect((await migrate(cfg, ['apply', planFile, '--max-failed', '10', '--json', ...applyFlags], extraEnv)).code).toBe(0);
  let state: { state: string; currentWave: number | null; waves: { wave: number; migrated: number }[] } | undefined;
  const approved = new Set<number>();
  while (Date.now() - started < 480_000) {
    const st = await migrate(cfg, ['status', id, '--json'], extraEnv);
    state = JSON.parse(st.stdout) as typeof state;
    if (['succeeded', 'failed', 'cancelled'].includes(state?.state ?? '')) break;
    if (state?.state === 'waiting-approval' && state.currentWave !== null && !approved.has(state.currentWave)) {
      expect((await migrate(cfg, ['approve', id, '--wave', String(state.currentWave)], extraEnv)).code).toBe(0);
      approved.add(state.currentWave);
    }
    await sleep(1000);
  }
  if (state?.state !== 'succeeded') throw new Error(`plan ended ${state?.state}\nworker:\n${workerLog.slice(-4000)}`);
  return { id, took: Date.now() - started, started, migrated: state.waves.reduce((n, w) => n + w.migrated, 0) };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-catalog-auth-'));
  const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix]);
  if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
}, 600_000);

afterAll(async () => {
  for (const w of workers) w.kill('SIGTERM');
  await sleep(500);
  for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const db of dbs) {
    for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
  }
  await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
  rmSync(dir, { recursive: true, force: true });
}, 600_000);

describe('catalog auth: OAuth2 client credentials (Keycloak) through the verifying gateway', () => {
  it('doctor reports oauth2, the client, the token subject and expiry; a wrong or unset secret fails with its code and remedy', async () => {
    const cfg = config('doctor-oauth2', oauthCatalog('him-migrator'));
    const ok = await migrate(cfg, ['doctor', '--json']);
    expect(catalogCheck(ok, 'auth')).toMatchObject({ status: 'ok' });
    // The realm hands out 10 s tokens; doctor prints what is left when it renders (a loaded machine takes seconds).
    expect(catalogCheck(ok, 'auth')?.detail).toMatch(
      new RegExp(
        `^oauth2 client credentials at ${tokenEndpoint}: client him-migrator, subject [0-9a-f-]{36}, scope catalog; token expires in ([1-9]|10) s`,
      ),
    );
    expect(catalogCheck(ok, 'reachable')).toMatchObject({ status: 'ok' });

    const wrong = await migrate(cfg, ['doctor', '--json'], { [SECRET_ENV]: 'wrong-secret-e2e-4711' });
    expect(wrong.code).toBe(1);
    const w = catalogCheck(wrong, 'auth');
    expect(w).toMatchObject({ status: 'fail', code: 'CATALOG_AUTH_FAILED' });
    expect(w?.detail).toContain(`OAuth2 token request to ${tokenEndpoint}: HTTP 401 unauthorized_client`);
    expect(w?.remedy).toContain(`the secret in ${SECRET_ENV}`);
    expect(catalogCheck(wrong, 'reachable')).toBeUndefined();
    expect(`${wrong.stdout}${wrong.stderr}`).not.toContain('wrong-secret-e2e-4711');

    const unset = await migrate(cfg, ['doctor', '--json'], {});
    expect(catalogCheck(unset, 'auth')).toMatchObject({ status: 'fail', code: 'CONFIG_INVALID' });
    expect(catalogCheck(unset, 'auth')?.remedy).toContain(`export ${SECRET_ENV}=<client secret>`);

    // Outside doctor: the same coded error, exit 1, what to fix in the message.
    const table = await migrate(cfg, ['table', `${dbs[0]}.orders`], { [SECRET_ENV]: 'wrong-secret-e2e-4711' });
    expect(table.code).toBe(1);
    expect(table.stderr).toContain('CATALOG_AUTH_FAILED');
    expect(table.stderr).toContain(`the secret in ${SECRET_ENV}`);
    expect(table.stderr).not.toContain('wrong-secret-e2e-4711');
  });

  it('apply: the worker refreshes its 10 s token during the wave (≥ 2 tokens, nothing refused); no secret or token leaks', async () => {
    const cliCfg = config('cli', oauthCatalog('him-migrator'));
    const workerStart = Date.now();
    const workerCfg = config('worker', oauthCatalog('him-worker'));
    startWorker(workerCfg, { [SECRET_ENV]: SECRET });
    const before = await stats();
    const planFile = path.join(dir, 'plan.json');
    // One table at a time behind a slow catalog (1 s a request): the wave outlives several 10 s tokens.
    await fetch(`${gateway}/__gateway/delay?ms=1000`, { method: 'POST' });
    let applied: Applied;
    try {
      applied = await applyAndWait(cliCfg, planFile, { [SECRET_ENV]: SECRET }, ['--concurrency', '1']);
    } finally {
      await fetch(`${gateway}/__gateway/delay?ms=0`, { method: 'POST' });
    }
    const { id, took, started } = applied;
    expect(applied.migrated).toBeGreaterThanOrEqual(4);

    const after = await stats();
    // This worker's tokens (its own client id): the one it started with, then refreshes while the wave ran.
    const workerTokens = after.oauth2.tokens.filter((t) => t.azp === 'him-worker' && t.firstSeen >= workerStart);
    const inWave = workerTokens.filter((t) => t.firstSeen > started);
    process.stdout.write(
      `catalog-auth e2e: apply ${took} ms; worker tokens first seen at ${workerTokens.map((t) => t.firstSeen - started).join(', ')} ms\n`,
    );
    expect(took).toBeGreaterThan(20_000);
    expect(inWave.length).toBeGreaterThanOrEqual(2);
    expect(refused(after.oauth2.rejected) - refused(before.oauth2.rejected)).toBe(0);

    // The client secret and every token the gateway accepted: nowhere.
    const tokens = ((await (await fetch(`${gateway}/__gateway/tokens`)).json()) as { tokens: string[] }).tokens;
    expect(tokens.length).toBeGreaterThanOrEqual(workerTokens.length);
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    const texts: string[] = [workerLog, readFileSync(planFile, 'utf8'), ...outputs];
    try {
      const client = new Client({ connection });
      for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH 'migrate/${id}'` }))
        texts.push(JSON.stringify(await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory()));
    } finally {
      await connection.close();
    }
    const pg = new PgClient({ connectionString: env.HIM_POSTGRES_URL as string });
    await pg.connect();
    try {
      for (const t of ['him_audit', 'him_plans', 'him_tables'])
        texts.push(
          JSON.stringify((await pg.query(`SELECT * FROM ${t}`)).rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
        );
    } finally {
      await pg.end();
    }
    expect(texts.length).toBeGreaterThan(5);
    for (const text of texts) {
      expect(text.includes(SECRET)).toBe(false);
      for (const token of tokens) expect(text.includes(token)).toBe(false);
    }
  }, 600_000);
});

describe('catalog auth: SigV4 (AWS credential chain) through the gateway that checks with the AWS SDK signer', () => {
  it('doctor names service, region, key prefix and source; migrate table registers through SigV4; a wrong secret is CATALOG_AUTH_FAILED', async () => {
    const cfg = config('sigv4', sigv4Catalog);
    const ok = await migrate(cfg, ['doctor', '--json'], {});
    expect(catalogCheck(ok, 'auth')).toMatchObject({
      status: 'ok',
      detail: `sigv4 service glue, region eu-west-1, access key ${(env.AWS_ACCESS_KEY_ID as string).slice(0, 4)}… from environment (AWS_ACCESS_KEY_ID)`,
    });
    expect(catalogCheck(ok, 'reachable')).toMatchObject({ status: 'ok' });

    const before = await stats();
    const table = await migrate(cfg, ['table', `${dbs[1]}.metrics_orc`, '--json'], {});
    expect(table.code).toBe(0);
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    expect(await catalog.tableExists({ namespace: [`${nsPrefix}${dbs[1]}`], name: 'metrics_orc' })).toBe(true);
    const after = await stats();
    expect(after.sigv4.accepted - before.sigv4.accepted).toBeGreaterThanOrEqual(3);
    expect(refused(after.sigv4.rejected) - refused(before.sigv4.rejected)).toBe(0);

    const wrong = await migrate(cfg, ['doctor', '--json'], { AWS_SECRET_ACCESS_KEY: 'wrong-aws-secret-e2e-4711' });
    const w = catalogCheck(wrong, 'auth');
    expect(wrong.code).toBe(1);
    expect(w).toMatchObject({ status: 'fail', code: 'CATALOG_AUTH_FAILED' });
    expect(w?.detail).toContain('HTTP 403 SignatureDoesNotMatch');
    expect(w?.remedy).toContain('catalog.auth.region and service (glue)');
    expect(`${wrong.stdout}${wrong.stderr}`).not.toContain('wrong-aws-secret-e2e-4711');
  });
  it('apply through SigV4: a worker signing every catalog request migrates the wave, nothing refused, no AWS secret in any history', async () => {
    const cfg = config('sigv4-apply', sigv4Catalog, dbs[1], `${taskQueue}-sigv4`);
    startWorker(cfg, {});
    const before = await stats();
    const planFile = path.join(dir, 'plan-sigv4.json');
    const { id, migrated } = await applyAndWait(cfg, planFile, {});
    expect(migrated).toBeGreaterThanOrEqual(2);
    const after = await stats();
    expect(after.sigv4.accepted - before.sigv4.accepted).toBeGreaterThanOrEqual(2 * migrated);
    expect(refused(after.sigv4.rejected) - refused(before.sigv4.rejected)).toBe(0);
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    try {
      const client = new Client({ connection });
      let histories = 0;
      for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH 'migrate/${id}'` })) {
        expect(JSON.stringify(await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory())).not.toContain(
          env.AWS_SECRET_ACCESS_KEY as string,
        );
        histories++;
      }
      expect(histories).toBeGreaterThan(1);
    } finally {
      await connection.close();
    }
  }, 600_000);
});
