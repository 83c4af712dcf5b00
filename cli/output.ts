// The CLI's one output module: the IO every command writes through, the config every command
// resolves the same way, and the one rendering of an error (text on stderr, or the JSON error
// shape on stdout) with the exit code its class maps to (docs/exit-codes.md).
import type { Command } from 'commander';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode } from '../core/errors';
import type { MigrationError } from '../core/errors';
import { ExitCode } from '../core/exit-codes';
import { PLAN_INPUT_CODES } from '../app/plan-input-codes';

export interface IO {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
  readonly setExit: (c: number) => void;
}

export interface GlobalOpts {
  config?: string;
  set: string[];
}

/** The one resolved config of a command (--config, MIGRATE__* environment, --set); the YAML and schema code loads on first use. */
export async function configOf(cmd: Command): Promise<MigrateConfig> {
  const g = cmd.optsWithGlobals<GlobalOpts>();
  const { loadConfig } = await import('./config');
  return loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() }).config;
}

/** Codes that mean "fix the command line, the config or the input file": nothing was attempted. */
export const USAGE_CODES: ReadonlySet<string> = new Set<string>([
  ErrorCode.USAGE,
  ErrorCode.CONFIG_INVALID,
  ErrorCode.CONFIG_NOT_FOUND,
  ErrorCode.PLAN_INVALID,
  ErrorCode.PLAN_HASH_MISMATCH,
  ErrorCode.PLAN_VERSION_UNSUPPORTED,
  ErrorCode.PLAN_UNKNOWN_TABLE,
  ErrorCode.PLAN_CONTRADICTORY_CAPS,
  ErrorCode.PLAN_PIN_CONFLICT,
  ErrorCode.LINEAGE_INVALID,
  ErrorCode.WAVE_UNKNOWN,
  ErrorCode.WAVE_ALREADY_RAN,
  ErrorCode.PLAN_FINISHED,
  ...PLAN_INPUT_CODES,
]);

/** A coded error's exit code: 2 for usage/configuration/input, else 1 (a check or operation failed). */
export function exitCodeOf(e: MigrationError): ExitCode {
  return USAGE_CODES.has(e.code) ? ExitCode.USAGE : ExitCode.FAILED;
}

/** The one JSON error shape: `{ ok: false, error: { code, message, context } }`. */
export function errorJson(code: string, message: string, context: Readonly<Record<string, unknown>> = {}): string {
  return `${JSON.stringify({ ok: false, error: { code, message, context } }, null, 2)}\n`;
}

/** Render a coded error (JSON on stdout with --json, else one line on stderr) and return its exit code. */
export function renderError(e: MigrationError, json: boolean, io: Pick<IO, 'out' | 'err'>): ExitCode {
  if (json) io.out(errorJson(e.code, e.message, e.context));
  else io.err(`error [${e.code}]: ${e.message}\n`);
  return exitCodeOf(e);
}

/** A command-line error found by commander (unknown option, missing argument): always exit 2. */
export function renderUsage(message: string, json: boolean, io: Pick<IO, 'out' | 'err'>): ExitCode {
  if (json) io.out(errorJson(ErrorCode.USAGE, message.replace(/^error: /, '').trim()));
  return ExitCode.USAGE;
}

/** Write `value` as JSON (one line) or `text`, as the command was asked. */
export function emit(io: Pick<IO, 'out'>, json: boolean | undefined, value: unknown, text: string): void {
  io.out(json ? `${JSON.stringify(value)}\n` : text);
}
