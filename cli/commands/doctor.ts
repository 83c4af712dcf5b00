// `migrate doctor`: one real round trip to every configured endpoint, with version, latency and,
// on failure, the remedy. Exit 1 when any check fails.
import type { Command } from 'commander';
import type { MigrateConfig } from '../../core/config/schema';
import { isMigrationError } from '../../core/errors';
import { probeHms } from '../../adapters/hms/thrift/connection';
import { probeRestCatalog } from '../../adapters/catalog/rest-probe';
import { probeS3 } from '../../adapters/storage/s3-probe';
import { probePostgres, redact } from '../../adapters/state/pg-probe';
import { probeTemporal } from '../../adapters/temporal/probe';
import { ExitCode } from '../exit-codes';
import { FLAG_RANGES, intFlag } from '../flags';
import type { IO } from '../output';
import { configOf } from '../output';

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
      component: 'hms', endpoint: uri,
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
      component: 'catalog', endpoint: `${c.name} (${c.type}) ${c.uri}`,
      remedy: c.type === 'rest'
        ? `Check that the Iceberg REST catalog answers GET ${c.uri}/v1/config${c.tokenEnv ? ` and that ${c.tokenEnv} holds a valid token` : ''}; set catalog.uri.`
        : `Check the Hive catalog's metastore at ${c.uri}; set catalog.uri.`,
      run: async () => {
        if (c.type === 'hive') {
          const p = await probeHms(c.uri, timeoutMs);
          return { version: p.version, latencyMs: p.latencyMs, detail: `hive catalog (${c.mode ?? 'register'}), ${p.databases} databases` };
        }
        const p = await probeRestCatalog(c.uri, timeoutMs, c.tokenEnv ? env[c.tokenEnv] : undefined);
        return { latencyMs: p.latencyMs, detail: `GET /v1/config ok (${Object.keys(p.defaults).length} defaults, ${Object.keys(p.overrides).length} overrides)` };
      },
    });
  }
  const s3 = cfg.storage?.s3;
  if (s3) {
    out.push({
      component: 'storage', endpoint: s3.endpoint ?? `AWS S3 (${s3.region})`,
      remedy: 'Check storage.s3.endpoint/region and the AWS credentials in the environment (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE).',
      run: async () => probeS3({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: s3.forcePathStyle, bucket: s3.probeBucket }, timeoutMs),
    });
  }
  if (cfg.temporal) {
    const t = cfg.temporal;
    out.push({
      component: 'temporal', endpoint: `${t.address} (namespace ${t.namespace})`,
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
      component: 'state', endpoint: redact(url),
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
        return { component: p.component, endpoint: p.endpoint, ok: true, detail: r.detail, latencyMs: r.latencyMs, ...(r.version ? { version: r.version } : {}) };
      } catch (e) {
        const code = isMigrationError(e) ? e.code : ((e as { code?: unknown }).code as string | undefined);
        return { component: p.component, endpoint: p.endpoint, ok: false, detail: (e as Error).message, remedy: p.remedy, ...(typeof code === 'string' ? { code } : {}) };
      }
    }),
  );
}

export function renderDoctor(checks: readonly Check[]): string {
  if (checks.length === 0) {
    return 'Nothing to check: the configuration names no endpoint. Pass --config migrate.yaml (see migrate.example.yaml).\n';
  }
  const lines = checks.map((c) => {
    const head = `${c.ok ? 'ok  ' : 'FAIL'}  ${c.component.padEnd(8)} ${c.endpoint}`;
    const meta = [c.version ? `version ${c.version}` : undefined, c.latencyMs !== undefined ? `${c.latencyMs} ms` : undefined, c.detail].filter(Boolean).join(' · ');
    return c.ok ? `${head}\n      ${meta}` : `${head}\n      [${c.code ?? 'ERROR'}] ${c.detail.split('\n')[0]}\n      fix: ${c.remedy}`;
  });
  const failed = checks.filter((c) => !c.ok).length;
  return `${lines.join('\n')}\n\n${failed === 0 ? `all ${checks.length} checks passed` : `${failed} of ${checks.length} checks failed`}\n`;
}

/** Adds `doctor` to the program (cli/main.ts calls this). */
export function registerDoctor(program: Command, io: IO): void {
  program
    .command('doctor')
    .description('check every configured endpoint (HMS, Iceberg catalog, S3, Temporal, state DB): version, latency, remedy on failure')
    .option('--json', 'machine-readable output')
    .option('--timeout <ms>', `per-check timeout in milliseconds (${FLAG_RANGES.doctorTimeoutMs.min}-${FLAG_RANGES.doctorTimeoutMs.max})`, intFlag('--timeout', FLAG_RANGES.doctorTimeoutMs), 10_000)
    .addHelpText('after', `
Examples:
  migrate doctor --config migrate.yaml
  migrate doctor --config .stack/migrate.yaml --json
  MIGRATE__TEMPORAL__ADDRESS=temporal.internal:7233 migrate doctor -c prod.yaml --timeout 3000

Exit codes: 0 every check passed; 1 a check failed; 2 bad flag or configuration.`)
    .action(async (opts: { json?: boolean; timeout: number }, cmd: Command) => {
      const checks = await runDoctor(configOf(cmd), opts.timeout, process.env);
      io.out(opts.json ? `${JSON.stringify({ ok: checks.every((c) => c.ok), checks }, null, 2)}\n` : renderDoctor(checks));
      io.setExit(checks.every((c) => c.ok) ? ExitCode.OK : ExitCode.FAILED);
    });
}
