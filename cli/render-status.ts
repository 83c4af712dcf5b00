// How a plan's status and outcome read on the terminal and in --json (apply --wait, status).
import { ExitCode } from '../core/exit-codes';
import { planId } from '../core/plan/ids';
import type { MigrationStatus, Outcome } from '../app/plan-workflow';
import type { WaveCutover } from '../app/status';
import { plural } from './render-tables';

/** `wave N: cut over …; fenced …` lines (migrate cutover), after the waves. */
export function renderCutover(cut: readonly WaveCutover[] | undefined): string {
  return (cut ?? [])
    .map(
      (c) =>
        `  wave ${c.wave}: ${c.cutover.length} cut over${c.cutover.length ? ` (${c.cutover.join(', ')})` : ''}${c.fenced.length ? `; ${c.fenced.length} fenced, not yet cut over (${c.fenced.join(', ')})` : ''}\n`,
    )
    .join('');
}

export function renderStatus(s: MigrationStatus, o: Outcome): string {
  const lines = [`plan ${planId(s.planHash)}: ${s.state}${s.currentWave !== null ? ` (wave ${s.currentWave} of ${s.totalWaves})` : ''}`];
  for (const w of s.waves) {
    const parts = [
      `${w.migrated} migrated`,
      ...(w.skipped ? [`${w.skipped} view(s) unchanged`] : []),
      ...(w.failed.length ? [`${w.failed.length} failed: ${w.failed.map((f) => `${f.tableId} (${f.code})`).join(', ')}`] : []),
    ];
    lines.push(`  wave ${w.wave}: ${w.status} (${plural(w.tables, 'table')}) — ${parts.join(', ')}`);
  }
  if (o.note !== undefined) lines.push(o.note);
  else if (o.failedTables > 0) lines.push(`${o.failedTables} table${o.failedTables === 1 ? '' : 's'} failed`);
  if (s.state === 'waiting-approval' && s.currentWave !== null)
    lines.push(`next: migrate approve ${planId(s.planHash)} --wave ${s.currentWave}`);
  return `${lines.join('\n')}\n`;
}

/** The outcome's JSON fields: `ok` (the exit code is 0), failed tables, and the --max-failed note when one applies. */
export function outcomeJson(o: Outcome): { ok: boolean; failedTables: number; note?: string } {
  return { ok: o.exit === ExitCode.OK, failedTables: o.failedTables, ...(o.note !== undefined ? { note: o.note } : {}) };
}
