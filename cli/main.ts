// `migrate`: the command-line entry point. Thin: parse, resolve config once, run, render text or
// JSON, and exit through one place with a documented code (STYLE.md §10).
import { Command, CommanderError, Option } from 'commander';
import { isMigrationError, ErrorCode } from '../core/errors';
import { loadConfig } from './config';
import { ExitCode } from './exit-codes';
import { PLAN_INPUT_CODES } from './plan-input';
import { renderDoctor, runDoctor } from './commands/doctor';
import { registerInventory } from './commands/inventory';
import { registerAssess } from './commands/assess';
import { registerPlan } from './commands/plan';
import { registerTable } from './commands/table';
import { registerOrchestration } from './commands/orchestrate';
import { registerValidation } from './commands/validate';
import { registerAudit } from './commands/audit';
import { registerRepair } from './commands/repair';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const WORKFLOW = `
A migration, step by step (every command takes --config and most take --json):
  migrate doctor -c migrate.yaml                          check every endpoint
  migrate assess -c migrate.yaml                          class + coded findings per table
  migrate plan -c migrate.yaml --out plan.json --report plan.html --graph plan.svg
  migrate worker -c migrate.yaml &                        Temporal worker (run it where the data is reachable)
  migrate apply plan.json -c migrate.yaml                 waves wait for: migrate approve <plan-id> --wave N
  migrate status <plan-id> --watch                        progress per wave and table
  migrate rollback <plan-id> --wave N                     unregister without purge, delete only our metadata
  migrate schedule create <plan-id>                       nightly drift checks; migrate validate <plan-id> on demand
  migrate audit verify                                    the hash-chained audit log is intact
`;

const EXIT_HELP = `
Exit codes: 0 ok · 1 a check or operation failed · 2 bad usage or configuration · 3 drift found (validate) · 70 internal error

Configuration: one YAML file (--config, $MIGRATE_CONFIG, or ./migrate.yaml), overridden by
environment variables MIGRATE__<SECTION>__<KEY> (e.g. MIGRATE__TEMPORAL__ADDRESS=host:7233) and by
--set section.key=value flags; validated once, errors name the exact path.
`;

interface GlobalOpts {
  config?: string;
  set: string[];
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

export function buildProgram(io: { out: (s: string) => void; err: (s: string) => void; setExit: (c: number) => void }): Command {
  const program = new Command('migrate')
    .description('Move Hive Metastore tables onto Apache Iceberg, metadata-only, orchestrated by Temporal.')
    .option('-c, --config <file>', 'configuration file (YAML)')
    .option('--set <key=value>', 'override one config value, e.g. --set temporal.address=127.0.0.1:7233 (repeatable)', collect, [])
    .showHelpAfterError('(run migrate --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .addHelpText('after', `${WORKFLOW}${EXIT_HELP}`);

  program
    .command('doctor')
    .description('check every configured endpoint (HMS, Iceberg catalog, S3, Temporal, state DB): version, latency, remedy on failure')
    .option('--json', 'machine-readable output')
    .addOption(new Option('--timeout <ms>', 'per-check timeout in milliseconds').default(10_000).argParser((v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 100) throw new CommanderError(ExitCode.USAGE, 'migrate.usage', `--timeout must be an integer >= 100, got '${v}'`);
      return n;
    }))
    .addHelpText('after', `
Examples:
  migrate doctor --config migrate.yaml
  migrate doctor --config .stack/migrate.yaml --json
  MIGRATE__TEMPORAL__ADDRESS=temporal.internal:7233 migrate doctor -c prod.yaml --timeout 3000

Exit code 1 when any check fails.`)
    .action(async (opts: { json?: boolean; timeout: number }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      const { config } = loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() });
      const checks = await runDoctor(config, opts.timeout, process.env);
      io.out(opts.json ? `${JSON.stringify({ ok: checks.every((c) => c.ok), checks }, null, 2)}\n` : renderDoctor(checks));
      io.setExit(checks.every((c) => c.ok) ? ExitCode.OK : ExitCode.FAILED);
    });

  registerInventory(program, io);
  registerAssess(program, io);
  registerPlan(program, io);
  registerTable(program, io);
  registerOrchestration(program, io);
  registerValidation(program, io);
  registerAudit(program, io);
  registerRepair(program, io);

  return program;
}

/** The one exit point. */
export async function main(argv: readonly string[]): Promise<number> {
  let code: number = ExitCode.OK;
  const io = { out: (s: string) => void process.stdout.write(s), err: (s: string) => void process.stderr.write(s), setExit: (c: number) => (code = c) };
  const program = buildProgram(io);
  const json = argv.includes('--json');
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
      if (e.code === 'migrate.usage') io.err(`error: ${e.message}\n`);
      return ExitCode.USAGE;
    }
    if (isMigrationError(e)) {
      const usage = e.code === ErrorCode.CONFIG_INVALID || e.code === ErrorCode.CONFIG_NOT_FOUND || e.code === ErrorCode.USAGE || PLAN_INPUT_CODES.has(e.code);
      if (json) io.out(`${JSON.stringify({ ok: false, error: { code: e.code, message: e.message, context: e.context } }, null, 2)}\n`);
      else io.err(`error [${e.code}]: ${e.message}\n`);
      return usage ? ExitCode.USAGE : ExitCode.FAILED;
    }
    io.err(`internal error: ${(e as Error).stack ?? String(e)}\nThis is a bug; please report it with the command you ran.\n`);
    return ExitCode.INTERNAL;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((c) => process.exit(c));
}
