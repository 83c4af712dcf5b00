// Shared invariants of the hostile corpus: the coded error of a CLI run, the
// sha256 of every data file under a prefix, "no catalog entry", "no metadata file", `audit verify`,
// configs that point the CLI at the stack (or at nothing, to prove a check ran before connecting),
// and a `migrate worker` on a task queue of its own, stopped by its pid.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import { migrateConfigYaml } from '../../dev/stack/env';
import { createContext } from '../../dev/stack/manifest';
import { buildPlan, planHash } from '../../core/plan/plan-file';
import type { PlanFile } from '../../core/plan/plan-file';
import { parseWaveOptions } from '../../core/plan/types';
import type { PlanTable } from '../../core/plan/types';
import type { WavePlan } from '../../core/plan/waves';
import type { Run } from './cli';
import { MIGRATE, ROOT, run } from './cli';
import { testStack } from './stack-env';

export const env = testStack();
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on: a command that connects fails (or hangs) instead of passing. */
const DEAD = '127.0.0.1:9';

/** A complete, valid config whose every endpoint is dead: flag and file errors must come first. */
export function deadConfigYaml(extra = ''): string {
  return `hms:\n  thrift:\n    uri: thrift://${DEAD}\n    connectTimeoutMs: 1000\n    callTimeoutMs: 1000\ncatalog:\n  name: dead\n  type: rest\n  uri: http://${DEAD}\n  warehouse: s3://warehouse/dead/\nstorage:\n  s3:\n    endpoint: http://${DEAD}\n    region: us-east-1\n    forcePathStyle: true\ntemporal:\n  address: ${DEAD}\n  namespace: default\n  taskQueue: him-hostile-dead\nstate:\n  url: postgres://nobody@${DEAD}/none\n${extra}`;
}

/** The stack's config with a task queue and a catalog namespace prefix of our own, plus `extra` YAML. */
export function stackConfigYaml(taskQueue: string, nsPrefix: string, extra = ''): string {
  // Built from the stack's settings, not read from its migrate.yaml: every jest run's global setup
  // rewrites that file, and a concurrent run can catch it half-written.
  const base = migrateConfigYaml(createContext(process.env, true))
    .replace(/taskQueue:.*\n/, '')
    .replace(/namespace: default/, `namespace: default\n  taskQueue: ${taskQueue}`)
    .replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`);
  return `${base}\n${extra}`;
}

export function writeFile(dir: string, name: string, text: string | Uint8Array): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** `bin/migrate args` (a short timeout by default: pure CLI cases must not connect anywhere). */
export function migrate(args: readonly string[], timeout = 60_000, extraEnv: Record<string, string> = {}): Promise<Run> {
  return run(MIGRATE, args, timeout, extraEnv);
}

/** The error code a run reported: `--json` `{ok:false,error:{code}}` on stdout, else `error [CODE]` on stderr. */
export function errorCode(r: Run): string | undefined {
  for (const line of [r.stdout.trim(), ...r.stdout.trim().split('\n')]) {
    try {
      const body = JSON.parse(line) as { error?: { code?: unknown } };
      if (typeof body.error?.code === 'string') return body.error.code;
    } catch {
      // not JSON: try the text form below
    }
  }
  return /error \[([A-Z0-9_]+)\]/.exec(r.stderr)?.[1];
}

/** What a case asserts about a run: its exit code and its coded error, side by side (one diff when it fails). */
export function outcome(r: Run): { exit: number; code: string | undefined } {
  return { exit: r.code, code: errorCode(r) };
}

/** The stack's S3 through the product's own store; `owned` prefixes may be written and deleted (test data). */
export function openStore(owned: readonly string[] = []): RoutingObjectStore {
  return new RoutingObjectStore({
    metadataPrefixes: owned,
    s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
  });
}

const isMetadata = (p: string): boolean => /\/metadata\//.test(p);

/** sha256 of every data file (anything not under a `metadata/` directory) below `prefix`, by path. */
export async function dataDigests(store: RoutingObjectStore, prefix: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const e of store.list(prefix, { recursive: true })) {
    if (e.kind !== 'file' || isMetadata(e.path)) continue;
    const bytes = e.size === 0 ? new Uint8Array() : await store.readRange(e.path, 0, e.size);
    out[e.path] = createHash('sha256').update(bytes).digest('hex');
  }
  return out;
}

/** Every object under `<location>/metadata/` (what a failed table must not leave behind). */
export async function metadataFiles(store: RoutingObjectStore, location: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of store.list(`${location.replace(/\/+$/, '')}/metadata/`, { recursive: true }))
    if (e.kind === 'file') out.push(e.path);
  return out;
}

export function openCatalog(): Promise<RestCatalog> {
  return RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
}

/** The catalog entry of `db.name` under the namespace prefix: its metadata location, or null when there is none. */
export async function catalogEntry(catalog: RestCatalog, nsPrefix: string, tableId: string): Promise<string | null> {
  const [db, name] = tableId.split('.') as [string, string];
  const ident = tableIdent([`${nsPrefix}${db}`], name);
  if (!(await catalog.tableExists(ident))) return null;
  return (await catalog.loadTable(ident)).metadataLocation;
}

/** Drop every entry under the prefixed namespaces of `dbs`, then the namespaces (cleanup). */
export async function dropNamespaces(catalog: RestCatalog, nsPrefix: string, dbs: readonly string[]): Promise<void> {
  for (const db of dbs) {
    for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t).catch(() => undefined);
    await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
  }
}

/** `migrate audit verify --json` with this config: intact is `{exit: 0, ok: true, code: undefined}`. */
export async function auditIntact(cfgFile: string): Promise<{ exit: number; ok: boolean; code: string | undefined }> {
  const r = await migrate(['audit', 'verify', '--json', '--config', cfgFile]);
  let ok = false;
  try {
    ok = (JSON.parse(r.stdout) as { ok?: boolean }).ok === true;
  } catch {
    ok = false;
  }
  return { exit: r.code, ok, code: errorCode(r) };
}

/** A `migrate worker` process on the config's task queue (own process group; stop() kills it by pid). */
export interface WorkerProc {
  readonly proc: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

export function startWorker(cfgFile: string, extraEnv: Record<string, string> = {}): WorkerProc {
  let log = '';
  const proc = spawn(MIGRATE, ['worker', '--config', cfgFile], {
    env: { ...process.env, ...env, ...extraEnv },
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  proc.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  return {
    proc,
    log: () => log,
    stop: async () => {
      const pid = proc.pid;
      if (pid === undefined || proc.exitCode !== null) return;
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        return;
      }
      for (let i = 0; i < 20 && proc.exitCode === null && proc.signalCode === null; i++) await sleep(250);
      try {
        if (proc.exitCode === null && proc.signalCode === null) process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/** A schema-valid, correctly hashed plan over made-up tables (nothing needs to exist for the file checks). */
export function syntheticPlan(tables: readonly string[] = ['h_db.t1', 'h_db.t2']): PlanFile {
  const t = (id: string): PlanTable => ({
    id,
    database: id.split('.')[0] as string,
    name: id.split('.')[1] as string,
    team: null,
    kind: 'table',
    class: 'migrate',
    files: 1,
    bytes: 10,
    risk: 'low',
    fingerprint: 'f'.repeat(64),
  });
  return buildPlan(
    {
      createdAt: new Date().toISOString(),
      toolVersion: 'hostile-corpus',
      source: { uri: `thrift://${DEAD}`, label: 'dead' },
      targetCatalog: 'dead',
      throughput: { filesPerSecond: 10, bytesPerSecond: 1e6, perTableOverheadSeconds: 1 },
    },
    {
      options: parseWaveOptions({ maxTablesPerWave: 10, maxFilesPerWave: 1000, maxBytesPerWave: 1e12 }),
      waves: [{ number: 1, tables: tables.map(t) }] as unknown as WavePlan['waves'],
      notPlanned: [],
      findings: [],
    },
  );
}

/** The plan document with `hash` recomputed by the project's own function (what a forger does). */
export function rehash(doc: Record<string, unknown>): string {
  return JSON.stringify({ ...doc, hash: planHash(doc as Parameters<typeof planHash>[0]) });
}

/**
 * Runs `start` of every case up front, at most `width` at a time (each CLI start costs seconds of
 * tsx boot on a small machine); a case's `it` then awaits its own run. Cases stay one `it` each.
 */
export function prefetch<K extends string>(starts: Readonly<Record<K, () => Promise<Run>>>, width = 3): Record<K, Promise<Run>> {
  const keys = Object.keys(starts) as K[];
  const resolvers = new Map<K, (r: Run) => void>();
  const out = Object.fromEntries(keys.map((k) => [k, new Promise<Run>((resolve) => resolvers.set(k, resolve))])) as Record<K, Promise<Run>>;
  const queue = [...keys];
  const lane = async (): Promise<void> => {
    for (let k = queue.shift(); k !== undefined; k = queue.shift()) {
      const key = k;
      const r = await Promise.resolve()
        .then(() => starts[key]())
        .catch((e: unknown): Run => ({ code: -1, stdout: '', stderr: `case setup threw: ${String(e)}` }));
      resolvers.get(key)?.(r);
    }
  };
  for (let i = 0; i < width; i++) void lane();
  return out;
}
