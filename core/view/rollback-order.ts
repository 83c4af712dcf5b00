// Rollback order of views: the still-migrated views of later waves that read a wave's tables,
// directly or through one another, in the order they must be rolled back before it (latest wave
// first, each wave's views in reverse order). Pure; no I/O.
import type { TableRecord } from '../state/store';
import { nothingToRollBack } from '../state/status';
import type { ViewSqlParser } from './view-deps';
import { viewReferences } from './view-deps';

export interface LiveView {
  /** `db.view` */
  readonly id: string;
  readonly wave: number;
  /** The `db.table` names its saved Hive SQL reads; null when they cannot be read (counted as reading everything). */
  readonly reads: readonly string[] | null;
}

/** The views (of waves after `wave`) that read `tables`, transitively, latest wave first. */
export function dependentViews(wave: number, tables: readonly string[], views: readonly LiveView[]): LiveView[] {
  const reached = new Set(tables.map((t) => t.toLowerCase()));
  const out: LiveView[] = [];
  const later = views.filter((v) => v.wave > wave);
  for (let changed = true; changed; ) {
    changed = false;
    for (const v of later) {
      if (out.includes(v)) continue;
      if (v.reads === null || v.reads.some((r) => reached.has(r.toLowerCase()))) {
        out.push(v);
        reached.add(v.id.toLowerCase());
        changed = true;
      }
    }
  }
  return out.sort((a, b) => b.wave - a.wave || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** The still-migrated views of waves after `wave` among a plan's records, with what their saved Hive SQL reads (`parser` unset: unknown). */
export function liveViewsAfter(recs: readonly TableRecord[], wave: number, parser: ViewSqlParser | undefined): LiveView[] {
  return recs
    .filter((r) => r.wave > wave && !nothingToRollBack(r) && r.original?.table.tableType === 'VIRTUAL_VIEW')
    .map((r) => {
      const t = r.original!.table;
      const refs = parser === undefined ? null : viewReferences(parser, t.database, t.viewExpandedText, t.viewOriginalText);
      return { id: r.tableId, wave: r.wave, reads: refs?.ok === true ? refs.tables : null };
    });
}

/** The refusal's text: each view with its wave. */
export function describeDependents(views: readonly LiveView[]): string {
  return views.map((v) => `${v.id} (wave ${v.wave})`).join(', ');
}
