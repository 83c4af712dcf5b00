// The CLI's one output module: the IO every command writes through, the config every command
// resolves the same way, and the one rendering of an error (text on stderr, or the JSON error
// shape on stdout) with the exit code its class maps to (core/exit-codes.ts; docs/exit-codes.md).
import type { Command } from 'commander';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode } from '../core/errors';
import type { MigrationError } from '../core/errors';
import { ExitCode, exitCodeOf as exitCodeOfCode } from '../core/exit-codes';

export interface IO {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
  readonly setExit: (c: number) => void;
}

export interface GlobalOpts {
  config?: string;
  set: string[];
}

let hintConfig = '';

/** Before each command's action (cli/main.ts): the next-step hints repeat `-c <file>` when --config was given. */
export function setHintConfig(file: string | undefined): void {
  hintConfig = file === undefined ? '' : ` -c ${/^[\w@%+=:,./-]+$/.test(file) ? file : `'${file.replace(/'/g, `'\\''`)}'`}`;
}

/** A `migrate …` command line for a next-step hint, with the --config this command was given (copy-paste runs it). */
export function hint(command: string): string {
  return `${command}${hintConfig}`;
}

/** The one resolved config of a command (--config, MIGRATE__* environment, --set); the YAML and schema code loads on first use. */
export async function configOf(cmd: Command): Promise<MigrateConfig> {
  const g = cmd.optsWithGlobals<GlobalOpts>();
  const { loadConfig } = await import('./config');
  return loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() }).config;
}

/** The exit code of a coded error (core/exit-codes.ts, the one table). */
export function exitCodeOf(e: MigrationError): ExitCode {
  return exitCodeOfCode(e.code);
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
