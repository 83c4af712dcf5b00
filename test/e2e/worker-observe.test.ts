// Logs and metrics of a real `migrate worker` (bin/migrate, the stack's Temporal, HMS, REST catalog,
// S3 and state database): a plan of four seeded Parquet tables in two waves, one of them
// (all_types) changed in HMS after the plan so that apply refuses it (SOURCE_CHANGED), applied while
// /metrics is scraped. Every line of the worker's log file
// is one JSON object; each table's status changes appear exactly once each, chained from
// `pending` to the status the state store holds (migrated: the four forward steps; failed: its
// code); the scraped counts equal the tables migrated and failed, the step latency histograms
// have buckets with counts, footers and port requests are counted, and the Temporal SDK's own
// metrics answer on metrics.sdkPort.
import { readFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import { PostgresStateStore } from '../../adapters/state/postgres';
import type { TableSummary } from '../../core/state/store';
import type { SeedManifest } from '../../dev/seed/manifest';
import { dropNamespace, dropSeed, migrateWith, suiteConfig } from '../helpers/e2e-suite';
import type { WorkerProc } from '../helpers/hostile';
import { startWorker } from '../helpers/hostile';
import { seedWarehouse } from '../helpers/live-tables';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himobs').toLowerCase();
const nsPrefix = `${prefix}_`;
const sales = `${prefix}_sales`;
const PLANNED = ['all_types', 'customers', 'orders', 'special_parts'].map((t) => `${sales}.${t}`);
let dir = '';
let logFile = '';
let sdkPort = 0;
let manifest: SeedManifest;
let worker: WorkerProc | undefined;
let migrate: ReturnType<typeof migrateWith>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Line = Record<string, unknown> & { ts: string; level: string; msg: string };

/** Every line of the worker's log file, each parsed as JSON (a line that is not fails the test). */
function logLines(): Line[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`not one JSON object: ${l}`);
      }
    });
}

/** A port free now on the loopback (for the SDK's endpoint, which cannot report a port 0 choice). */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** name{labels} → value, for every sample line. */
function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of text.split('\n')) {
    if (l === '' || l.startsWith('#')) continue;
    const i = l.lastIndexOf(' ');
    out.set(l.slice(0, i), Number(l.slice(i + 1).replace('+Inf', 'Infinity')));
  }
  return out;
}

/** The sum of the samples of `name` whose labels include every `label="value"` in `having`. */
function sum(m: Map<string, number>, name: string, having: string[] = []): number {
  let s = 0;
  for (const [k, v] of m) if ((k === name || k.startsWith(`${name}{`)) && having.every((h) => k.includes(h))) s += v;
  return s;
}

/** all_types's column `id` widened int → bigint in HMS (a change HMS allows; apply's re-check refuses it: SOURCE_CHANGED). */
async function changeAllTypes(): Promise<void> {
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const [t] = await hms.getTables(sales, ['all_types']);
    if (t === undefined) throw new Error('all_types not found');
    await writer.alterTable(sales, 'all_types', {
      ...t.table,
      sd: { ...t.table.sd, columns: t.table.sd.columns.map((c) => (c.name === 'id' ? { ...c, type: 'bigint' } : c)) },
    });
  } finally {
    await hms.close();
    await writer.close();
  }
}

async function waitFor<T>(what: string, f: () => T | undefined, ms = 120_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; worker:\n${worker?.log().slice(-3000)}`);
    await sleep(250);
  }
}

describe('migrate worker: one JSON log line per table transition, Prometheus metrics', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-observe-'));
    manifest = await seedWarehouse(prefix, dir);
    logFile = path.join(dir, 'worker.log');
    sdkPort = await freePort();
    const include = `^${sales}\\.(all_types|customers|orders|special_parts)$`;
    const cfgFile = suiteConfig({
      dir,
      queue: `him-e2e-${prefix}`,
      nsPrefix,
      databases: [sales],
      planYaml: `  waves:\n    maxTablesPerWave: 2\n    scope:\n      include: ['${include}']\n`,
      extraYaml: `logging:\n  file: ${logFile}\nmetrics:\n  port: 0\n  sdkPort: ${sdkPort}\n`,
    });
    migrate = migrateWith(cfgFile);
    worker = startWorker(cfgFile);
  }, 600_000);

  afterAll(async () => {
    await worker?.stop();
    await dropNamespace(`${nsPrefix}${sales}`);
    await dropSeed(prefix);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('apply: the scraped counts are the tables migrated and failed, each transition is logged once, in order', async () => {
    const started = await waitFor('the start-up line', () => logLines().find((l) => /polling/.test(l.msg)));
    const url = started.metrics as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);

    const planFile = path.join(dir, 'plan.json');
    const p = await migrate(['plan', '--out', planFile]);
    expect(p.code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { number: number; tables: { id: string }[] }[] };
    const waveOf = new Map(plan.waves.flatMap((w) => w.tables.map((t) => [t.id, w.number] as const)));
    expect([...waveOf.keys()].sort()).toEqual([...PLANNED].sort());
    expect(plan.waves.length).toBe(2);
    await changeAllTypes();

    // Scraped every 300 ms while the apply runs, then once after.
    let applying = true;
    const scrapes: { during: boolean; status: number; m: Map<string, number> }[] = [];
    const scraper = (async () => {
      while (applying) {
        const res = await fetch(url);
        scrapes.push({ during: applying, status: res.status, m: parseExposition(await res.text()) });
        await sleep(300);
      }
    })();
    // all_types changed after the plan on purpose: --accept-stale lets the run refuse it table by table.
    const a = await migrate(['apply', planFile, '--auto-approve', '--wait', '--json', '--max-failed', '1', '--accept-stale'], 900_000);
    applying = false;
    await scraper;
    expect({ code: a.code, err: a.code === 0 ? '' : a.stderr.slice(-2000) }).toEqual({ code: 0, err: '' });
    const after = parseExposition(await (await fetch(url)).text());

    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    let records: TableSummary[];
    try {
      records = await state.listTableSummaries(plan.hash);
    } finally {
      await state.close();
    }
    const migrated = records.filter((r) => r.status === 'migrated');
    const failed = records.filter((r) => r.status === 'failed');
    expect(migrated.map((r) => r.tableId).sort()).toEqual([`${sales}.customers`, `${sales}.orders`, `${sales}.special_parts`]);
    expect(failed.map((r) => [r.tableId, r.errorCode])).toEqual([[`${sales}.all_types`, 'SOURCE_CHANGED']]);

    // Scrapes during the apply answered, and the migrated count never went down.
    expect(scrapes.filter((s) => s.during).length).toBeGreaterThan(0);
    expect(scrapes.every((s) => s.status === 200)).toBe(true);
    const counts = scrapes.map((s) => sum(s.m, 'him_tables_total', ['status="migrated"']));
    expect(counts).toEqual([...counts].sort((x, y) => x - y));

    // The tables by status and outcome: exactly the migrated and failed tables.
    expect(after.get('him_tables_total{status="migrated",outcome="ok"}')).toBe(migrated.length);
    expect(after.get('him_tables_total{status="failed",outcome="failed"}')).toBe(failed.length);
    // Step latency: buckets present, counts > 0, +Inf equal to _count, for each forward step.
    for (const step of ['saveOriginalAndWrite', 'registerTable', 'validateTable']) {
      const count = sum(after, 'him_step_duration_seconds_count', [`step="${step}"`]);
      expect({ step, countAboveZero: count > 0 }).toEqual({ step, countAboveZero: true });
      expect(sum(after, 'him_step_duration_seconds_bucket', [`step="${step}"`, 'le="+Inf"'])).toBe(count);
      expect([...after.keys()].filter((k) => k.startsWith(`him_step_duration_seconds_bucket{step="${step}"`)).length).toBeGreaterThan(10);
    }
    expect(sum(after, 'him_step_duration_seconds_count', ['step="registerTable"', 'outcome="ok"'])).toBeGreaterThanOrEqual(migrated.length);
    // Footers: at least one per data file of the migrated tables.
    const files = manifest.tables
      .filter((t) => migrated.some((r) => r.tableId === `${t.db}.${t.name}`))
      .reduce((n, t) => n + t.files.length, 0);
    expect(files).toBeGreaterThan(0);
    expect(after.get('him_footers_read_total')).toBeGreaterThanOrEqual(files);
    expect(sum(after, 'him_requests_total', ['system="hms"', 'op="getTables"'])).toBeGreaterThanOrEqual(PLANNED.length);
    expect(sum(after, 'him_requests_total', ['system="catalog"', 'op="registerTable"'])).toBeGreaterThanOrEqual(migrated.length);
    expect(sum(after, 'him_requests_total', ['system="storage"'])).toBeGreaterThan(0);
    expect(sum(after, 'him_requests_total', ['system="state"', 'op="recordStep"'])).toBeGreaterThan(0);
    expect(after.get('him_steps_in_flight')).toBe(0);

    // The log: every line JSON (logLines throws otherwise), the SDK's lines among them.
    const lines = logLines();
    expect(lines.every((l) => typeof l.ts === 'string' && !Number.isNaN(Date.parse(l.ts)) && typeof l.level === 'string')).toBe(true);
    // Nothing of the worker's (the Rust core's lines included) bypassed the log file onto stdout/stderr.
    expect((worker as WorkerProc).log().trim()).toBe('');
    // The SDK's own line of the refused activity, with the code as a field.
    const sdkFailure = lines.find((l) => l.src === 'temporal' && l.msg === 'Activity failed' && l.activityType === 'saveOriginalAndWrite');
    expect(sdkFailure).toMatchObject({ level: 'warn', error: { code: 'SOURCE_CHANGED' } });
    const transitions = lines.filter((l) => l.msg === 'table transition');
    for (const r of records) {
      const mine = transitions.filter((l) => l.table === r.tableId);
      // One chain from pending to the recorded status, each change once.
      const chain = mine.map((l) => `${String(l.from)}>${String(l.to)}`);
      expect(new Set(chain).size).toBe(chain.length);
      expect(mine[0]?.from).toBe('pending');
      mine.slice(1).forEach((l, i) => expect(l.from).toBe(mine[i]?.to));
      expect(mine.at(-1)?.to).toBe(r.status);
      for (const l of mine) {
        expect(l).toMatchObject({ plan: plan.hash, wave: waveOf.get(r.tableId), outcome: l.to === 'failed' ? 'failed' : 'ok' });
        expect(typeof l.durationMs === 'number' && l.durationMs >= 0).toBe(true);
      }
      if (r.status === 'migrated')
        expect(mine.map((l) => [l.step, l.from, l.to])).toEqual([
          ['saveOriginalAndWrite', 'pending', 'original-saved'],
          ['saveOriginalAndWrite', 'original-saved', 'written'],
          ['registerTable', 'written', 'registered'],
          ['validateTable', 'registered', 'migrated'],
        ]);
      else expect(mine.at(-1)).toMatchObject({ level: 'error', code: r.errorCode });
    }
    expect(transitions.length).toBe(transitions.filter((l) => PLANNED.includes(l.table as string)).length);
    expect(transitions.filter((l) => l.to === 'migrated').length).toBe(after.get('him_tables_total{status="migrated",outcome="ok"}'));

    // The Temporal SDK's own metrics on the second port.
    const sdk = await (await fetch(`http://127.0.0.1:${sdkPort}/metrics`)).text();
    expect(sdk).toMatch(/^temporal_[a-z_]+/m);
  }, 900_000);

  it('a bad --metrics-port or --log-level refuses to start: CONFIG_INVALID naming the flag', async () => {
    const port = await migrate(['worker', '--metrics-port', '99999', '--json'], 60_000);
    expect(port.code).not.toBe(0);
    expect(JSON.parse(port.stdout || port.stderr)).toMatchObject({ ok: false, error: { code: 'CONFIG_INVALID' } });
    expect(port.stdout + port.stderr).toContain('--metrics-port');
    const level = await migrate(['worker', '--log-level', 'loud'], 60_000);
    expect(level.code).not.toBe(0);
    expect(level.stderr).toContain('CONFIG_INVALID');
    expect(level.stderr).toContain('logging.level');
  });
});
