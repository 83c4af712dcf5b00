// `migrate doctor`: one real round trip to every configured endpoint (app/doctor.ts), with
// version, latency and, on failure, the remedy. Exit 1 when any check fails.
import type { Command } from 'commander';
import { ExitCode } from '../../core/exit-codes';
import type { Check } from '../../app/doctor';
import { FLAG_RANGES, intFlag } from '../flags';
import type { IO } from '../output';
import { configOf } from '../output';

export function renderDoctor(checks: readonly Check[]): string {
  if (checks.length === 0) {
    return 'Nothing to check: the configuration names no endpoint. Pass --config migrate.yaml (see migrate.example.yaml).\n';
  }
  const lines = checks.map((c) => {
    const head = `${c.ok ? 'ok  ' : 'FAIL'}  ${c.component.padEnd(8)} ${c.endpoint}`;
    const meta = [c.version ? `version ${c.version}` : undefined, c.latencyMs !== undefined ? `${c.latencyMs} ms` : undefined, c.detail]
      .filter(Boolean)
      .join(' · ');
    return c.ok ? `${head}\n      ${meta}` : `${head}\n      [${c.code ?? 'ERROR'}] ${c.detail.split('\n')[0]}\n      fix: ${c.remedy}`;
  });
  const failed = checks.filter((c) => !c.ok).length;
  return `${lines.join('\n')}\n\n${failed === 0 ? `all ${checks.length} checks passed` : `${failed} of ${checks.length} checks failed`}\n`;
}

/** Adds `doctor` to the program (cli/main.ts calls this). */
export function registerDoctor(program: Command, io: IO): void {
  program
    .command('doctor')
    .description('check every configured endpoint (HMS, Iceberg catalog, S3, Temporal, state DB): version, latency, remedy on failure')
    .option('--json', 'machine-readable output')
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
  MIGRATE__TEMPORAL__ADDRESS=temporal.internal:7233 migrate doctor -c prod.yaml --timeout 3000

Exit codes: 0 every check passed; 1 a check failed; 2 bad flag or configuration.`,
    )
    .action(async (opts: { json?: boolean; timeout: number }, cmd: Command) => {
      const { runDoctor } = await import('../../app/doctor');
      const checks = await runDoctor(await configOf(cmd), opts.timeout, process.env);
      io.out(opts.json ? `${JSON.stringify({ ok: checks.every((c) => c.ok), checks }, null, 2)}\n` : renderDoctor(checks));
      io.setExit(checks.every((c) => c.ok) ? ExitCode.OK : ExitCode.FAILED);
    });
}
