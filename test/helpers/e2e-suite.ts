// What every end-to-end suite on the stack sets up the same way: its own migrate.yaml (own task
// queue and target namespace prefix over the stack's config), the `migrate` CLI bound to it, a
// worker under a supervisor that restarts it whenever it dies (as systemd or Kubernetes would;
// the crash suites count the restarts), plan + apply of one plan, and the catalog left clean.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import type { Run } from './cli';
import { MIGRATE, TSX, run } from './cli';
import type { WorkerProc } from './hostile';
import { startWorker } from './hostile';
import { testStack } from './stack-env';

/**
 * The stack's migrate.yaml for one suite, written to `<dir>/migrate.yaml`: its own Temporal task
 * queue, target namespaces prefixed `nsPrefix`, a plan of `databases`; `planYaml` goes under
 * `plan:` (indented two spaces), `extraYaml` is appended at the top level.
 */
export function suiteConfig(o: {
  readonly dir: string;
  readonly queue: string;
  readonly nsPrefix: string;
  readonly databases: readonly string[];
  readonly planYaml?: string;
  readonly extraYaml?: string;
}): string {
  const stackCfg = path.join(testStack().HIM_STATE_DIR as string, 'migrate.yaml');
  const base = readFileSync(stackCfg, 'utf8')
    .replace(/taskQueue:.*\n/, '')
    .replace(/namespace: default/, `namespace: default\n  taskQueue: ${o.queue}`)
    .replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${o.nsPrefix}`);
  const file = path.join(o.dir, 'migrate.yaml');
  const plan = `plan:\n  databases: [${o.databases.join(', ')}]\n${o.planYaml ?? ''}`;
  writeFileSync(file, `${base}\n${plan}${o.extraYaml ?? ''}`);
  return file;
}

/** `migrate <args> --config <cfgFile>`. */
export const migrateWith =
  (cfgFile: string) =>
  (args: string[], timeout?: number): Promise<Run> =>
    run(MIGRATE, [...args, '--config', cfgFile], timeout);

/** A worker restarted whenever it dies until stop(): one log across its lives, and how often it died. */
export interface SupervisedWorker {
  kills(): number;
  log(): string;
  stop(): Promise<void>;
}

export function superviseWorker(cfgFile: string, extraEnv: Record<string, string> = {}): SupervisedWorker {
  let stopping = false;
  let kills = 0;
  let earlier = '';
  const start = (): WorkerProc => {
    const w = startWorker(cfgFile, extraEnv);
    w.proc.on('exit', (code, signal) => {
      if (stopping) return;
      kills++; // tsx relays the child's SIGKILL as exit code 137 (or the signal itself)
      earlier += `${w.log()}\n[supervisor] worker exited (${signal ?? code}); restarting\n`;
      current = start();
    });
    return w;
  };
  let current = start();
  return {
    kills: () => kills,
    log: () => earlier + current.log(),
    stop: async () => {
      stopping = true;
      await current.stop();
    },
  };
}

/** `migrate plan --out <dir>/plan.json [planArgs]` then apply it with --auto-approve --wait; throws with the worker's log on failure. */
export async function planAndApply(
  migrate: (args: string[], timeout?: number) => Promise<Run>,
  dir: string,
  o: { readonly planArgs?: readonly string[]; readonly applyArgs?: readonly string[]; readonly workerLog?: () => string } = {},
): Promise<{ planFile: string; hash: string; apply: Run }> {
  const planFile = path.join(dir, 'plan.json');
  const p = await migrate(['plan', '--out', planFile, ...(o.planArgs ?? [])]);
  if (p.code !== 0) throw new Error(`plan failed (${p.code}): ${p.stdout}\n${p.stderr}`);
  const hash = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash;
  const a = await migrate(['apply', planFile, '--auto-approve', '--wait', '--json', ...(o.applyArgs ?? [])], 900_000);
  if (a.code !== 0) throw new Error(`apply failed (${a.code}): ${a.stdout}\n${a.stderr}\nworker:\n${o.workerLog?.().slice(-4000) ?? ''}`);
  return { planFile, hash, apply: a };
}

/** Drop every table left in `ns` of the stack's REST catalog (never purging: data files stay), then `ns`. */
export async function dropNamespace(ns: string): Promise<void> {
  const catalog = await RestCatalog.connect({ uri: testStack().HIM_ICEBERG_REST_URI as string });
  for (const t of await catalog.listTables([ns]).catch(() => [])) await catalog.dropTable(t);
  await catalog.dropNamespace([ns]).catch(() => undefined);
}

/** Drop what `dev/seed` seeded under `prefix` on the stack's hms-pg (its databases and S3 files). */
export async function dropSeed(prefix: string): Promise<void> {
  await run(TSX, ['dev/seed/main.ts', '--hms', testStack().HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
}
