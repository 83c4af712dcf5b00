// `migrate audit verify`: re-hash the whole audit chain and check it against its external anchor
// (app/audit.ts; docs/audit.md).
import type { Command } from 'commander';
import { ErrorCode } from '../../core/errors';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { AuditReport } from '../../app/audit';
import { configOf } from '../output';
import type { IO } from '../output';

function renderText(r: AuditReport): string {
  const v = r.verdict;
  if (!v.ok) {
    const anchor = r.anchorPath === null ? '' : `\nanchor: ${r.anchorPath} (event ${v.anchor?.seq}, hash ${v.anchor?.hash.slice(0, 16)}…)`;
    return `audit log BROKEN [${v.code}] at event ${v.brokenAt}: ${v.reason}${anchor}\n`;
  }
  const lines = [`audit log intact: ${v.events} events (${v.keyed} keyed), head ${v.head.slice(0, 16)}`];
  if (r.anchorLocation === null)
    lines.push('no external anchor configured (audit.anchorLocation): deleting the newest events or emptying the table cannot be detected');
  else if (v.anchor === undefined) lines.push(`no anchor found under ${r.anchorLocation} yet: the next audited action writes one`);
  else
    lines.push(
      `anchor: ${r.anchorPath} matches event ${v.anchor.seq}${v.unanchored ? `; ${v.unanchored} newer event(s) not anchored (their anchor write failed: see the warnings of the process that wrote them)` : ''}`,
    );
  return `${lines.join('\n')}\n`;
}

function renderJson(r: AuditReport): string {
  const v = r.verdict;
  const anchor = v.anchor === undefined ? null : { ...v.anchor, path: r.anchorPath };
  const base = {
    ok: v.ok,
    events: v.events,
    keyed: v.keyed,
    head: v.head,
    anchorLocation: r.anchorLocation,
    anchor,
    unanchored: v.unanchored ?? null,
  };
  return `${JSON.stringify(v.ok ? base : { ...base, error: { code: v.code, message: v.reason, brokenAt: v.brokenAt } })}\n`;
}

export function registerAudit(program: Command, io: IO): void {
  const audit = program.command('audit').description('the append-only, hash-chained audit log');
  audit
    .command('verify')
    .description(
      're-hash the whole chain and check it against its external anchor; exit 1 at the first edited, removed or reordered event, or a deleted head',
    )
    .option('--json', 'machine-readable output (errors too)')
    .addHelpText(
      'after',
      '\nExamples:\n  migrate audit verify -c migrate.yaml\n  migrate audit verify -c migrate.yaml --json\n\nSee docs/audit.md.\n' +
        exitHelp('audit verify'),
    )
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { verifyAudit } = await import('../../app/audit');
      const r = await verifyAudit(await configOf(cmd), process.env);
      io.out(opts.json ? renderJson(r) : renderText(r));
      io.setExit(r.verdict.ok ? ExitCode.OK : r.verdict.code === ErrorCode.CONFIG_INVALID ? ExitCode.USAGE : ExitCode.FAILED);
    });
}
