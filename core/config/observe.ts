// The worker's `logging:` and `metrics:` sections, and the `migrate worker` flags that override
// them (checked by the same schema: a bad value is CONFIG_INVALID naming the flag). Pure; no I/O.
import { z } from 'zod';
import { ErrorCode, MigrationError } from '../errors';
import { LOG_FORMATS, LOG_LEVELS } from '../observe/log-line';
import type { LogFormat, LogLevel } from '../observe/log-line';

const port = z.number().int().min(0, 'expected a port 0-65535 (0: any free port)').max(65535, 'expected a port 0-65535 (0: any free port)');
const host = z.string().regex(/^[A-Za-z0-9.:[\]-]+$/, 'expected a host name or IP address');

/** The worker's log (`migrate worker`): one JSON object per line by default (docs/deploying.md "Logs"). */
export const loggingSchema = z
  .object({
    /** The lowest level written: trace, debug, info, warn or error (the Temporal SDK's lines included). */
    level: z.enum(LOG_LEVELS).default('info'),
    /** json: one JSON object per line (ts, level, msg and fields); text: one `ts LEVEL msg key=value` line. */
    format: z.enum(LOG_FORMATS).default('json'),
    /** Append the log to this file instead of stderr. */
    file: z.string().min(1).optional(),
  })
  .strict();

/** The worker's Prometheus endpoints (docs/deploying.md "Logs and metrics"). Unset: none. */
export const metricsSchema = z
  .object({
    /** The port of `GET /metrics` (0: any free port, printed at start). Unset: no endpoint of ours. */
    port: port.optional(),
    /** The address it binds; the loopback by default (a scraper on another host needs e.g. 0.0.0.0). */
    host: host.default('127.0.0.1'),
    /** The Temporal SDK's own metrics (temporal_*: pollers, task slots, schedule-to-start latency) on a second port, on the same host. Unset: off. */
    sdkPort: z.number().int().min(1).max(65535).optional(),
  })
  .strict();

export type LoggingConfig = z.infer<typeof loggingSchema>;
export type MetricsConfig = z.infer<typeof metricsSchema>;

/** `migrate worker`'s flags over the config's sections (raw strings: the schema checks them). */
export interface ObserveFlags {
  readonly logLevel?: string;
  readonly logFormat?: string;
  readonly logFile?: string;
  readonly metricsPort?: string;
  readonly metricsHost?: string;
}

export interface ObserveConfig {
  readonly logging: { readonly level: LogLevel; readonly format: LogFormat; readonly file?: string };
  readonly metrics?: MetricsConfig;
}

const FLAG_OF: Record<string, string> = {
  'logging.level': '--log-level',
  'logging.format': '--log-format',
  'logging.file': '--log-file',
  'metrics.port': '--metrics-port',
  'metrics.host': '--metrics-host',
};

const asPort = (s: string): number | string => (/^\d{1,6}$/.test(s) ? Number(s) : s);

/** The config's sections with the flags over them, validated once; CONFIG_INVALID names each bad path and its source. */
export function resolveObserve(cfg: { logging?: unknown; metrics?: unknown }, flags: ObserveFlags): ObserveConfig {
  const fromFlags = new Set<string>();
  const pick = <T>(path: string, v: T | undefined): Record<string, T> => {
    if (v === undefined) return {};
    fromFlags.add(path);
    return { [path.split('.')[1] as string]: v };
  };
  const logging = {
    ...(cfg.logging as object | undefined),
    ...pick('logging.level', flags.logLevel),
    ...pick('logging.format', flags.logFormat),
    ...pick('logging.file', flags.logFile),
  };
  const metricsIn =
    cfg.metrics === undefined && flags.metricsPort === undefined && flags.metricsHost === undefined
      ? undefined
      : {
          ...(cfg.metrics as object | undefined),
          ...pick('metrics.port', flags.metricsPort === undefined ? undefined : asPort(flags.metricsPort)),
          ...pick('metrics.host', flags.metricsHost),
        };
  const r = z.object({ logging: loggingSchema, metrics: metricsSchema.optional() }).safeParse({ logging, metrics: metricsIn });
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => {
    const p = i.path.map(String).join('.');
    return { path: p, line: `  ${p}: ${i.message} (from ${fromFlags.has(p) ? FLAG_OF[p] : 'the config'})` };
  });
  throw new MigrationError(ErrorCode.CONFIG_INVALID, `invalid configuration:\n${issues.map((i) => i.line).join('\n')}`, {
    paths: issues.map((i) => i.path),
  });
}
