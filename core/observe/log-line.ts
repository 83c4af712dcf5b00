// The worker's log lines: one record shape for a table's status transition and for every other
// line (the Temporal SDK's included), rendered as one JSON object per line or as one text line.
// Pure; no I/O (app/worker/log.ts writes them).
import { maskSecrets } from '../mask';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** True when a line at `level` passes a logger set to `min`. */
export function levelEnabled(min: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(min);
}

/** The Temporal SDK's level names (TRACE … ERROR) as ours; anything else is `info`. */
export function levelOfSdk(level: string): LogLevel {
  const l = level.toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(l) ? (l as LogLevel) : 'info';
}

/** What the log line of a table's status change carries (the state store recorded it). */
export interface TransitionEvent {
  readonly at: Date;
  readonly plan: string;
  readonly wave: number;
  readonly table: string;
  /** The activity that recorded it (`saveOriginalAndWrite`, `registerTable`, …), or `direct` outside one. */
  readonly step: string;
  readonly from: string;
  readonly to: string;
  /** Since the step began, or since its previous transition of the same table. */
  readonly durationMs: number;
  /** The error code recorded with a `failed` status. */
  readonly code?: string | null;
}

/** The message every transition line carries (what a log query filters on). */
export const TRANSITION_MSG = 'table transition';

/** A transition's outcome: `failed` when the table ended failed, else `ok`. */
export const outcomeOf = (to: string): 'ok' | 'failed' => (to === 'failed' ? 'failed' : 'ok');

/** The fields of one log line, in the order they are written. */
export type LogRecord = { readonly ts: string; readonly level: LogLevel; readonly msg: string } & Readonly<Record<string, unknown>>;

export function transitionRecord(e: TransitionEvent): LogRecord {
  const outcome = outcomeOf(e.to);
  return {
    ts: e.at.toISOString(),
    level: outcome === 'failed' ? 'error' : 'info',
    msg: TRANSITION_MSG,
    plan: e.plan,
    wave: e.wave,
    table: e.table,
    step: e.step,
    from: e.from,
    to: e.to,
    durationMs: Math.max(0, Math.round(e.durationMs)),
    outcome,
    ...(e.code === undefined || e.code === null ? {} : { code: e.code }),
  };
}

/** Values JSON cannot carry as they are: bigint as a string, an Error as its name, message and code (a Temporal failure's `type` is our error code). */
function plain(_k: string, v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Error) {
    const e = v as { code?: unknown; type?: unknown };
    const code = typeof e.code === 'string' ? e.code : typeof e.type === 'string' ? e.type : undefined;
    return { name: v.name, message: v.message, ...(code === undefined ? {} : { code }) };
  }
  return v;
}

/** Any other line (the SDK's own, the worker's start and stop): its metadata as fields, never replacing ts/level/msg. */
export function messageRecord(at: Date, level: LogLevel, msg: string, meta?: Readonly<Record<string, unknown>>): LogRecord {
  const rest = Object.fromEntries(Object.entries(meta ?? {}).filter(([k]) => k !== 'ts' && k !== 'level' && k !== 'msg'));
  return { ts: at.toISOString(), level, msg, ...rest };
}

/** One line (newline included), every URI secret masked (core/mask.ts): a JSON object, or `ts LEVEL msg k=v …`. */
export function formatLine(r: LogRecord, format: LogFormat): string {
  if (format === 'json') return `${maskSecrets(JSON.stringify(r, plain))}\n`;
  const { ts, level, msg, ...rest } = r;
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v, plain)}`);
  // One line whatever the message holds (a stack trace is folded onto it).
  const text = [ts, level.toUpperCase(), msg, ...fields].join(' ').replace(/\r?\n/g, ' | ');
  return `${maskSecrets(text)}\n`;
}
