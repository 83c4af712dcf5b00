// `doctor`: what `apply` will need, checked with real round trips to every configured endpoint:
// reachable (version, latency), the catalog token variable set (or the catalog.auth method and
// identity: app/doctor-catalog.ts), the Temporal namespace's search
// attributes and the workers polling the task queue, the state database writable. Each check is
// ok, warn (apply can start, something is likely wrong: no worker polls yet) or fail, with the
// remedy. Never throws for an unhealthy endpoint.
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, isMigrationError } from '../core/errors';
import { probeHms } from '../adapters/hms/thrift/connection';
import { probeRestCatalog } from '../adapters/catalog/rest-probe';
import { probeS3 } from '../adapters/storage/s3-probe';
import { probePostgres, redact } from '../adapters/state/pg-probe';
import { probeTemporal } from '../adapters/temporal/probe';
import type { TemporalProbe } from '../adapters/temporal/probe';
import { SA } from '../workflows/common';
import { openCatalog } from './runtime';
import { restAuthOutcomes } from './doctor-catalog';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  readonly component: 'hms' | 'catalog' | 'storage' | 'temporal' | 'state';
  /** What was checked: `reachable`, `token`, `search attributes`, `workers`, `writable`. */
  readonly check: string;
  readonly endpoint: string;
  readonly status: CheckStatus;
  /** false only for a failed check (a warning is ok). */
  readonly ok: boolean;
  readonly version?: string;
  readonly latencyMs?: number;
  readonly detail: string;
  readonly code?: string;
  readonly remedy?: string;
}

/** One result of a probe: ok unless `status` says otherwise. */
interface Outcome {
  readonly check: string;
  readonly status?: CheckStatus;
  readonly version?: string;
  readonly latencyMs?: number;
  readonly detail: string;
  readonly code?: string;
  readonly remedy?: string;
}

interface Probe {
  readonly component: Check['component'];
  readonly endpoint: string;
  /** The remedy when `run` throws. */
  readonly remedy: string;
  readonly run: () => Promise<Outcome[]>;
}

/** The search attributes the workflows write (workflows/common.ts `SA`). */
export const SEARCH_ATTRIBUTES = Object.values(SA).map((k) => ({ name: k.name, type: k.type as string }));

/** A JDBC catalog: connect (its tables are created when missing, as JdbcCatalog does) and ask for one namespace. */
async function probeJdbcCatalog(cfg: MigrateConfig, env: NodeJS.ProcessEnv): Promise<Outcome[]> {
  const t0 = performance.now();
  const catalog = await openCatalog(cfg, env);
  try {
    await catalog.namespaceExists(['default']);
    return [{ check: 'reachable', latencyMs: Math.round(performance.now() - t0), detail: 'jdbc catalog tables readable' }];
  } finally {
    await catalog.close?.();
  }
}

function hmsProbe(cfg: MigrateConfig, timeoutMs: number): Probe[] {
  if (!cfg.hms) return [];
  const uri = cfg.hms.thrift.uri;
  const callTimeoutMs = cfg.hms.thrift.callTimeoutMs;
  return [
    {
      component: 'hms',
      endpoint: uri,
      remedy: `Check that the Hive Metastore listens on ${uri} (metastore.thrift.port / bind host) and is not SASL/Kerberos-only; set hms.thrift.uri in your config or MIGRATE__HMS__THRIFT__URI.`,
      run: async () => {
        const p = await probeHms(uri, Math.min(timeoutMs, callTimeoutMs));
        return [{ check: 'reachable', version: p.version, latencyMs: p.latencyMs, detail: `${p.databases} databases` }];
      },
    },
  ];
}

/** A rest catalog's token variable, checked before the catalog is asked anything. */
function tokenOutcome(tokenEnv: string | undefined, env: NodeJS.ProcessEnv): Outcome[] {
  if (tokenEnv === undefined) return [];
  if ((env[tokenEnv] ?? '') !== '') return [{ check: 'token', detail: `${tokenEnv} is set` }];
  return [
    {
      check: 'token',
      status: 'fail',
      code: ErrorCode.CONFIG_INVALID,
      detail: `catalog.tokenEnv names ${tokenEnv}, which is not set (or empty) in this environment`,
      remedy: `Export ${tokenEnv}=<bearer token> in the environment of every migrate process (CLI and workers), or remove catalog.tokenEnv.`,
    },
  ];
}

function catalogRemedy(c: NonNullable<MigrateConfig['catalog']>): string {
  if (c.type === 'rest')
    return `Check that the Iceberg REST catalog answers GET ${c.uri}/v1/config${c.tokenEnv ? ` and that ${c.tokenEnv} holds a valid token` : ''}; set catalog.uri.`;
  if (c.type === 'jdbc')
    return 'Check that the JDBC catalog database in catalog.uri accepts connections and lets this role create and write iceberg_tables.';
  return `Check the Hive catalog's metastore at ${c.uri}; set catalog.uri.`;
}

function catalogProbe(cfg: MigrateConfig, timeoutMs: number, env: NodeJS.ProcessEnv): Probe[] {
  const c = cfg.catalog;
  if (!c) return [];
  const run = async (): Promise<Outcome[]> => {
    if (c.type === 'hive') {
      const p = await probeHms(c.uri, timeoutMs);
      const detail = `hive catalog (${c.mode ?? 'register'}), ${p.databases} databases`;
      return [{ check: 'reachable', version: p.version, latencyMs: p.latencyMs, detail }];
    }
    if (c.type === 'jdbc') return probeJdbcCatalog(cfg, env);
    if (c.auth !== undefined) return restAuthOutcomes(c, c.auth, timeoutMs, env);
    const token = tokenOutcome(c.tokenEnv, env);
    const p = await probeRestCatalog(c.uri, timeoutMs, c.tokenEnv ? env[c.tokenEnv] || undefined : undefined);
    const detail = `GET /v1/config ok (${Object.keys(p.defaults).length} defaults, ${Object.keys(p.overrides).length} overrides)`;
    return [...token, { check: 'reachable', latencyMs: p.latencyMs, detail }];
  };
  const endpoint = `${c.name} (${c.type}) ${c.type === 'jdbc' ? redact(c.uri) : c.uri}`;
  return [{ component: 'catalog', endpoint, remedy: catalogRemedy(c), run }];
}

function storageProbe(cfg: MigrateConfig, timeoutMs: number): Probe[] {
  const s3 = cfg.storage?.s3;
  if (!s3) return [];
  return [
    {
      component: 'storage',
      endpoint: s3.endpoint ?? `AWS S3 (${s3.region})`,
      remedy:
        'Check storage.s3.endpoint/region and the AWS credentials in the environment (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE).',
      run: async () => {
        const p = await probeS3(
          { endpoint: s3.endpoint, region: s3.region, forcePathStyle: s3.forcePathStyle, bucket: s3.probeBucket },
          timeoutMs,
        );
        return [{ check: 'reachable', ...p }];
      },
    },
  ];
}

/** The search-attribute and worker checks of one Temporal probe. */
export function temporalOutcomes(p: TemporalProbe, t: NonNullable<MigrateConfig['temporal']>, cli: string): Outcome[] {
  const reachable: Outcome = {
    check: 'reachable',
    version: p.version,
    latencyMs: p.latencyMs,
    detail: 'frontend SERVING, namespace found',
  };
  const bad = [...p.missingAttributes.map((n) => `${n} missing`), ...p.wrongTypes];
  const add = SEARCH_ATTRIBUTES.filter((sa) => p.missingAttributes.includes(sa.name))
    .map((sa) => `--name ${sa.name} --type ${sa.type === 'KEYWORD_LIST' ? 'KeywordList' : sa.type[0] + sa.type.slice(1).toLowerCase()}`)
    .join(' ');
  const attributes: Outcome =
    bad.length === 0
      ? { check: 'search attributes', detail: `${SEARCH_ATTRIBUTES.map((s) => s.name).join(', ')} registered` }
      : {
          check: 'search attributes',
          status: 'fail',
          code: ErrorCode.TEMPORAL_SEARCH_ATTRIBUTES_MISSING,
          detail: `namespace ${t.namespace}: ${bad.join('; ')}`,
          remedy: `Register them once per namespace: ${cli} operator search-attribute create --namespace ${t.namespace} ${add || '...'} (a wrong type needs the attribute removed first; see docs/deploying.md).`,
        };
  const { workflow, activity } = p.pollers;
  const none = [workflow === 0 ? 'workflow' : undefined, activity === 0 ? 'activity' : undefined].filter(Boolean);
  const workers: Outcome =
    none.length === 0
      ? { check: 'workers', detail: `task queue ${t.taskQueue}: ${workflow} workflow and ${activity} activity pollers` }
      : {
          check: 'workers',
          status: 'warn',
          code: ErrorCode.TEMPORAL_NO_WORKER,
          detail: `task queue ${t.taskQueue}: no ${none.join(' or ')} poller (${workflow} workflow, ${activity} activity)`,
          remedy: `Start workers before apply: migrate worker -c <config> (or one --role workflows and one --role activities) on task queue ${t.taskQueue}; apply would start and wait for them.`,
        };
  return [reachable, attributes, workers];
}

function temporalProbe(cfg: MigrateConfig, timeoutMs: number): Probe[] {
  const t = cfg.temporal;
  if (!t) return [];
  return [
    {
      component: 'temporal',
      endpoint: `${t.address} (namespace ${t.namespace})`,
      remedy: `Check that a Temporal frontend listens on ${t.address} and namespace '${t.namespace}' exists (local: npm run stack -- up temporal); set temporal.address.`,
      run: async () => {
        const req = { address: t.address, namespace: t.namespace, taskQueue: t.taskQueue, searchAttributes: SEARCH_ATTRIBUTES };
        return temporalOutcomes(await probeTemporal(req, timeoutMs), t, 'temporal');
      },
    },
  ];
}

/** What to do about the state database: create it (migrate creates its tables, never the database), reach it, let the role write. */
function stateRemedy(url: string): string {
  let create = 'createdb <name>';
  try {
    const u = new URL(url);
    create = `createdb -h ${u.hostname} -p ${u.port || '5432'}${u.username ? ` -U ${decodeURIComponent(u.username)}` : ''} ${u.pathname.slice(1)}`;
  } catch {
    // the schema already required postgres://; keep the generic form
  }
  return `A missing database: ${create} (migrate creates its tables on first use, never the database). Otherwise check that state.url's server accepts connections and that its role may create and write tables in the schema.`;
}

function stateProbe(cfg: MigrateConfig, timeoutMs: number): Probe[] {
  if (!cfg.state) return [];
  const url = cfg.state.url;
  return [
    {
      component: 'state',
      endpoint: redact(url),
      remedy: stateRemedy(url),
      run: async () => {
        const p = await probePostgres(url, timeoutMs);
        const tables =
          p.existingTables.length === 0 ? 'no state tables yet (created on first use)' : `${p.existingTables.length} state tables`;
        return [
          { check: 'reachable', version: p.version, latencyMs: p.latencyMs, detail: 'connected' },
          { check: 'writable', detail: `created, wrote and rolled back a probe table; ${tables}, INSERT granted` },
        ];
      },
    },
  ];
}

/** Codes that mean the endpoint answered and refused something further than a connection. */
const CHECK_OF_CODE: Readonly<Record<string, string>> = { STATE_DB_NOT_WRITABLE: 'writable' };

function failed(p: Probe, e: unknown): Check {
  const code = isMigrationError(e) ? e.code : ((e as { code?: unknown }).code as string | undefined);
  return {
    component: p.component,
    check: (code && CHECK_OF_CODE[code]) ?? 'reachable',
    endpoint: p.endpoint,
    status: 'fail',
    ok: false,
    detail: (e as Error).message,
    remedy: p.remedy,
    ...(typeof code === 'string' ? { code } : {}),
  };
}

/** Runs every probe concurrently; never throws for an unhealthy endpoint. */
export async function runDoctor(cfg: MigrateConfig, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const all = [
    ...hmsProbe(cfg, timeoutMs),
    ...catalogProbe(cfg, timeoutMs, env),
    ...storageProbe(cfg, timeoutMs),
    ...temporalProbe(cfg, timeoutMs),
    ...stateProbe(cfg, timeoutMs),
  ];
  const results = await Promise.all(
    all.map(async (p): Promise<Check[]> => {
      try {
        return (await p.run()).map((o) => ({
          component: p.component,
          endpoint: p.endpoint,
          ...o,
          status: o.status ?? 'ok',
          ok: (o.status ?? 'ok') !== 'fail',
        }));
      } catch (e) {
        return [failed(p, e)];
      }
    }),
  );
  return results.flat();
}
