// `migrate doctor`: what apply needs, checked with real round trips (app/doctor/doctor.ts): version,
// latency, and for a failure or a warning its code and remedy. Exit 1 when any check fails; a
// warning (no worker polls the task queue yet) is shown and counted but does not change the exit
// code. Nothing to check (no config) is exit 2: a deployment gate that checks nothing must not pass.
import type { Command } from 'commander';
import { Option } from 'commander';
import { ErrorCode, MigrationError } from '../../core/errors';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { Check, DoctorRole } from '../../app/doctor/doctor';
import { FLAG_RANGES, intFlag } from '../flags';
import type { IO } from '../output';
import { configOf } from '../output';

const LABEL = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;

export function renderDoctor(checks: readonly Check[]): string {
  const lines = checks.map((c) => {
    const head = `${LABEL[c.status]}  ${c.component.padEnd(8)} ${c.check.padEnd(17)} ${c.endpoint}`;
    const meta = [c.version ? `version ${c.version}` : undefined, c.latencyMs !== undefined ? `${c.latencyMs} ms` : undefined, c.detail]
      .filter(Boolean)
      .join(' · ');
    return c.status === 'ok'
      ? `${head}\n      ${meta}`
      : `${head}\n      [${c.code ?? 'ERROR'}] ${c.detail.split('\n')[0]}\n      fix: ${c.remedy}`;
  });
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warned = checks.filter((c) => c.status === 'warn').length;
  const warnings = warned === 0 ? '' : `, ${warned} warning${warned === 1 ? '' : 's'}`;
  const summary = failed === 0 ? `all ${checks.length} checks passed${warnings}` : `${failed} of ${checks.length} checks failed${warnings}`;
  return `${lines.join('\n')}\n\n${summary}\n`;
}

/** Adds `doctor` to the program (cli/main.ts calls this). */
export function registerDoctor(program: Command, io: IO): void {
  program
    .command('doctor')
    .description(
      'check what apply needs: every endpoint (HMS, Iceberg catalog, S3, Temporal, state DB) reachable, the catalog token set, the Temporal search attributes and workers, the state DB writable',
    )
    .option('--json', 'machine-readable output')
    .addOption(
      new Option(
        '--role <role>',
        'check only what one process needs: workflows (Temporal), activities (everything), client (all but the results location)',
      )
        .choices(['all', 'workflows', 'activities', 'client'])
        .default('all'),
    )
    .option(
      '--timeout <ms>',
      `per-check timeout in milliseconds (${FLAG_RANGES.doctorTimeoutMs.min}-${FLAG_RANGES.doctorTimeoutMs.max})`,
      intFlag('--timeout', FLAG_RANGES.doctorTimeoutMs),
      10_000,
    )
    .addHelpText(
      'after',
      `
Examples:
  migrate doctor --config migrate.yaml
  migrate doctor --config .stack/migrate.yaml --json
  migrate doctor -c /etc/migrate/migrate.yaml --role workflows   # a workflow worker's init container: Temporal only
  MIGRATE__TEMPORAL__ADDRESS=temporal.internal:7233 migrate doctor -c prod.yaml --timeout 3000

Each check prints ok, warn or FAIL; warn and FAIL carry a code (docs/errors.md) and a fix.
A warning (no worker polls the task queue) does not change the exit code; --json has "warnings": n.
${exitHelp('doctor')}`,
    )
    .action(async (opts: { json?: boolean; timeout: number; role: DoctorRole }, cmd: Command) => {
      const { runDoctor } = await import('../../app/doctor/doctor');
      const checks = await runDoctor(await configOf(cmd), opts.timeout, process.env, opts.role);
      // A gate that checks nothing must not pass: no config (or none for this role) is a usage error.
      if (checks.length === 0)
        throw new MigrationError(
          ErrorCode.USAGE,
          `nothing to check${opts.role === 'all' ? '' : ` for --role ${opts.role}`}: the configuration names no endpoint. Pass --config migrate.yaml (or set MIGRATE_CONFIG; see migrate.example.yaml).`,
        );
      const warnings = checks.filter((c) => c.status === 'warn').length;
      io.out(opts.json ? `${JSON.stringify({ ok: checks.every((c) => c.ok), warnings, checks }, null, 2)}\n` : renderDoctor(checks));
      io.setExit(checks.every((c) => c.ok) ? ExitCode.OK : ExitCode.FAILED);
    });
}
