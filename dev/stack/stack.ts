// Stack operations used by the `npm run stack` CLI, the test global setup and the demo.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { migrateConfigYaml } from './env';
import type { Health, StackContext } from './types';
import { loadComponent, startOrder } from './manifest';
import { runningPid, readPid } from './util';

/**
 * Two lanes: Go builds (CPU-bound, each saturates the cores) one after another, and everything
 * else (apt, Maven, pip: mostly network and disk) one after another beside them. Within a lane
 * installs stay sequential so tools sharing a cache (mvn's local repo, apt's lock) never race.
 */
export async function installAll(ctx: StackContext, names?: readonly string[]): Promise<void> {
  const order = startOrder(ctx.manifest, names);
  const isGo = (n: string): boolean => typeof ctx.manifest.components[n]?.settings.goModule === 'string';
  const lane = async (members: string[]): Promise<void> => {
    for (const n of members) await loadComponent(n).install(ctx);
  };
  await Promise.all([lane(order.filter(isGo)), lane(order.filter((n) => !isGo(n)))]);
}

/** Idempotent: installs what is missing, starts what is not running, and waits for health. */
export async function up(ctx: StackContext, names?: readonly string[]): Promise<void> {
  await fs.mkdir(ctx.stateDir, { recursive: true });
  const order = startOrder(ctx.manifest, names);
  await installAll(ctx, order);
  for (const n of order) {
    const c = loadComponent(n);
    if (runningPid(ctx, n) !== undefined) {
      const h = await c.health(ctx);
      if (h.ok) {
        ctx.log(`${n}: already running (${h.detail})`);
        continue;
      }
      ctx.log(`${n}: running but unhealthy (${h.detail}); restarting`);
      await c.stop(ctx);
    }
    const t0 = Date.now();
    await c.start(ctx);
    ctx.log(`${n}: up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  // A ready-made config pointing `migrate` at this stack (migrate doctor -c .stack/migrate.yaml).
  await fs.writeFile(path.join(ctx.stateDir, 'migrate.yaml'), migrateConfigYaml(ctx));
}

/** Stops, in reverse dependency order, only the components whose pid file we wrote. */
export async function down(ctx: StackContext, names?: readonly string[]): Promise<void> {
  const order = startOrder(ctx.manifest, names).reverse();
  // With explicit names we stop only those (dependents first is the caller's business).
  const targets = names && names.length > 0 ? order.filter((n) => names.includes(n)) : order;
  for (const n of targets) {
    if (readPid(ctx, n) === undefined) continue;
    ctx.log(`${n}: stopping`);
    await loadComponent(n).stop(ctx);
  }
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
      // A component without ports runs no process (the verifier): healthy means installed and usable.
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
