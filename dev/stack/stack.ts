// Stack operations used by the `npm run stack` CLI, the test global setup and the demo.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { migrateConfigYaml } from './env';
import type { Health, StackContext } from './types';
import { loadComponent, startOrder } from './manifest';
import { runningPid, readPid } from './util';
import { laneWidth, runLanes, type LaneJob } from './lanes';

const secs = (t0: number): string => ((Date.now() - t0) / 1000).toFixed(1);
/** Its install is a Go build (a module's `go install`, or goBuild: the repo's own source). */
const isGo = (ctx: StackContext, n: string): boolean => {
  const c = ctx.manifest.components[n];
  return c?.goBuild === true || typeof c?.settings.goModule === 'string';
};

/**
 * Install one component. Its own progress messages go to <cache>/install.log; the terminal gets one
 * line when it starts real work and one when it is done (nothing when it was already installed).
 */
async function installOne(ctx: StackContext, n: string): Promise<void> {
  const t0 = Date.now();
  const log = path.join(ctx.cacheDir, 'install.log');
  let announced = false;
  const laneCtx: StackContext = {
    ...ctx,
    log(msg) {
      if (!announced) ctx.log(`install ${n}: started`);
      announced = true;
      void fs
        .mkdir(ctx.cacheDir, { recursive: true })
        .then(() => fs.appendFile(log, `# ${new Date().toISOString()} ${n}: ${msg}\n`))
        .catch(() => undefined);
    },
  };
  try {
    await loadComponent(n).install(laneCtx);
  } catch (e) {
    ctx.log(`install ${n}: FAILED after ${secs(t0)} s (commands and output in ${log})`);
    throw e;
  }
  if (announced) ctx.log(`install ${n}: done in ${secs(t0)} s`);
}

/**
 * Install jobs, in the order lanes pick them: the Go builds first (group 'go': one at a time, each
 * minutes of CPU; the chain of them is the cold install's longest path), so a lane freed by one Go
 * build takes the next at once; the downloads and unpacks (apt, Maven, pip) fill the other lanes
 * beside them. A Go build waiting for the group holds no lane. Tools that cannot share (mvn's local
 * repo, apt's lock) also serialise in installers.ts.
 */
export function installJobs(ctx: StackContext, order: readonly string[]): LaneJob[] {
  const sorted = [...order.filter((n) => isGo(ctx, n)), ...order.filter((n) => !isGo(ctx, n))];
  return sorted.map((n) => ({ name: `install:${n}`, after: [], group: isGo(ctx, n) ? 'go' : undefined, run: () => installOne(ctx, n) }));
}

/** Installs into the cache, HIM_STACK_JOBS (default 3) at a time; no names = every component. */
export async function installAll(ctx: StackContext, names?: readonly string[]): Promise<void> {
  const order = startOrder(ctx.manifest, names);
  const t0 = Date.now();
  await runLanes(installJobs(ctx, order), laneWidth());
  ctx.log(`install: ${order.length} component(s) ready in ${secs(t0)} s`);
}

async function startOne(ctx: StackContext, n: string): Promise<void> {
  const c = loadComponent(n);
  if (runningPid(ctx, n) !== undefined) {
    const h = await c.health(ctx);
    if (h.ok) {
      ctx.log(`${n}: already running (${h.detail})`);
      return;
    }
    ctx.log(`${n}: running but unhealthy (${h.detail}); restarting`);
    await c.stop(ctx);
  }
  const t0 = Date.now();
  await c.start(ctx);
  ctx.log(`${n}: up in ${secs(t0)} s`);
}

/**
 * Idempotent: installs what is missing, starts what is not running, and waits for health. Installs
 * and starts share the lanes: a component starts as soon as it is installed and its dependencies
 * are up (postgres and Temporal run while versitygw still builds).
 */
export async function up(ctx: StackContext, names?: readonly string[]): Promise<void> {
  await fs.mkdir(ctx.stateDir, { recursive: true });
  const order = startOrder(ctx.manifest, names);
  const t0 = Date.now();
  // The slow starts (slowStart in the manifest) first among those ready, so the longest start is
  // not the last one picked up: stack up's tail (longest processing time first).
  const slowFirst = [
    ...order.filter((n) => ctx.manifest.components[n]?.slowStart),
    ...order.filter((n) => !ctx.manifest.components[n]?.slowStart),
  ];
  const starts: LaneJob[] = slowFirst.map((n) => ({
    name: `start:${n}`,
    after: [`install:${n}`, ...(ctx.manifest.components[n]?.dependsOn ?? []).map((d) => `start:${d}`)],
    run: () => startOne(ctx, n),
  }));
  // Starts first in the list: once ready, a start goes before any install still waiting.
  await runLanes([...starts, ...installJobs(ctx, order)], laneWidth());
  ctx.log(`up: ${order.join(', ')} in ${secs(t0)} s`);
  // A ready-made config pointing `migrate` at this stack (migrate doctor -c .stack/migrate.yaml),
  // written aside and renamed: suites read it while another `up` (a second jest run's global set-up)
  // may be writing it.
  const file = path.join(ctx.stateDir, 'migrate.yaml');
  await fs.writeFile(`${file}.${process.pid}.tmp`, migrateConfigYaml(ctx));
  await fs.rename(`${file}.${process.pid}.tmp`, file);
}

/**
 * Stops only the components whose pid file we wrote, each once every component that depends on it
 * has stopped, and the others side by side (one after the other, the JVMs' shutdowns took ~35 s).
 */
export async function down(ctx: StackContext, names?: readonly string[]): Promise<void> {
  const order = startOrder(ctx.manifest, names).reverse();
  // With explicit names we stop only those (dependents first is the caller's business).
  const targets = (names && names.length > 0 ? order.filter((n) => names.includes(n)) : order).filter((n) => readPid(ctx, n) !== undefined);
  const dependents = (n: string): string[] => targets.filter((m) => ctx.manifest.components[m]?.dependsOn.includes(n));
  const stops: LaneJob[] = targets.map((n) => ({
    name: `stop:${n}`,
    after: dependents(n).map((m) => `stop:${m}`),
    run: async () => {
      ctx.log(`${n}: stopping`);
      await loadComponent(n).stop(ctx);
    },
  }));
  await runLanes(stops, Math.max(1, stops.length));
}

export interface ComponentStatus {
  readonly name: string;
  readonly version: string;
  readonly ports: Record<string, number>;
  readonly pid: number | null;
  readonly running: boolean;
  readonly health: Health;
  readonly endpoints: Record<string, string>;
}

export async function status(ctx: StackContext, names?: readonly string[]): Promise<ComponentStatus[]> {
  const order = startOrder(ctx.manifest, names);
  return Promise.all(
    order.map(async (n): Promise<ComponentStatus> => {
      const c = loadComponent(n);
      const def = ctx.manifest.components[n];
      const ports = Object.fromEntries(Object.keys(def?.ports ?? {}).map((p) => [p, ctx.port(n, p)]));
      const pid = runningPid(ctx, n) ?? null;
      // A component without ports may run no process (the browser, the test server): healthy means installed and usable.
      const processLess = Object.keys(ports).length === 0;
      const health: Health = pid === null && !processLess ? { ok: false, detail: 'not running' } : await c.health(ctx);
      return {
        name: n,
        version: def?.version ?? '?',
        ports,
        pid,
        running: pid !== null || (processLess && health.ok),
        health,
        endpoints: c.endpoints(ctx),
      };
    }),
  );
}
