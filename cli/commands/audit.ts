// `migrate audit verify`: re-hash the whole audit chain and check it against every external anchor;
// `audit anchor` and `audit activate-key`, the operator's two audited actions on the chain
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
      `anchors: ${v.anchorsChecked ?? 1} checked, the newest ${r.anchorPath} matches event ${v.anchor.seq}${v.unanchored ? `; ${v.unanchored} newer keyed event(s) not anchored (their anchor write failed: see the warnings of the process that wrote them; the key protects them)` : ''}`,
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
    anchorsChecked: v.anchorsChecked ?? null,
  };
  return `${JSON.stringify(v.ok ? base : { ...base, error: { code: v.code, message: v.reason, brokenAt: v.brokenAt } })}\n`;
}

/** Exit code of a verdict: intact 0, CONFIG_INVALID 2, otherwise 1. */
const exitOf = (v: AuditReport['verdict']): number =>
  v.ok ? ExitCode.OK : v.code === ErrorCode.CONFIG_INVALID ? ExitCode.USAGE : ExitCode.FAILED;

export function registerAudit(program: Command, io: IO): void {
  const audit = program.command('audit').description('the append-only, hash-chained audit log');
  audit
    .command('verify')
    .description(
      're-hash the whole chain and check it against every external anchor; exit 1 at the first edited, removed, reordered, downgraded or unanchored forged event, or a deleted head',
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
      io.setExit(exitOf(r.verdict));
    });
  audit
    .command('anchor')
    .description(
      'after a failed anchor write: record that you reviewed the unanchored events (an audit.anchored event) and anchor the head; refused when the chain fails for any other reason',
    )
    .option('--json', 'machine-readable output (errors too)')
    .addHelpText('after', '\nExamples:\n  migrate audit anchor -c migrate.yaml\n\nSee docs/audit.md.\n' + exitHelp('audit anchor'))
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { anchorAudit } = await import('../../app/audit');
      const r = await anchorAudit(await configOf(cmd), process.env);
      const note = r.anchored > 0 ? `anchored ${r.anchored} reviewed event(s)\n` : r.verdict.ok ? 'nothing to anchor\n' : '';
      io.out(opts.json ? `${JSON.stringify({ ...JSON.parse(renderJson(r)), anchored: r.anchored })}\n` : note + renderText(r));
      io.setExit(exitOf(r.verdict));
    });
  audit
    .command('activate-key')
    .description(
      'start the keyed chain once, after configuring audit.keyEnv on a chain that has events (writers with a key refuse to append to an unkeyed head); refused when the chain does not verify',
    )
    .option('--json', 'machine-readable output (errors too)')
    .addHelpText(
      'after',
      '\nExamples:\n  MIGRATE_AUDIT_KEY=$(cat key) migrate audit activate-key -c migrate.yaml\n\nSee docs/audit.md.\n' +
        exitHelp('audit activate-key'),
    )
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { activateKey } = await import('../../app/audit');
      const r = await activateKey(await configOf(cmd), process.env);
      const note = r.activated ? 'key activated\n' : r.verdict.ok ? 'the key was already active\n' : '';
      io.out(opts.json ? `${JSON.stringify({ ...JSON.parse(renderJson(r)), activated: r.activated })}\n` : note + renderText(r));
      io.setExit(exitOf(r.verdict));
    });
}
