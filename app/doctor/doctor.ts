// `doctor`: what `apply` will need, checked with real round trips to every configured endpoint:
// reachable (version, latency), the catalog token variable set (or the catalog.auth method and
// identity: app/doctor/catalog.ts), the Temporal namespace's search
// attributes and the workers polling the task queue, the state database writable, the audit anchor
// and validation results locations writable (app/doctor/locations.ts); `--role` narrows the checks
// to what one kind of process needs. Each check is
// ok, warn (apply can start, something is likely wrong: no worker polls yet) or fail, with the
// remedy. Never throws for an unhealthy endpoint.
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, isMigrationError } from '../../core/errors';
import { probeHms } from '../../adapters/hms/thrift/connection';
import { probeRestCatalog } from '../../adapters/catalog/rest-probe';
import { resolveS3Region } from '../../adapters/storage/s3-region';
import { s3DoctorOutcomes } from './s3';
import { probePostgres, redact } from '../../adapters/state/pg-probe';
import { probeTemporal } from '../../adapters/temporal/probe';
import type { TemporalProbe } from '../../adapters/temporal/probe';
import { SA } from '../../workflows/common';
import { openCatalog } from '../runtime/runtime';
import { probeKerberizedHms } from './hms-auth';
import { refusedOutcome, temporalConnectionOutcomes, temporalSettingsOf, unresolvedOutcome, withPlainSources } from './temporal';
import { connectionOptions } from '../runtime/temporal-connect';
import { restAuthOutcomes } from './catalog';
import type { CheckStatus, Outcome } from './outcome';
import { locationsOf, probeLocation } from './locations';

export type { CheckStatus };

export interface Check {
  readonly component: 'hms' | 'catalog' | 'storage' | 'temporal' | 'state' | 'audit' | 'validation';
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
      remedy: `Check that the Hive Metastore listens on ${uri} (metastore.thrift.port / bind host); a SASL/Kerberos metastore needs hms.thrift.kerberos; set hms.thrift.uri in your config or MIGRATE__HMS__THRIFT__URI.`,
      run: async () => {
        const kerberos = cfg.hms?.thrift.kerberos;
        if (kerberos) return probeKerberizedHms(uri, Math.min(timeoutMs, callTimeoutMs), kerberos);
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
      const p = await probeHms(c.uri, timeoutMs, cfg.hms?.thrift.kerberos);
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
  const endpoint = `${c.name} (${c.type}) ${redact(c.uri)}`;
  return [{ component: 'catalog', endpoint, remedy: catalogRemedy(c), run }];
}

function storageProbe(cfg: MigrateConfig, timeoutMs: number, env: NodeJS.ProcessEnv): Probe[] {
  const s3 = cfg.storage?.s3;
  if (!s3) return [];
  return [
    {
      component: 'storage',
      endpoint: s3.endpoint ?? `AWS S3 (${resolveS3Region(s3.region, env).region})`,
      remedy:
        'Check storage.s3.endpoint/region and the AWS credentials in the environment (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE).',
      run: () => s3DoctorOutcomes(s3, timeoutMs, env),
    },
  ];
}

/** The search-attribute and worker checks of one Temporal probe. */
export function temporalOutcomes(p: TemporalProbe, t: { readonly namespace: string; readonly taskQueue: string }, cli: string): Outcome[] {
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

function temporalProbe(cfg: MigrateConfig, timeoutMs: number, env: NodeJS.ProcessEnv): Probe[] {
  if (!cfg.temporal) return [];
  // Config merged with TEMPORAL_* and the profile file; connection, auth and TLS checks first (app/doctor/temporal.ts).
  const { settings: s, error } = temporalSettingsOf(cfg, env);
  return [
    {
      component: 'temporal',
      endpoint: s === undefined ? 'temporal (unresolved)' : `${s.address.value} (namespace ${s.namespace.value})`,
      remedy: `Check that a Temporal frontend listens on ${s?.address.value ?? 'temporal.address'} and namespace '${s?.namespace.value ?? 'default'}' exists (temporal operator namespace create --namespace <name>); set temporal.address / temporal.namespace.`,
      run: async () => {
        if (s === undefined) return [unresolvedOutcome(error)];
        const pre = await temporalConnectionOutcomes(s, timeoutMs);
        if (pre.some((o) => o.status === 'fail')) return pre;
        const { address, ...connect } = connectionOptions(s);
        const req = { address, connect, namespace: s.namespace.value, taskQueue: s.taskQueue, searchAttributes: SEARCH_ATTRIBUTES };
        let probe: TemporalProbe;
        try {
          probe = await probeTemporal(req, timeoutMs);
        } catch (e) {
          const refused = refusedOutcome(e);
          if (refused === undefined) throw e;
          return [...pre, refused];
        }
        const outcomes = temporalOutcomes(probe, req, 'temporal');
        return [...pre, ...withPlainSources(outcomes, s)];
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

/**
 * Which process the checks are for (docs/deploying.md): a workflow worker only talks to Temporal;
 * an activity worker to everything, and writes validation results; the CLI to everything but the
 * results location. `all` (the default) checks every configured endpoint.
 */
export const DOCTOR_ROLES = ['all', 'workflows', 'activities', 'client'] as const;
export type DoctorRole = (typeof DOCTOR_ROLES)[number];

function locationProbes(cfg: MigrateConfig, timeoutMs: number, env: NodeJS.ProcessEnv, role: DoctorRole): Probe[] {
  const which = { anchor: role !== 'workflows', results: role === 'all' || role === 'activities' };
  return locationsOf(cfg, which).map((l) => ({
    component: l.check === 'audit anchor' ? 'audit' : 'validation',
    endpoint: l.location,
    remedy: `Check ${l.location} and the storage credentials.`,
    run: async () => [await probeLocation(cfg, l, timeoutMs, env)],
  }));
}

/** Runs every probe of `role` concurrently; never throws for an unhealthy endpoint. */
export async function runDoctor(cfg: MigrateConfig, timeoutMs: number, env: NodeJS.ProcessEnv, role: DoctorRole = 'all'): Promise<Check[]> {
  const workflowsOnly = role === 'workflows';
  const all = [
    ...(workflowsOnly ? [] : hmsProbe(cfg, timeoutMs)),
    ...(workflowsOnly ? [] : catalogProbe(cfg, timeoutMs, env)),
    ...(workflowsOnly ? [] : storageProbe(cfg, timeoutMs, env)),
    ...temporalProbe(cfg, timeoutMs, env),
    ...(workflowsOnly ? [] : stateProbe(cfg, timeoutMs)),
    ...locationProbes(cfg, timeoutMs, env, role),
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
