// The worker's one logger: table transitions, the worker's own lines and the Temporal SDK's
// (Runtime logger: activity and workflow task failures, retries, core's warnings) as one record
// per line (core/observe/log-line.ts), at the configured level, to stderr or an appended file.
import { openSync, writeSync } from 'node:fs';
import type { LogLevel as SdkLevel, LogMetadata, Logger } from '@temporalio/common';
import { makeTelemetryFilterString } from '@temporalio/worker';
import type { LogEntry, RuntimeOptions } from '@temporalio/worker';
import type { ObserveConfig } from '../../core/config/observe';
import type { LogFormat, LogLevel, LogRecord } from '../../core/observe/log-line';
import { formatLine, levelEnabled, levelOfSdk, messageRecord } from '../../core/observe/log-line';

export interface WorkerLog {
  readonly level: LogLevel;
  readonly format: LogFormat;
  /** Write one record when its level passes. */
  write(r: LogRecord): void;
  line(level: LogLevel, msg: string, meta?: Record<string, unknown>): void;
}

/** A log to `file` (appended, one synchronous write per line: lines of concurrent activities never interleave) or to stderr. */
export function openWorkerLog(
  o: { level: LogLevel; format: LogFormat; file?: string },
  stderr: (s: string) => void = (s) => void process.stderr.write(s),
): WorkerLog {
  const fd = o.file === undefined ? null : openSync(o.file, 'a');
  const out = fd === null ? stderr : (s: string) => void writeSync(fd, s);
  const write = (r: LogRecord): void => {
    if (levelEnabled(o.level, r.level)) out(formatLine(r, o.format));
  };
  return { level: o.level, format: o.format, write, line: (level, msg, meta) => write(messageRecord(new Date(), level, msg, meta)) };
}

/** The SDK's LogEntry as our record (its metadata as fields; `sdkComponent` says which part of the SDK spoke). */
export function sdkRecord(e: LogEntry): LogRecord {
  return messageRecord(new Date(Number(e.timestampNanos / 1_000_000n)), levelOfSdk(e.level), e.message, {
    src: 'temporal',
    ...(e.meta ?? {}),
  });
}

/** The Temporal Runtime's logger over `log` (Runtime.install({ logger })). */
export function sdkLogger(log: WorkerLog): Logger {
  const emit = (level: SdkLevel, message: string, meta?: LogMetadata): void => {
    const at = BigInt(Date.now()) * 1_000_000n;
    log.write(sdkRecord({ level, message, meta, timestampNanos: at }));
  };
  return {
    log: emit,
    trace: (m, meta) => emit('TRACE', m, meta),
    debug: (m, meta) => emit('DEBUG', m, meta),
    info: (m, meta) => emit('INFO', m, meta),
    warn: (m, meta) => emit('WARN', m, meta),
    error: (m, meta) => emit('ERROR', m, meta),
  };
}

/** The SDK's Rust core at our level, but not chattier than WARN unless debug or trace was asked for. */
const CORE_LEVEL: Record<LogLevel, SdkLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'WARN', warn: 'WARN', error: 'ERROR' };

/**
 * The Temporal Runtime's options for this worker: its logger is `log`, and the Rust core's lines are
 * forwarded to it too (without `forward` the core writes its own text lines to stderr); with
 * metrics.sdkPort, the SDK's Prometheus endpoint on metrics.host.
 */
export function runtimeOptions(log: WorkerLog, observe: ObserveConfig): RuntimeOptions {
  const sdk = observe.metrics?.sdkPort;
  const host = observe.metrics?.host ?? '127.0.0.1';
  return {
    logger: sdkLogger(log),
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: CORE_LEVEL[log.level], other: 'ERROR' }) },
      ...(sdk === undefined ? {} : { metrics: { prometheus: { bindAddress: `${host.includes(':') ? `[${host}]` : host}:${sdk}` } } }),
    },
  };
}
