// Limits on what a plan file may hold, and the checks that run on its text and JSON tree before the
// hash and the schema see it, so a hostile file ends with a coded error rather than a stack
// overflow, a prototype change or an integer overflow further down (docs/plan-signing.md
// "Limits"). Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';

/** Largest plan file read (bytes); larger files are refused unread. A planned table takes ~200 bytes. */
export const MAX_PLAN_BYTES = 64 * 2 ** 20;
/**
 * The largest wave number, in a plan file and in every `--wave` flag alike (cli/flags.ts), so every
 * wave a valid plan holds can be approved, rolled back and cut over (and it fits the state store's
 * `him_tables.wave int` column). A plan has at most MAX_WAVES waves, numbered from 1.
 */
export const MAX_WAVE_NUMBER = 1_000_000;
/** Waves in one plan. */
export const MAX_WAVES = 100_000;
/** Tables in one plan (planned and not planned, each list). */
export const MAX_PLAN_TABLES = 1_000_000;
/** JSON nesting: a real plan is 5 deep (waves[].tables[].id); anything past this is refused. */
export const MAX_JSON_DEPTH = 32;

/** Member names that would reach an object's prototype if copied with `obj[key] = value`. */
const POISON_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const invalid = (message: string, path = '(root)'): MigrationError =>
  new MigrationError(ErrorCode.PLAN_INVALID, message, { paths: [path] });

/** Refuse JSON text nested deeper than `max`, scanning brackets outside strings (no recursion). */
export function checkJsonDepth(text: string, max: number = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) throw invalid(`plan file nests JSON deeper than ${max} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/**
 * Walk a parsed document (its depth already bounded): refuse prototype-pollution member names and
 * numbers JSON.parse turned into ±Infinity (`1e400`), naming the path.
 */
export function checkPlanTree(value: unknown, path = ''): void {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw invalid(`${path || '(root)'}: ${String(value)} is not a finite number`, path || '(root)');
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkPlanTree(v, `${path}[${i}]`));
    return;
  }
  for (const key of Object.keys(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (POISON_KEYS.has(key)) throw invalid(`${at}: member name ${JSON.stringify(key)} is not allowed in a plan file`, at);
    checkPlanTree((value as Record<string, unknown>)[key], at);
  }
}
