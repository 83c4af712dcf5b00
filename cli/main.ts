#!/usr/bin/env node
// `migrate`: the command-line entry point. Thin: parse, resolve config once, run, render text or
// JSON, and exit through one place with a documented code (docs/architecture.md "Habits" 10). Starts fast: every
// command registers with its flags and help only; its application module (app/*, and with it
// Temporal, the AWS SDK, the SQL parser, zod) is imported when the command runs. The compile cache
// first: every module after it loads from V8's cached code (./compile-cache.ts).
import './compile-cache';
import { maskSecrets } from '../core/mask';
import { Command, CommanderError } from 'commander';
import { ErrorCode, isMigrationError } from '../core/errors';
import { ExitCode } from '../core/exit-codes';
import { errorJson, renderError, renderUsage, setHintConfig } from './output';
import type { GlobalOpts } from './output';
import { versionInfo } from '../app/runtime/version';
import type { IO } from './output';
import { registerDoctor } from './commands/doctor';
import { registerInventory } from './commands/inventory';
import { registerAssess } from './commands/assess';
import { registerPlan } from './commands/plan';
import { registerPlans } from './commands/plans';
import { registerTable } from './commands/table';
import { registerOrchestration } from './commands/orchestrate';
import { registerValidation } from './commands/validate';
import { registerAudit } from './commands/audit';
import { registerRepair } from './commands/repair';
import { registerSync } from './commands/sync';
import { registerCutover } from './commands/cutover';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const WORKFLOW = `
A migration, step by step (every command takes --config and --json):
  migrate doctor -c migrate.yaml                          check every endpoint
  migrate assess -c migrate.yaml                          class + coded findings per table
  migrate plan -c migrate.yaml --out plan.json --report plan.html --graph plan.svg
  migrate worker -c migrate.yaml &                        Temporal worker (run it where the data is reachable)
  migrate apply plan.json -c migrate.yaml                 waves wait for: migrate approve <plan-id> --wave N
  migrate status <plan-id> --watch                        progress per wave and table
  migrate rollback <plan-id> --wave N                     unregister without purge, delete only our metadata
  migrate sync <plan-id>                                  Hive kept changing: new Iceberg snapshots, metadata-only
  migrate cutover <plan-id> --wave N                      fence Hive writers, final sync + validation: Iceberg is the table
  migrate schedule create <plan-id>                       nightly drift checks; migrate validate <plan-id> on demand
  migrate audit verify                                    the hash-chained audit log is intact
`;

const EXIT_HELP = `
Exit codes (every command; its --help says which apply, docs/exit-codes.md has the table):
  0 ok · 1 a check or operation failed · 2 bad usage, configuration or input file (nothing was
  attempted) · 3 drift found (validate) · 70 internal error (a bug: please report it)
With --json, errors are one JSON object on stdout: {"ok": false, "error": {"code", "message", "context"}}.

Configuration: one YAML file (--config, $MIGRATE_CONFIG, or ./migrate.yaml), overridden by
environment variables MIGRATE__<SECTION>__<KEY> (e.g. MIGRATE__TEMPORAL__ADDRESS=host:7233) and by
--set section.key=value flags; validated once, errors name the exact path and its source.
`;

/** `migrate --version`: tool, Node, Temporal SDK and HMS IDL versions (JSON with --json). */
function renderVersion(json: boolean): string {
  const v = versionInfo();
  if (json) return `${JSON.stringify({ ok: true, ...v })}\n`;
  return `migrate ${v.tool}\nnode ${v.node}\ntemporal-sdk ${v.temporalSdk}\nhms-idl ${v.hmsIdl} (Hive Metastore Thrift IDL)\n`;
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

/** The program; `json` (the command line asked for --json) sends commander's own errors to the JSON renderer. */
export function buildProgram(io: IO, json = false): Command {
  const program = new Command('migrate')
    .description('Move Hive Metastore tables onto Apache Iceberg, metadata-only, orchestrated by Temporal.')
    .option('-c, --config <file>', 'configuration file (YAML)')
    .option('--set <key=value>', 'override one config value, e.g. --set temporal.address=127.0.0.1:7233 (repeatable)', collect, [])
    .option('-V, --version', 'print the tool, Node, Temporal SDK and HMS IDL versions')
    .showHelpAfterError('(run migrate --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (s, write) => (json ? undefined : write(s)) })
    .addHelpText('after', `${WORKFLOW}${EXIT_HELP}`);
  program.hook('preAction', (_program, action) => setHintConfig(action.optsWithGlobals<GlobalOpts>().config));
  program.on('option:version', () => {
    io.out(renderVersion(json));
    throw new CommanderError(ExitCode.OK, 'commander.version', 'version printed');
  });

  registerDoctor(program, io);
  registerInventory(program, io);
  registerAssess(program, io);
  registerPlan(program, io);
  registerPlans(program, io);
  registerTable(program, io);
  registerOrchestration(program, io);
  registerValidation(program, io);
  registerSync(program, io);
  registerCutover(program, io);
  registerAudit(program, io);
  registerRepair(program, io);

  return program;
}

/** Run one command line with `io` and return its exit code: every outcome and error leaves here. */
export async function runCli(argv: readonly string[], out: Pick<IO, 'out' | 'err'>): Promise<number> {
  let code: number = ExitCode.OK;
  // Everything printed goes through the one masking (core/mask.ts): no URI's secret reaches stdout or stderr.
  const io: IO = { out: (s) => out.out(maskSecrets(s)), err: (s) => out.err(maskSecrets(s)), setExit: (c) => (code = c) };
  const json = argv.includes('--json');
  const program = buildProgram(io, json);
  setHintConfig(undefined);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.USAGE;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return ExitCode.OK;
      return renderUsage(e.message, json, io);
    }
    if (isMigrationError(e)) return renderError(e, json, io);
    if (json) io.out(errorJson(ErrorCode.INTERNAL, (e as Error).message ?? String(e)));
    io.err(`internal error: ${(e as Error).stack ?? String(e)}\nThis is a bug; please report it with the command you ran.\n`);
    return ExitCode.INTERNAL;
  }
}

/**
 * The one exit point of the process. A reader that goes away (`migrate --help | head -1`: EPIPE)
 * stops our output, not the command: it finishes what it started (a plan's outputs, a submitted
 * apply) and exits with its own code, printing nothing more.
 */
export function main(argv: readonly string[]): Promise<number> {
  let gone = false;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    gone = true;
  });
  return runCli(argv, { out: (s) => void (gone || process.stdout.write(s)), err: (s) => void process.stderr.write(s) });
}

/**
 * Exit with `code` once stdout and stderr have flushed: to a pipe Node writes asynchronously, and
 * exiting right after a large write cut it (`migrate status --json | jq` of a 1,000-table plan got
 * the first 128 KiB). An empty write's callback runs after every write queued before it. A
 * closed reader (EPIPE) exits at once with the same code.
 */
export function exitAfterFlush(code: number, streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  let left = streams.length;
  const done = (): void => {
    if (--left === 0) process.exit(code);
  };
  if (left === 0) process.exit(code);
  for (const s of streams) {
    // The reader went away (`| head`: EPIPE): nothing more can arrive; exit with the command's code.
    s.once('error', () => process.exit(code));
    s.write('', done);
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((c) => exitAfterFlush(c));
}
