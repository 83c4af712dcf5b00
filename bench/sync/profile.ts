// Where one table's sync spends its time (the bench's setup reused): a new partition p=<--part> of
// M files on the first K tables, then the same per-table code the syncTable activity runs
// (engine/sync-record.ts syncMigratedTable) in this process at concurrency C, every port wrapped
// with a timer: HMS reads, catalog loads and commits, storage lists / reads / writes, state store
// writes. Prints per category the calls and the summed time per table (the categories overlap in
// wall time when a table reads in parallel; the total per table is the activity's own time).
//   npx tsx bench/sync/profile.ts --part 901 [--tables 64] [--concurrency 8] [--cpu-profile out.cpuprofile]
// (--cpu-profile: a V8 CPU profile of the sync phase only, for Chrome DevTools or speedscope)
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../cli/config';
import { withMigratedTables } from '../../app/runtime/plan-tables';
import { toolVersion } from '../../app/runtime/runtime';
import { addScalePartition } from '../../dev/seed/scale';
import { mapOrdered } from '../../core/ordered-pool';
import { syncMigratedTable } from '../../engine/sync-record';
import { testStack } from '../../test/helpers/stack-env';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const K = Number(arg('tables', '64'));
const C = Number(arg('concurrency', '8'));
const PART = Number(arg('part', '901'));
const CPU_PROFILE = arg('cpu-profile', '');
const FILES = 20;
const PREFIX = 'benchsync';
const TOTAL = 1000;

const timers = new Map<string, { calls: number; ms: number }>();
function timed<T extends object>(what: string, o: T): T {
  return new Proxy(o, {
    get(target, prop, recv) {
      const v = Reflect.get(target, prop, recv) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        const key = `${what}.${String(prop)}`;
        const t0 = performance.now();
        const done = (): void => {
          const e = timers.get(key) ?? { calls: 0, ms: 0 };
          timers.set(key, { calls: e.calls + 1, ms: e.ms + performance.now() - t0 });
        };
        const r = (v as (...a: unknown[]) => unknown).apply(target, args);
        if (r !== null && typeof r === 'object' && Symbol.asyncIterator in r) {
          const it = r as AsyncIterable<unknown>;
          return (async function* () {
            try {
              yield* it;
            } finally {
              done();
            }
          })();
        }
        if (r instanceof Promise) return r.finally(done);
        done();
        return r;
      };
    },
  });
}

/** A V8 CPU profile of this process (the main thread) from now until stop(). */
async function startCpuProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const inspector = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return {
    async stop(file: string) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const dir = path.join(env.HIM_STATE_DIR as string, `bench-sync-${PREFIX}-${TOTAL}x1x${FILES}`);
  const planHash = (await import('node:fs')).readFileSync(path.join(dir, 'applied'), 'utf8').trim();
  const s3 = {
    endpoint: env.HIM_S3_ENDPOINT as string,
    region: env.AWS_REGION as string,
    accessKeyId: env.AWS_ACCESS_KEY_ID as string,
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string,
  };
  const common = { prefix: PREFIX, bucket: 'hive', s3, python: env.HIM_VERIFIER_PYTHON as string, tables: TOTAL, partitions: 1 };
  const added = await addScalePartition(
    { ...common, hms: env.HIM_HMS_PG_URI as string, files: FILES, concurrency: 8, batch: 1, force: false, log: () => undefined },
    PART,
    1,
    K,
  );
  process.stderr.write(`[profile] p=${PART} added to ${added} table(s)\n`);
  const { config } = loadConfig({ file: path.join(dir, 'migrate.yaml'), env: process.env, sets: [], cwd: process.cwd() });
  const names = new Set(Array.from({ length: K }, (_, i) => `${PREFIX}_scale_${TOTAL}x1x${FILES}.t${String(i).padStart(3, '0')}`));
  await withMigratedTables(
    config,
    planHash.slice(0, 12),
    (r) => names.has(r.tableId),
    async (c) => {
      const deps = {
        state: timed('state', c.state),
        hms: timed('hms', c.hms),
        catalog: timed('catalog', c.catalog),
        storeFor: (prefixes: readonly string[]) => timed('store', c.stores.storeFor(prefixes)),
        namespacePrefix: config.catalog?.namespacePrefix ?? '',
        toolVersion: toolVersion(),
        actor: { actor: 'profile' },
      };
      const profiler = CPU_PROFILE === '' ? null : await startCpuProfile();
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const per: number[] = [];
      let committed = 0;
      for await (const o of mapOrdered(c.records, C, async (rec) => {
        const t = performance.now();
        const out = await syncMigratedTable(deps, c.plan, rec);
        per.push(performance.now() - t);
        return out;
      }))
        if (o.ok && o.result.commit !== null) committed++;
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      if (profiler !== null) await profiler.stop(CPU_PROFILE);
      const n = c.records.length;
      process.stdout.write(
        `profile: ${n} tables (${committed} committed) at concurrency ${C}: wall ${(wall / 1000).toFixed(1)} s, ${((wall / n) * C).toFixed(0)} ms per table-slot; per table mean ${(per.reduce((a, b) => a + b, 0) / n).toFixed(0)} ms; this process's CPU (all threads) ${((cpu.user + cpu.system) / 1000 / n).toFixed(1)} ms per table\n`,
      );
      for (const [k, v] of [...timers].sort((a, b) => b[1].ms - a[1].ms))
        process.stdout.write(
          `  ${k.padEnd(28)} ${String(v.calls).padStart(6)} calls  ${(v.calls / n).toFixed(1).padStart(6)}/table  ${(v.ms / n).toFixed(0).padStart(6)} ms/table\n`,
        );
    },
  );
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
