// How a plan's status and outcome read on the terminal and in --json (apply --wait, status).
import { ExitCode } from '../core/exit-codes';
import { planId } from '../core/plan/ids';
import type { MigrationStatus, Outcome } from '../app/apply/plan-workflow';
import type { WaveCutover } from '../app/status/status';
import { plural } from './render-tables';
import type { WaveTable } from '../core/state/wave-line';
import { waveLine } from '../core/state/wave-line';

/** `wave N: cut over …; fenced …` lines (migrate cutover), after the waves. */
export function renderCutover(cut: readonly WaveCutover[] | undefined): string {
  return (cut ?? [])
    .map(
      (c) =>
        `  wave ${c.wave}: ${c.cutover.length} cut over${c.cutover.length ? ` (${c.cutover.join(', ')})` : ''}${c.fenced.length ? `; ${c.fenced.length} fenced, not yet cut over (${c.fenced.join(', ')})` : ''}\n`,
    )
    .join('');
}

/**
 * The plan's lines. With `tables` (the state store's rows: `migrate status`), each wave's line says
 * where its tables stand now (core/state/wave-line.ts: rolled back, cut over, …); without (apply
 * --wait, or the state store did not answer), how its run ended.
 */
export function renderStatus(s: MigrationStatus, o: Outcome, tables?: readonly (WaveTable & { readonly wave: number })[]): string {
  const lines = [`plan ${planId(s.planHash)}: ${s.state}${s.currentWave !== null ? ` (wave ${s.currentWave} of ${s.totalWaves})` : ''}`];
  for (const w of s.waves) {
    const mine = tables?.filter((t) => t.wave === w.wave) ?? [];
    if (mine.length > 0) {
      const l = waveLine(w.status, mine);
      lines.push(`  wave ${w.wave}: ${l.status} (${plural(mine.length, 'table')}) — ${l.parts.join(', ')}`);
      continue;
    }
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

/** --json: each wave of the run with `tableStatus`, where its tables stand now (as the text line says). */
export function wavesJson(s: MigrationStatus, tables: readonly (WaveTable & { readonly wave: number })[]): unknown[] {
  return s.waves.map((w) => {
    const mine = tables.filter((t) => t.wave === w.wave);
    return mine.length === 0 ? w : { ...w, tableStatus: waveLine(w.status, mine) };
  });
}

/** The outcome's JSON fields: `ok` (the exit code is 0), failed tables, and the --max-failed note when one applies. */
export function outcomeJson(o: Outcome): { ok: boolean; failedTables: number; note?: string } {
  return { ok: o.exit === ExitCode.OK, failedTables: o.failedTables, ...(o.note !== undefined ? { note: o.note } : {}) };
}
