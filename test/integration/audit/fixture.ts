// A fresh state database and anchor location per test, on the shared stack's Postgres and S3, plus
// a config file pointing `migrate` at them (JSON is YAML). Tampering is done with plain SQL, as an
// operator with database access would.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { AuditEvent } from '../../../core/audit/chain';
import { AuditAction } from '../../../core/audit/chain';
import type { MigrateConfig } from '../../../core/config/schema';
import type { StateStore } from '../../../core/state/store';
import { configSchema } from '../../../core/config/schema';
import { openState } from '../../../app/runtime/runtime';
import { MIGRATE, run } from '../../helpers/cli';
import type { Run } from '../../helpers/cli';
import { testStack, uniqueName } from '../../helpers/stack-env';

export const env = testStack();
const adminUrl = env.HIM_POSTGRES_URL as string;

export const urlFor = (db: string): string => {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
};

export interface Fixture {
  readonly db: string;
  readonly url: string;
  readonly anchorLocation: string;
  readonly dir: string;
  readonly configFile: string;
  readonly config: MigrateConfig;
  /** Append `n` events through the real state store (anchored, keyed as configured). */
  append(n: number, cfg?: MigrateConfig): Promise<AuditEvent[]>;
  /** Run SQL on the test's state database as its owner. */
  sql<T extends pg.QueryResultRow>(text: string, params?: unknown[]): Promise<T[]>;
  verify(extraEnv?: Record<string, string>): Promise<Run & { json: Record<string, unknown> }>;
  dispose(): Promise<void>;
}

export async function fixture(
  audit: Partial<NonNullable<MigrateConfig['audit']>> | 'no-anchor' = {},
  extra: Record<string, unknown> = {},
): Promise<Fixture> {
  const db = uniqueName('himaudit').toLowerCase();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${db}"`);
  await admin.end();
  const url = urlFor(db);
  const anchorLocation = `s3://results/audit-it/${db}/`;
  const auditSection = audit === 'no-anchor' ? undefined : { anchorLocation, ...audit };
  const raw = {
    storage: { s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true } },
    state: { url },
    ...(auditSection === undefined ? {} : { audit: auditSection }),
    ...extra,
  };
  const config = configSchema.parse(raw);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-audit-'));
  const configFile = path.join(dir, 'migrate.yaml');
  writeFileSync(configFile, JSON.stringify(raw, null, 2));
  const client = new pg.Client({ connectionString: url });
  let connected = false;
  const f: Fixture = {
    db,
    url,
    anchorLocation,
    dir,
    configFile,
    config,
    async append(n, cfg = config) {
      const state = await openState(cfg, { ...process.env, ...env });
      const out: AuditEvent[] = [];
      try {
        for (let i = 0; i < n; i++)
          out.push(
            await state.appendAudit({
              at: new Date().toISOString(),
              actor: 'it',
              action: AuditAction.TABLE_REGISTERED,
              object: `rest:ns.t${i}`,
              planHash: null,
              beforeDigest: null,
              afterDigest: null,
              details: { i },
            }),
          );
      } finally {
        await state.close();
      }
      return out;
    },
    async sql(text, params = []) {
      if (!connected) {
        await client.connect();
        connected = true;
      }
      return (await client.query(text, params)).rows;
    },
    async verify(extraEnv = {}) {
      const r = await run(MIGRATE, ['audit', 'verify', '-c', configFile, '--json'], 120_000, extraEnv);
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(r.stdout) as Record<string, unknown>;
      } catch {
        json = { unparsable: r.stdout, stderr: r.stderr };
      }
      return { ...r, json };
    },
    async dispose() {
      if (connected) await client.end().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`).catch(() => undefined);
      await a.end();
    },
  };
  return f;
}

/**
 * A fresh state database (no anchor) and the real state store on it, for a test file: opened in
 * `beforeAll`, closed and dropped in `afterAll`. Read `.f` and `.state` inside tests.
 */
export function stateStoreFixture(): { readonly f: Fixture; readonly state: StateStore } {
  const box = {} as { f: Fixture; state: StateStore };
  beforeAll(async () => {
    box.f = await fixture('no-anchor');
    box.state = await openState(box.f.config, { ...process.env, ...env });
  }, 120_000);
  afterAll(async () => {
    await box.state?.close();
    await box.f?.dispose();
  });
  return box;
}
