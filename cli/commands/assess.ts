// `migrate assess`: read every table (Thrift, or the HMS backing database when hms.db is
// configured), run the assessment rules and print each table's class with its coded findings. The
// pipeline is app/plan/assess.ts; this file parses flags and renders.
import type { Command } from 'commander';
import { Option } from 'commander';
import { compareIds } from '../../core/plan/compare-ids';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { AssessResult } from '../../app/plan/assess';
import type { HmsSource } from '../../app/runtime/runtime';
import { collect } from '../flags';
import { configOf, hint } from '../output';
import type { IO } from '../output';
import { plural } from '../render-tables';

export function renderAssess(r: AssessResult): string {
  const lines: string[] = [];
  const counts = new Map<string, number>();
  for (const t of r.tables) {
    counts.set(t.class, (counts.get(t.class) ?? 0) + 1);
    lines.push(`${t.id.padEnd(40)} ${t.kind.padEnd(5)} ${t.class.padEnd(22)} ${t.team ?? '-'}`);
    for (const f of t.findings) lines.push(`    ${f.severity.padEnd(7)} ${f.code}: ${f.evidence}\n            → ${f.remediation}`);
  }
  const summary = [...counts.entries()]
    .sort(([a], [b]) => compareIds(a, b))
    .map(([c, n]) => `${c} ${n}`)
    .join(' · ');
  lines.push(
    '',
    `${plural(r.tables.length, 'table')}: ${summary || 'none'}`,
    `next: ${hint('migrate plan --out plan.json --report plan.md --graph plan.svg')}`,
  );
  return `${lines.join('\n')}\n`;
}

export function registerAssess(program: Command, io: IO): void {
  program
    .command('assess')
    .description('classify every HMS table (migrate / migrate-with-warnings / rewrite-required / skip) with coded findings')
    .option('--database <name>', 'only this database (repeatable)', collect, [])
    .addOption(sourceOption())
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
Examples:
  migrate assess --config migrate.yaml
  migrate assess -c migrate.yaml --database sales --json

${exitHelp('assess')}`,
    )
    .action(async (opts: { database: string[]; source?: HmsSource; json?: boolean }, cmd: Command) => {
      const { runAssess } = await import('../../app/plan/assess');
      const r = await runAssess(await configOf(cmd), opts.database, opts.source);
      io.out(opts.json ? `${JSON.stringify({ ok: true, tables: r.tables, edges: r.edges }, null, 2)}\n` : renderAssess(r));
      io.setExit(ExitCode.OK);
    });
}

/** `--source thrift|db` of assess and plan: default the backing database when hms.db is configured, else Thrift. */
export function sourceOption(): Option {
  return new Option(
    '--source <source>',
    'read HMS over Thrift or from its backing database (default: db when hms.db.url is configured, else thrift)',
  ).choices(['thrift', 'db']);
}
