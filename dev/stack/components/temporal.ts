// Temporal dev server (Temporal CLI built from Go modules) on a SQLite file, with the embedded Web
// UI and our custom search attributes. Dev tooling; recipe in docs/design/stack-components.md §1.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { z } from 'zod';
import type { Component, Health, StackContext } from '../types';
import { settings, versionOf } from '../manifest';
import { goInstall } from '../installers';
import { installDir } from '../env';
import { assertPortsFree, cachedInstall, dataDir, httpGet, logFile, run, spawnDaemon, stopPid, StackError, waitFor } from '../util';

const NAME = 'temporal';

/** The search-attribute type names `temporal operator search-attribute create --type` accepts. */
const SA_TYPES = ['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'] as const;

const settingsSchema = z
  .object({
    goModule: z.string(),
    namespace: z.string().min(1).default('default'),
    searchAttributes: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), z.enum(SA_TYPES)).default({}),
  })
  .strict();

type TemporalSettings = z.infer<typeof settingsSchema>;

const conf = (ctx: StackContext): TemporalSettings => settings(ctx, NAME, settingsSchema);
const binary = (ctx: StackContext): string => path.join(installDir(ctx, NAME), 'bin', 'temporal');
const grpcAddress = (ctx: StackContext): string => `127.0.0.1:${ctx.port(NAME)}`;
const uiUrl = (ctx: StackContext): string => `http://127.0.0.1:${ctx.port(NAME, 'ui')}`;

/** The first start on a fresh db file runs the schema setup; later starts take < 1 s. */
const START_TIMEOUT_MS = 90_000;
/** Per-probe budget: a blackholed port must not hang `status` (docs/design/stack-components.md §1: a call hung 74 s). */
const PROBE_TIMEOUT_MS = 3_000;

async function install(ctx: StackContext): Promise<void> {
  const version = versionOf(ctx, NAME);
  const { goModule } = conf(ctx);
  await cachedInstall(ctx, NAME, version, (tmp) =>
    // The Version variable makes `temporal --version` report the real CLI version (else 0.0.0-DEV).
    goInstall(ctx, path.join(tmp, 'bin'), [`${goModule}@v${version}`], `-s -w -X github.com/temporalio/cli/temporalcli.Version=${version}`),
  );
}

function startArgs(ctx: StackContext, s: TemporalSettings): string[] {
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    path.join(dataDir(ctx, NAME), 'temporal.db'),
    '--ip',
    '127.0.0.1',
    '--port',
    String(ctx.port(NAME)),
    '--ui-port',
    String(ctx.port(NAME, 'ui')),
    // `default` is always created; naming it again is harmless (created only if missing).
    '--namespace',
    s.namespace,
  ];
  // Only honoured when the db file is new; ensureSearchAttributes covers existing files.
  for (const [n, t] of Object.entries(s.searchAttributes)) args.push('--search-attribute', `${n}=${t}`);
  // WAL + busy timeout: the CLI's own db-file test uses exactly these.
  for (const p of ['journal_mode=WAL', 'synchronous=NORMAL', 'busy_timeout=5000']) args.push('--sqlite-pragma', p);
  args.push('--log-level', 'warn');
  return args;
}

async function start(ctx: StackContext): Promise<void> {
  const s = conf(ctx);
  await assertPortsFree(ctx, NAME);
  await fs.mkdir(dataDir(ctx, NAME), { recursive: true });
  const pid = await spawnDaemon(ctx, NAME, binary(ctx), startArgs(ctx, s));
  await waitFor(ctx, NAME, async () => (await health(ctx)).ok, START_TIMEOUT_MS, pid);
  try {
    await ensureSearchAttributes(ctx, s);
  } catch (e) {
    // A server with the wrong attribute types is not "up": leave nothing half-started behind.
    await stopPid(ctx, NAME);
    throw e;
  }
}

/**
 * `--search-attribute` is silently ignored when the db file already exists, so every start
 * (re)creates each attribute: rc 0 when it exists with the same type, an error when the type differs.
 */
async function ensureSearchAttributes(ctx: StackContext, s: TemporalSettings): Promise<void> {
  for (const [name, type] of Object.entries(s.searchAttributes)) {
    try {
      await run(
        binary(ctx),
        [
          'operator',
          'search-attribute',
          'create',
          '--address',
          grpcAddress(ctx),
          '--namespace',
          s.namespace,
          '--name',
          name,
          '--type',
          type,
          '--client-connect-timeout',
          '5s',
          '--command-timeout',
          '10s',
        ],
        { logTo: logFile(ctx, NAME), timeoutMs: 30_000 },
      );
    } catch (e) {
      const msg = (e as Error).message;
      const existing = /different type (\w+)/i.exec(msg)?.[1];
      if (existing === undefined) {
        throw new StackError(
          'SEARCH_ATTRIBUTE_FAILED',
          `temporal: could not create search attribute ${name}=${type} in namespace '${s.namespace}': ${msg}`,
        );
      }
      throw new StackError(
        'SEARCH_ATTRIBUTE_CONFLICT',
        `temporal: search attribute ${name} exists in namespace '${s.namespace}' as ${existing}, but temporal-dev.yml wants ${type}. ` +
          `Types cannot change in place: the server was stopped; delete ${dataDir(ctx, NAME)} to start from an empty database, or fix temporal-dev.yml.`,
      );
    }
  }
}

async function health(ctx: StackContext): Promise<Health> {
  // lazy + close in `finally`: a failed probe must not leave a gRPC channel behind (waitFor polls).
  const conn = Connection.lazy({ address: grpcAddress(ctx), connectTimeout: PROBE_TIMEOUT_MS });
  try {
    const deadline = (): number => Date.now() + PROBE_TIMEOUT_MS;
    const check = await conn.withDeadline(deadline(), () => conn.healthService.check({}));
    // grpc.health.v1 ServingStatus: 1 = SERVING.
    if (check.status !== 1) return { ok: false, detail: `gRPC health status ${String(check.status)}` };
    const info = await conn.withDeadline(deadline(), () => conn.workflowService.getSystemInfo({}));
    const serverVersion = info.serverVersion ?? undefined;
    const ui = await httpGet(uiUrl(ctx), PROBE_TIMEOUT_MS);
    if (ui.status !== 200) return { ok: false, detail: `SERVING, but the Web UI answered HTTP ${ui.status}`, serverVersion };
    return { ok: true, detail: `SERVING (server ${serverVersion ?? '?'}), UI ${uiUrl(ctx)}`, serverVersion };
  } catch (e) {
    return { ok: false, detail: (e as Error).message.split('\n')[0] ?? 'unknown error' };
  } finally {
    await conn.close().catch(() => undefined);
  }
}

export const component: Component = {
  name: NAME,
  install,
  start,
  health,
  // SIGTERM: the dev server flushes SQLite and exits in ~4 s (docs/design/stack-components.md §1).
  stop: (ctx) => stopPid(ctx, NAME),
  endpoints: (ctx) => ({ grpc: grpcAddress(ctx), ui: uiUrl(ctx) }),
};
