// The rewrite path through Spark on the real stack (REST catalog): database
// lb_rewrite (dev/seed/lb-rewrite.ts: a '|'-delimited text table with a header line, a bucketed ^A
// table, an OpenCSVSerde table with its files in sub-directories, a JSON table). Without --rewrite
// they stay "not planned"; with it they are planned on the rewrite path, applied by a worker that is
// SIGKILLed while each table's Spark job writes (failpoint rewrite-during-job) and restarted; every
// table is then committed exactly once, read back by PyIceberg and Spark with the Hive content
// checksum, and its location holds only what the table references. Rollback drops the tables and
// deletes their files; the source files stay byte-identical.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { RestCatalog } from '../../adapters/catalog/rest';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { tableIdent } from '../../core/catalog/catalog';
import type { RewriteSeedManifest } from '../../dev/seed/lb-rewrite';
import { TSX, run } from '../helpers/cli';
import type { SupervisedWorker } from '../helpers/e2e-suite';
import { dropNamespace, migrateWith, suiteConfig, superviseWorker } from '../helpers/e2e-suite';
import { stackRewriteYaml } from '../helpers/rewrite';
import { testStack, uniqueName } from '../helpers/stack-env';
import { readWith } from '../helpers/verifier';

const env = testStack();
const prefix = uniqueName('rw').toLowerCase();
const ns = `${prefix}_lb_rewrite`;
const warehouse = `s3://warehouse/${prefix}-rewrite`;
let dir = '';
let cfgFile = '';
let failpointDir = '';
let seed: RewriteSeedManifest;
let worker: SupervisedWorker | undefined;
const s3 = new S3Client({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });

let migrate: ReturnType<typeof migrateWith>;

/** The worker, restarted whenever it dies; it SIGKILLs itself once per table while the table's Spark job writes. */
function startWorker(): void {
  worker = superviseWorker(cfgFile, {
    HIM_FAILPOINTS: 'rewrite-during-job',
    HIM_FAILPOINT_DIR: failpointDir,
    HIM_REWRITE_WORK_DIR: path.join(dir, 'jobs'),
  });
}

async function keysUnder(bucket: string, prefixKey: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const r = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefixKey, ContinuationToken: token }));
    for (const o of r.Contents ?? []) if (o.Key !== undefined) keys.push(o.Key);
    token = r.NextContinuationToken;
  } while (token !== undefined);
  return keys.sort();
}

async function sha256Of(bucket: string, key: string): Promise<string> {
  const r = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return createHash('sha256')
    .update(await (r.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray())
    .digest('hex');
}

describe('rewrite path: text/CSV/JSON, bucketed and sub-directory tables through Spark', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-rewrite-'));
    failpointDir = path.join(dir, 'failpoints');
    await run('mkdir', ['-p', failpointDir]);
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--left-behind', 'rewrite']);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    seed = JSON.parse(s.stdout) as RewriteSeedManifest;
    cfgFile = suiteConfig({
      dir,
      queue: `him-rewrite-${prefix}`,
      nsPrefix: `${prefix}_`,
      databases: ['lb_rewrite'],
      extraYaml: stackRewriteYaml(env, warehouse),
    });
    migrate = migrateWith(cfgFile);
  }, 600_000);

  afterAll(async () => {
    await worker?.stop();
    await dropNamespace(ns);
    s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('without --rewrite the tables are not planned (CLASS_REWRITE_REQUIRED)', async () => {
    const planFile = path.join(dir, 'plan-plain.json');
    const p = await migrate(['plan', '--out', planFile]);
    expect(p.code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { notPlanned: { id: string; reason: string }[]; waves: unknown[] };
    expect(plan.waves).toEqual([]);
    expect(plan.notPlanned.map((n) => `${n.id}:${n.reason}`).sort()).toEqual(
      seed.tables.map((t) => `${t.id}:CLASS_REWRITE_REQUIRED`).sort(),
    );
  }, 600_000);

  it('plan --rewrite → apply with the worker killed mid-job → one table each, Hive checksums in PyIceberg and Spark → rollback', async () => {
    const planFile = path.join(dir, 'plan.json');
    const p = await migrate(['plan', '--out', planFile, '--rewrite', '--json']);
    expect(p.code).toBe(0);
    const out = JSON.parse(p.stdout) as { hash: string; rewrite: { id: string; bytes: number }[] };
    expect(out.rewrite.map((r) => r.id).sort()).toEqual(seed.tables.map((t) => t.id).sort());
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as {
      waves: { number: number; tables: { id: string; class: string; bytes: number }[]; estimates: { expectedSeconds: number } }[];
      throughput: { rewriteBytesPerSecond?: number };
    };
    const entries = plan.waves.flatMap((w) => w.tables);
    expect(entries.every((t) => t.class === 'rewrite-required' && t.bytes > 0)).toBe(true);
    expect(plan.throughput.rewriteBytesPerSecond).toBeGreaterThan(0);
    const sourceBefore = new Map<string, string>();
    for (const t of seed.tables) for (const f of t.files) sourceBefore.set(f.key, f.sha256);

    startWorker();
    // One table at a time: each table's first job then starts on a live worker and is killed as it writes. With
    // several at once the kill of one orphans the others' jobs, which may finish and commit before the retry, so
    // whether they see a kill of their own depends on the machine's speed (a CI run saw 1 of 4).
    const a = await migrate(
      ['apply', planFile, '--auto-approve', '--wait', '--concurrency', '1', '--heartbeat-timeout', '30', '--json'],
      1_500_000,
    );
    const result = JSON.parse(a.stdout || '{}') as { result?: { state: string; waves: { migrated: number; failed: unknown[] }[] } };
    if (result.result?.state !== 'succeeded' || result.result.waves.some((w) => w.failed.length > 0))
      throw new Error(`apply: ${a.stdout}\n${a.stderr}\n${worker?.log().slice(-6000) ?? ''}`);
    // One real SIGKILL per table while its job wrote.
    expect(readdirSync(failpointDir).sort()).toEqual(seed.tables.map((t) => `rewrite-during-job--${t.id}`).sort());
    expect(worker?.kills()).toBeGreaterThanOrEqual(seed.tables.length);

    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    expect((await catalog.listTables([ns])).map((t) => t.name).sort()).toEqual(seed.tables.map((t) => t.name).sort());
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      const rewritten = new Map<string, number>();
      for await (const e of state.readAudit())
        if (e.planHash === out.hash && e.action === 'table.rewritten') rewritten.set(e.object, (rewritten.get(e.object) ?? 0) + 1);
      expect([...rewritten.entries()].sort()).toEqual(seed.tables.map((t) => [`hms:${t.id}`, 1]).sort());
      for (const t of seed.tables) {
        const rec = await state.getTable(out.hash, t.id);
        expect(rec.status).toBe('migrated');
        const facts = (rec.validation as { rewrite: { source: { rows: number; checksum: string }; location: string } }).rewrite;
        expect(facts.source).toEqual({ rows: t.rows, checksum: t.checksum });
        // The table's location holds its data files (exactly the recorded ones: a killed run's are gone) and its metadata.
        const loc = facts.location.replace(/^s3:\/\/warehouse\//, '');
        const data = (await keysUnder('warehouse', `${loc}/data/`)).map((k) => `s3://warehouse/${k}`);
        expect(data).toEqual((rec.writtenFiles ?? []).map((f) => f.path).sort());
        expect(data.length).toBeGreaterThan(0);
      }
    } finally {
      await state.close();
    }

    const reads = await readWith(
      'pyiceberg,spark',
      seed.tables.map((t) => `${ns}.${t.name}`),
    );
    for (const t of seed.tables)
      for (const engine of ['pyiceberg', 'spark']) {
        const r = reads.find((x) => x.table === `${ns}.${t.name}` && x.engine === engine);
        expect({ table: t.name, engine, rows: r?.rows, checksum: r?.checksum, error: r?.error }).toEqual({
          table: t.name,
          engine,
          rows: t.rows,
          checksum: t.checksum,
          error: undefined,
        });
      }

    const rolledBack: string[] = [];
    for (const w of plan.waves) {
      const rb = await migrate(['rollback', out.hash.slice(0, 12), '--wave', String(w.number), '--json'], 900_000);
      if (rb.code !== 0) throw new Error(`rollback: ${rb.stdout}\n${rb.stderr}\n${worker?.log().slice(-4000) ?? ''}`);
      rolledBack.push(...(JSON.parse(rb.stdout) as { rolledBack: string[] }).rolledBack);
    }
    expect(rolledBack.sort()).toEqual(seed.tables.map((t) => t.id).sort());
    expect(await catalog.listTables([ns])).toEqual([]);
    expect(await keysUnder('warehouse', `${prefix}-rewrite/`)).toEqual([]);
    for (const t of seed.tables) expect(await catalog.tableExists(tableIdent([ns], t.name))).toBe(false);
    // The source: the same keys, byte-identical.
    // (HMS adds directory markers, keys ending in /, for the database it created: not data.)
    const after = (await keysUnder(seed.bucket, `${seed.rootKey}/`)).filter((k) => !k.endsWith('/'));
    expect(after).toEqual([...sourceBefore.keys()].sort());
    for (const [key, sha] of sourceBefore) expect(await sha256Of(seed.bucket, key)).toBe(sha);
  }, 2_400_000);
});
