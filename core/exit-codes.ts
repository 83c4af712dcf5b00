// Exit codes of `migrate`: the one table. Which coded error exits with what (`exitCodeOf`), and what
// each code means for each command (`COMMAND_EXITS`): every command's --help prints its row
// (`exitHelp`), docs/exit-codes.md and docs/errors.md are generated from here (dev/docs/gen.ts), and
// test/unit/cli/exit-codes.test.ts runs each outcome and compares. Pure; no I/O.
import { ErrorCode } from './errors';

export const ExitCode = {
  OK: 0,
  /** A check or an operation failed (doctor found an unhealthy endpoint, ...). */
  FAILED: 1,
  /** Bad command line or configuration: nothing was attempted. */
  USAGE: 2,
  /** `migrate validate`: the checks ran and found drift. */
  DRIFT: 3,
  /** A bug: an error we did not anticipate. */
  INTERNAL: 70,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** What each exit code means, whatever the command. */
export const EXIT_MEANINGS: Readonly<Record<ExitCode, string>> = {
  0: 'ok: the command did what it was asked (including "already approved", and failed tables that `--max-failed` explicitly allowed: the output then says so)',
  1: 'a check or an operation failed: a failed table, a failed or cancelled plan, a plan workflow that ended without a result, an endpoint that cannot be reached (`*_UNREACHABLE`, `TEMPORAL_NO_WORKER`) or refuses our certificate or key (`TEMPORAL_TLS_*`, `TEMPORAL_AUTH_FAILED`): every coded error not listed under 2',
  2: 'usage, configuration or input file: nothing was attempted (bad flag, bad config, a plan file that fails its size, schema, version, hash or signature, a stale plan, unknown plan, unknown wave, a plan that already finished)',
  3: '`validate` only: the checks ran and found drift',
  70: 'a bug (an error nobody anticipated, shown as `INTERNAL`); the message asks for a report. Never an operator mistake',
};

/** Codes a plan file (or a plan id) the user gave can end with: bad input, exit 2 like a config error. */
export const PLAN_INPUT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ErrorCode.PLAN_INVALID,
  ErrorCode.PLAN_HASH_MISMATCH,
  ErrorCode.PLAN_VERSION_UNSUPPORTED,
  ErrorCode.PLAN_UNSIGNED,
  ErrorCode.PLAN_SIGNATURE_INVALID,
  ErrorCode.PLAN_TOO_LARGE,
  ErrorCode.PLAN_EMPTY,
]);

/** Codes that mean "fix the command line, the config or the input file": nothing was attempted; exit 2. */
export const USAGE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ErrorCode.USAGE,
  ErrorCode.CONFIG_INVALID,
  ErrorCode.CONFIG_NOT_FOUND,
  ErrorCode.PLAN_UNKNOWN_TABLE,
  ErrorCode.PLAN_CONTRADICTORY_CAPS,
  ErrorCode.PLAN_PIN_CONFLICT,
  ErrorCode.LINEAGE_INVALID,
  ErrorCode.WAVE_UNKNOWN,
  ErrorCode.WAVE_ALREADY_RAN,
  ErrorCode.PLAN_FINISHED,
  ErrorCode.PLAN_STALE,
  ErrorCode.SYNC_CUT_OVER,
  ErrorCode.ROLLBACK_ORDER,
  ...PLAN_INPUT_CODES,
]);

/** A coded error's exit code: 70 for INTERNAL, 2 for usage/configuration/input, else 1 (a check or operation failed). */
export function exitCodeOf(code: string): ExitCode {
  if (code === ErrorCode.INTERNAL) return ExitCode.INTERNAL;
  return USAGE_CODES.has(code as ErrorCode) ? ExitCode.USAGE : ExitCode.FAILED;
}

/** One command's row: what 0, 1, 2 (and 3 for validate) mean for it. */
export interface CommandExits {
  readonly 0: string;
  readonly 1: string;
  readonly 2: string;
  readonly 3?: string;
}

const SCHEDULE_ACTION: CommandExits = { 0: 'done', 1: 'Temporal unreachable', 2: 'bad configuration, or no such schedule' };

/** Every command (its path, as typed after `migrate`) and what its exit codes mean. */
export const COMMAND_EXITS: Readonly<Record<string, CommandExits>> = {
  doctor: {
    0: 'every check passed (warnings, such as no worker polling the task queue, are shown but do not fail)',
    1: 'a check failed',
    2: 'bad flag or configuration, or nothing to check (no configuration, or none for --role)',
  },
  inventory: { 0: 'counted', 1: 'the HMS cannot be read (an unknown database: HMS_NOT_FOUND)', 2: 'bad flag or configuration' },
  assess: { 0: 'assessed (whatever the classes)', 1: 'the HMS cannot be read', 2: 'bad configuration' },
  plan: {
    0: 'written (or, with --diff, compared)',
    1: 'the HMS or the catalog cannot be read',
    2: 'bad flags, configuration, lineage, pins or caps, or a plan file that fails its schema, version or hash (nothing is written)',
  },
  table: {
    0: 'migrated and validated (or, with --dry-run, decided)',
    1: 'refused, failed, or validation failed (then nothing stays registered), or an endpoint cannot be reached',
    2: 'bad flag, configuration or table name',
  },
  plans: { 0: 'listed (also when no plan is stored yet)', 1: 'the state DB or Temporal unreachable', 2: 'bad configuration' },
  show: {
    0: 'rendered: the report on stdout, or the files written (byte-identical to what migrate plan wrote)',
    1: 'the state DB unreachable (a plan id)',
    2: 'bad flag, configuration or output path, a plan file that fails its size, schema, version or hash, an unknown plan id (PLAN_INVALID), or a plan without its review section',
  },
  worker: {
    0: 'stopped by SIGINT or SIGTERM',
    1: "Temporal or the state DB unreachable, Temporal refused our TLS certificate or API key (TEMPORAL_TLS_*, TEMPORAL_AUTH_FAILED), or audit.keyEnv is configured but the audit chain's newest event is not keyed (AUDIT_KEY_NOT_ACTIVE; checked before polling)",
    2: 'bad flag or configuration',
  },
  apply: {
    0: 'started; with --wait, succeeded with no failed table (or failures --max-failed allowed, which the output says); a plan that already succeeded: nothing started (a no-op, which the output says)',
    1: 'with --wait, the plan failed, was cancelled or ended without a result, or a table failed that --max-failed did not allow; Temporal or the state DB unreachable',
    2: 'bad flag or configuration, a plan file that fails its size, schema, version, hash or signature (PLAN_HASH_MISMATCH, ...), or is unreadable, or a stale plan (PLAN_STALE: a table dropped or changed in HMS, or its target already registered, since the plan was made; nothing started; --accept-stale runs it anyway)',
  },
  approve: {
    0: 'approved, pre-approved (a later wave), or already approved',
    1: 'Temporal unreachable, no worker answered (TEMPORAL_NO_WORKER), or an approver not on audit.approvers (AUDIT_APPROVER_REFUSED)',
    2: 'bad flag or configuration, a plan never applied, a wave the plan does not have (WAVE_UNKNOWN), or a plan that already finished (PLAN_FINISHED)',
  },
  pause: {
    0: 'sent',
    1: 'Temporal unreachable',
    2: 'bad configuration, a plan never applied, or a plan that already finished (PLAN_FINISHED)',
  },
  resume: {
    0: 'sent',
    1: 'Temporal unreachable',
    2: 'bad configuration, a plan never applied, or a plan that already finished (PLAN_FINISHED)',
  },
  cancel: {
    0: 'sent',
    1: 'Temporal unreachable',
    2: 'bad configuration, a plan never applied, or a plan that already finished (PLAN_FINISHED)',
  },
  status: {
    0: 'running, waiting, or succeeded with no failed table (or failures --max-failed allowed, which the output says)',
    1: 'the plan failed or was cancelled, a table failed, the plan workflow ended without a result (TEMPORAL_WORKFLOW_ENDED; --json: error.context.status), no worker answers a running plan (TEMPORAL_NO_WORKER), or Temporal unreachable',
    2: 'bad configuration, or a plan never applied',
  },
  rollback: {
    0: 'every migrated table of the wave rolled back, appends other engines made since ours put back into Hive (a wave still applying is cancelled or waited for first, and the output says so); with --dry-run: no table would be refused',
    1: 'a table was refused (ROLLBACK_BLOCKED: commits since ours that cannot be put back into Hive, named by snapshot id; ROLLBACK_REFUSED; ROLLBACK_NOT_OURS; SOURCE_CHANGED; ROLLBACK_CANCELLED: the rollback was cancelled before the table was done), the wave did not end within --max-wait (ROLLBACK_REFUSED), the rollback workflow ended without a result, or Temporal or the state DB unreachable; with --dry-run: a table would be refused',
    2: 'bad flag or configuration, an unknown plan (PLAN_INVALID), a wave the plan does not have (WAVE_UNKNOWN), or views of a later wave still read the wave (ROLLBACK_ORDER: nothing was rolled back; --with-dependent-views rolls them back first)',
  },
  sync: {
    0: 'every table in scope is in sync: a snapshot was committed and validated, or nothing had changed (with --no-wait: the sync workflow was started)',
    1: 'a table was refused (SYNC_FOREIGN_COMMITS, SOURCE_CHANGED), its commit lost a race (CATALOG_CONFLICT), its validation failed (SYNC_VALIDATION_FAILED), or an endpoint is unreachable; the other tables were still synced. Through Temporal also: the sync workflow ended without a result (TEMPORAL_WORKFLOW_ENDED)',
    2: 'bad flag or configuration, an unknown plan, no migrated table in scope, or a named table that was cut over (SYNC_CUT_OVER)',
  },
  cutover: {
    0: 'every table in scope is cut over (fenced, synced, validated, marked), or already was (with --no-wait: the cutover workflow was started)',
    1: 'a table was refused or failed (CUTOVER_FENCE_CONFLICT, CUTOVER_NOT_MIGRATED, SYNC_FOREIGN_COMMITS, SOURCE_CHANGED, SYNC_VALIDATION_FAILED, …: the output names it; the others were still cut over), the cutover workflow ended without a result, or Temporal or the state DB unreachable',
    2: 'bad flag or configuration, an unknown plan (PLAN_INVALID), a wave the plan does not have (WAVE_UNKNOWN), or no migrated table in scope',
  },
  validate: {
    0: 'clean',
    1: 'a check could not run (an endpoint unreachable)',
    2: 'bad flag or configuration, an unknown plan, or nothing in scope',
    3: 'the checks ran and found drift',
  },
  'schedule create': {
    0: 'created',
    1: 'Temporal or the state DB unreachable',
    2: 'bad flag or configuration, an unknown plan, or the schedule exists',
  },
  'schedule list': { 0: 'listed', 1: 'Temporal unreachable', 2: 'bad configuration' },
  'schedule describe': SCHEDULE_ACTION,
  'schedule pause': SCHEDULE_ACTION,
  'schedule unpause': SCHEDULE_ACTION,
  'schedule delete': SCHEDULE_ACTION,
  'schedule trigger': SCHEDULE_ACTION,
  'audit verify': {
    0: 'the chain is intact and agrees with its anchor',
    1: 'the chain is broken (AUDIT_CHAIN_BROKEN) or disagrees with its anchor (AUDIT_ANCHOR_MISMATCH), or the state DB cannot be reached',
    2: 'bad configuration, or keyed events and no key',
  },
  'audit anchor': {
    0: 'the chain is intact and every event is anchored (an audit.anchored event recorded when some were not)',
    1: 'the chain fails verification for another reason (nothing recorded), or the state DB or the anchor location cannot be reached',
    2: 'bad configuration, or no audit.anchorLocation',
  },
  'audit activate-key': {
    0: 'the key is active on the chain (an audit.key-activated event recorded when it was not)',
    1: 'the chain fails verification (nothing recorded), or the state DB cannot be reached',
    2: 'bad configuration, or no audit.keyEnv',
  },
  repair: {
    0: 'nothing left (or, with --apply, all of it removed)',
    1: 'orphans found (or some could not be removed), or an endpoint unreachable',
    2: 'bad configuration, or an unknown plan',
  },
};

/** Words wrapped at `width` columns. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

/** The `Exit codes:` paragraph of a command's --help: its row of COMMAND_EXITS, one line per code (70 is the same everywhere). */
export function exitHelp(command: string): string {
  const row = COMMAND_EXITS[command];
  if (row === undefined) throw new Error(`no exit codes documented for '${command}' (core/exit-codes.ts COMMAND_EXITS)`);
  const codes = ([0, 1, 2, 3] as const).filter((c) => row[c] !== undefined).map((c) => [String(c), row[c] as string] as const);
  const lines = [...codes, ['70', 'internal error (a bug: please report it)'] as const].map(
    ([c, text]) => `  ${c.padEnd(3)}${wrap(text, 95).join('\n     ')}`,
  );
  return `Exit codes (docs/exit-codes.md):\n${lines.join('\n')}`;
}
