// Crash safety of apply: the worker SIGKILLs itself (failpoints, activities/index.ts) right after
// writing metadata, right after registering, and in the middle of validating — once per table — and
// is restarted by this test each time. The plan must still complete with every table registered
// exactly once (one catalog entry, one `table.registered` audit event) and no orphan metadata (each
// table's metadata directory holds exactly the files its record names). One table's data file is
// truncated before apply: it ends failed with FORMAT_CORRUPT_FOOTER, compensated (no catalog
// entry, no metadata files), and the rest of its wave completes.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { RestCatalog } from '../../adapters/catalog/rest';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import type { SeedManifest } from '../../dev/seed/manifest';
import { TSX, run } from '../helpers/cli';
import type { SupervisedWorker } from '../helpers/e2e-suite';
import { dropNamespace, migrateWith, suiteConfig, superviseWorker } from '../helpers/e2e-suite';
import { seedWarehouse } from '../helpers/live-tables';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himc').toLowerCase();
const nsPrefix = `${prefix}_`;
const db = `${prefix}_sales`;
let dir = '';
let cfgFile = '';
let failpointDir = '';
let manifest: SeedManifest;
let worker: SupervisedWorker | undefined;
let migrate: ReturnType<typeof migrateWith>;

const tsx = TSX;

/** The worker, restarted whenever it dies; it SIGKILLs itself after write, after register and during validation, once per table. */
function startWorker(): void {
  worker = superviseWorker(cfgFile, { HIM_FAILPOINTS: 'after-write,after-register,during-validate', HIM_FAILPOINT_DIR: failpointDir });
}

describe('apply survives worker crashes; a corrupt data file fails only its table', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-crash-'));
    failpointDir = path.join(dir, 'failpoints');
    await run('mkdir', ['-p', failpointDir]);
    manifest = await seedWarehouse(prefix, dir);
    cfgFile = suiteConfig({
      dir,
      queue: `him-crash-${prefix}`,
      nsPrefix,
      databases: [db],
      planYaml: '  waves:\n    maxTablesPerWave: 10\n',
    });
    migrate = migrateWith(cfgFile);
  }, 600_000);

  afterAll(async () => {
    await worker?.stop();
    await dropNamespace(`${nsPrefix}${db}`);
    await run(tsx, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('SIGKILL after write, after register and during validation: every table registered once, no orphan; the corrupt table fails alone', async () => {
    const planFile = path.join(dir, 'plan.json');
    expect((await migrate(['plan', '--out', planFile])).code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { number: number; tables: { id: string }[] }[] };

    // Corrupt one data file of special_parts after planning (HMS unchanged, so the plan still holds).
    const victim = manifest.tables.find((t) => t.db === db && t.name === 'special_parts');
    const file = victim?.files[0];
    if (file === undefined) throw new Error('no special_parts file in the seed');
    const s3 = new S3Client({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
    await s3.send(
      new PutObjectCommand({ Bucket: manifest.bucket, Key: file.key, Body: Buffer.from('PAR1 this is not a parquet footer PAR1') }),
    );
    s3.destroy();

    startWorker();
    const a = await migrate(
      ['apply', planFile, '--auto-approve', '--wait', '--max-failed', '1', '--step-timeout', '8', '--heartbeat-timeout', '6', '--json'],
      600_000,
    );
    const result = JSON.parse(a.stdout || '{}') as {
      ok: boolean;
      result?: { state: string; waves: { wave: number; migrated: number; skipped: number; failed: { tableId: string; code: string }[] }[] };
    };
    if (result.result?.state !== 'succeeded') throw new Error(`apply: ${a.stdout}\n${a.stderr}\n${worker?.log().slice(-5000) ?? ''}`);

    const tables = manifest.tables.filter((t) => t.db === db && t.kind !== 'view');
    const failed = result.result.waves.flatMap((w) => w.failed);
    expect(failed).toEqual([{ tableId: `${db}.special_parts`, code: 'FORMAT_CORRUPT_FOOTER' }]);
    // Three failpoints per converted table fired, each a real SIGKILL of the worker.
    const converted = tables.filter((t) => t.name !== 'special_parts');
    const fired = readdirSync(failpointDir);
    expect(fired.length).toBe(converted.length * 3);
    for (const p of ['after-write', 'after-register', 'during-validate'])
      expect(fired.filter((f) => f.startsWith(`${p}--`))).toHaveLength(converted.length);
    expect(worker?.kills()).toBeGreaterThanOrEqual(fired.length);

    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const entries = (await catalog.listTables([`${nsPrefix}${db}`])).map((t) => t.name).sort();
    expect(entries).toEqual(converted.map((t) => t.name).sort());

    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    const store = new RoutingObjectStore({
      metadataPrefixes: [],
      s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
    });
    try {
      const registered = new Map<string, number>();
      for await (const e of state.readAudit())
        if (e.planHash === plan.hash && e.action === 'table.registered') registered.set(e.object, (registered.get(e.object) ?? 0) + 1);
      expect([...registered.values()].every((n) => n === 1)).toBe(true);
      expect(registered.size).toBe(converted.length);
      for (const t of [...converted, victim]) {
        if (t === undefined) continue;
        const rec = await state.getTable(plan.hash, `${t.db}.${t.name}`);
        const metaDir = `${(t.location ?? '').replace(/\/+$/, '')}/metadata/`;
        const listed: string[] = [];
        for await (const e of store.list(metaDir, { recursive: true })) if (e.kind === 'file') listed.push(e.path);
        if (t.name === 'special_parts') {
          expect(rec.status).toBe('failed');
          expect(listed).toEqual([]); // compensated: nothing of ours left
          expect(await catalog.tableExists(tableIdent([`${nsPrefix}${db}`], t.name))).toBe(false);
        } else {
          expect(rec.status).toBe('migrated');
          expect(listed.sort()).toEqual((rec.writtenFiles ?? []).map((f) => f.path).sort()); // no orphan
        }
      }
    } finally {
      await state.close();
      store.destroy();
    }
  }, 900_000);
});
