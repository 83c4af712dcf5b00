// `doctor`: one real round trip to every configured endpoint, with version, latency and, on
// failure, the remedy. Never throws for an unhealthy endpoint.
import type { MigrateConfig } from '../core/config/schema';
import { isMigrationError } from '../core/errors';
import { probeHms } from '../adapters/hms/thrift/connection';
import { probeRestCatalog } from '../adapters/catalog/rest-probe';
import { probeS3 } from '../adapters/storage/s3-probe';
import { probePostgres, redact } from '../adapters/state/pg-probe';
import { probeTemporal } from '../adapters/temporal/probe';
import { openCatalog } from './runtime';

/** A JDBC catalog: connect (its tables are created when missing, as JdbcCatalog does) and ask for one namespace. */
async function probeJdbcCatalog(cfg: MigrateConfig, env: NodeJS.ProcessEnv): Promise<{ latencyMs: number; detail: string }> {
  const t0 = performance.now();
  const catalog = await openCatalog(cfg, env);
  try {
    await catalog.namespaceExists(['default']);
    return { latencyMs: Math.round(performance.now() - t0), detail: 'jdbc catalog tables readable' };
  } finally {
    await catalog.close?.();
  }
}

export interface Check {
  readonly component: 'hms' | 'catalog' | 'storage' | 'temporal' | 'state';
  readonly endpoint: string;
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
  readonly remedy: string;
  readonly run: () => Promise<{ version?: string; latencyMs: number; detail: string }>;
}

function probes(cfg: MigrateConfig, timeoutMs: number, env: NodeJS.ProcessEnv): Probe[] {
  const out: Probe[] = [];
  if (cfg.hms) {
    const uri = cfg.hms.thrift.uri;
    out.push({
      component: 'hms',
      endpoint: uri,
      remedy: `Check that the Hive Metastore listens on ${uri} (metastore.thrift.port / bind host) and is not SASL/Kerberos-only; set hms.thrift.uri in your config or MIGRATE__HMS__THRIFT__URI.`,
      run: async () => {
        const p = await probeHms(uri, Math.min(timeoutMs, cfg.hms?.thrift.callTimeoutMs ?? timeoutMs));
        return { version: p.version, latencyMs: p.latencyMs, detail: `${p.databases} databases` };
      },
    });
  }
  if (cfg.catalog) {
    const c = cfg.catalog;
    out.push({
      component: 'catalog',
      endpoint: `${c.name} (${c.type}) ${c.type === 'jdbc' ? redact(c.uri) : c.uri}`,
      remedy:
        c.type === 'rest'
          ? `Check that the Iceberg REST catalog answers GET ${c.uri}/v1/config${c.tokenEnv ? ` and that ${c.tokenEnv} holds a valid token` : ''}; set catalog.uri.`
          : c.type === 'jdbc'
            ? 'Check that the JDBC catalog database in catalog.uri accepts connections and lets this role create and write iceberg_tables.'
            : `Check the Hive catalog's metastore at ${c.uri}; set catalog.uri.`,
      run: async () => {
        if (c.type === 'hive') {
          const p = await probeHms(c.uri, timeoutMs);
          return { version: p.version, latencyMs: p.latencyMs, detail: `hive catalog (${c.mode ?? 'register'}), ${p.databases} databases` };
        }
        if (c.type === 'jdbc') return probeJdbcCatalog(cfg, env);
        const p = await probeRestCatalog(c.uri, timeoutMs, c.tokenEnv ? env[c.tokenEnv] : undefined);
        return {
          latencyMs: p.latencyMs,
          detail: `GET /v1/config ok (${Object.keys(p.defaults).length} defaults, ${Object.keys(p.overrides).length} overrides)`,
        };
      },
    });
  }
  const s3 = cfg.storage?.s3;
  if (s3) {
    out.push({
      component: 'storage',
      endpoint: s3.endpoint ?? `AWS S3 (${s3.region})`,
      remedy:
        'Check storage.s3.endpoint/region and the AWS credentials in the environment (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE).',
      run: async () =>
        probeS3({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: s3.forcePathStyle, bucket: s3.probeBucket }, timeoutMs),
    });
  }
  if (cfg.temporal) {
    const t = cfg.temporal;
    out.push({
      component: 'temporal',
      endpoint: `${t.address} (namespace ${t.namespace})`,
      remedy: `Check that a Temporal frontend listens on ${t.address} and namespace '${t.namespace}' exists (local: npm run stack -- up temporal); set temporal.address.`,
      run: async () => {
        const p = await probeTemporal(t.address, t.namespace, timeoutMs);
        return { version: p.version, latencyMs: p.latencyMs, detail: 'frontend SERVING, namespace found' };
      },
    });
  }
  if (cfg.state) {
    const url = cfg.state.url;
    out.push({
      component: 'state',
      endpoint: redact(url),
      remedy: 'Check that the Postgres state database in state.url accepts connections (local: npm run stack -- up postgres).',
      run: async () => {
        const p = await probePostgres(url, timeoutMs);
        return { version: p.version, latencyMs: p.latencyMs, detail: 'connected' };
      },
    });
  }
  return out;
}

/** Runs every probe concurrently; never throws for an unhealthy endpoint. */
export async function runDoctor(cfg: MigrateConfig, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<Check[]> {
  return Promise.all(
    probes(cfg, timeoutMs, env).map(async (p): Promise<Check> => {
      try {
        const r = await p.run();
        return {
          component: p.component,
          endpoint: p.endpoint,
          ok: true,
          detail: r.detail,
          latencyMs: r.latencyMs,
          ...(r.version ? { version: r.version } : {}),
        };
      } catch (e) {
        const code = isMigrationError(e) ? e.code : ((e as { code?: unknown }).code as string | undefined);
        return {
          component: p.component,
          endpoint: p.endpoint,
          ok: false,
          detail: (e as Error).message,
          remedy: p.remedy,
          ...(typeof code === 'string' ? { code } : {}),
        };
      }
    }),
  );
}
