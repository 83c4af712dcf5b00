// Numeric flags, parsed and range-checked while commander reads the command line: before any
// config is loaded or connection opened. A bad value is a coded USAGE error (exit 2), never NaN,
// a silent default or a crash later on.
import { ErrorCode, MigrationError } from '../core/errors';
import { MAX_WAVE_NUMBER } from '../core/plan/plan-limits';

export interface IntRange {
  readonly min: number;
  readonly max: number;
}

/** Largest wave number a flag accepts: the same bound as a plan file's (core/plan/plan-limits.ts). */
export const MAX_WAVE = MAX_WAVE_NUMBER;

/** `value` as an integer within `range`, else a USAGE error naming the flag, the range and the value. */
export function parseIntFlag(name: string, value: string, range: IntRange): number {
  const text = value.trim();
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw new MigrationError(ErrorCode.USAGE, `${name} must be an integer from ${range.min} to ${range.max}, got '${value}'`, {
      flag: name,
      value,
      min: range.min,
      max: range.max,
    });
  }
  return n;
}

/** A commander argParser for an integer flag: `.option('--concurrency <n>', '…', intFlag('--concurrency', { min: 1, max: 256 }), 8)`. */
export function intFlag(name: string, range: IntRange): (value: string) => number {
  return (value) => parseIntFlag(name, value, range);
}

/** The same for a repeatable flag (`--wave 1 --wave 2`): each value checked, collected in order. */
export function intListFlag(name: string, range: IntRange): (value: string, previous: number[]) => number[] {
  return (value, previous) => [...previous, parseIntFlag(name, value, range)];
}

/** The numeric flags of every command, with their ranges: one table, also used by docs and tests. */
export const FLAG_RANGES = {
  doctorTimeoutMs: { min: 100, max: 600_000 },
  callsPerSecond: { min: 0, max: 100_000 },
  footerConcurrency: { min: 1, max: 1024 },
  workerConcurrency: { min: 1, max: 10_000 },
  tableConcurrency: { min: 1, max: 1000 },
  validateConcurrency: { min: 1, max: 1000 },
  maxFailed: { min: 0, max: 1_000_000 },
  timeoutSeconds: { min: 1, max: 86_400 },
  wave: { min: 1, max: MAX_WAVE },
  tablesPerRun: { min: 1, max: 100_000 },
  tablesPerActivity: { min: 1, max: 50 },
} as const satisfies Record<string, IntRange>;

/** A repeatable string flag (`--database a --database b`), collected in order. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
