// How `migrate status` shows a plan's tables: per wave the counts (migrated, syncing and how many are
// behind, cut over and any other status by name), then the tables — every one when there are few
// (or with --table), else the ones behind or refused first, up to a limit (--json has them all).
import type { SincePlan } from '../core/plan/partition-set';
import type { SyncMark, TableLag, TableStatusRow, WaveTableCounts } from '../core/sync/lag';
import { isBehind } from '../core/sync/lag';

/** Tables listed one per line when the plan (or the selection) has at most this many; otherwise only the ones needing attention, up to it. */
export const TABLE_LINES = 50;

/** `1 table`, `2 tables`. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `2026-12-05T01:02:03.456Z` → `2026-12-05 01:02:03Z`. */
const when = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;

export function waveCountsLine(c: WaveTableCounts): string {
  const parts = [`${c.migrated} migrated`, `${c.syncing} syncing`];
  if (c.behind !== null)
    parts.push(
      c.behind === 0
        ? 'none behind'
        : `${c.behind} behind (${plural(c.partitionsBehind ?? 0, 'partition')}, ${plural(c.filesBehind ?? 0, 'file')} in new partitions)`,
    );
  for (const [phase, n] of Object.entries(c.other).sort(([a], [b]) => a.localeCompare(b)))
    parts.push(`${n} ${phase === 'cutover' ? 'cut over' : phase}`);
  return `  wave ${c.wave}: ${plural(c.tables, 'table')} — ${parts.join(', ')}`;
}

export function syncText(m: SyncMark | null): string {
  if (m === null) return 'never synced';
  const last = `last sync ${when(m.at)}`;
  if (m.outcome === 'refused') return `${last} refused: ${m.error?.code ?? '?'}`;
  const change =
    m.outcome === 'committed'
      ? `committed +${plural(m.filesAdded, 'file')}${m.filesRemoved > 0 ? ` −${m.filesRemoved}` : ''}, ${plural(m.partitionsChanged, 'partition')}`
      : 'in sync';
  return `${last} (${change})${m.snapshotId !== null ? `, snapshot ${m.snapshotId}` : ''}`;
}

export function lagText(l: TableLag): string {
  const parts = [
    ...(l.partitionsNew.count > 0 ? [`${plural(l.partitionsNew.count, 'new partition')} (${plural(l.filesInNewPartitions, 'file')})`] : []),
    ...(l.partitionsChanged.count > 0 ? [`${plural(l.partitionsChanged.count, 'changed partition')}`] : []),
    ...(l.partitionsDropped.count > 0 ? [`${plural(l.partitionsDropped.count, 'dropped partition')}`] : []),
  ];
  if (l.storage !== null)
    parts.push(
      l.storage.filesAdded + l.storage.filesRemoved === 0
        ? 'storage listed: in sync'
        : `storage listed: ${plural(l.storage.filesAdded, 'file')} to add${l.storage.filesRemoved > 0 ? `, ${l.storage.filesRemoved} to remove` : ''}`,
    );
  const how = l.exact ? '' : ' (from HMS; --list-storage for files added to existing partitions)';
  if (parts.length === 0) return `lag: none${how} (checked ${when(l.checkedAt)})`;
  return `lag: ${parts.join(', ')}${how} (checked ${when(l.checkedAt)})`;
}

export function tableLine(r: TableStatusRow, width: number): string {
  const phase = r.phase === 'cutover' ? 'cut over' : r.phase;
  const parts =
    r.phase === 'migrated' || r.phase === 'syncing'
      ? [syncText(r.lastSync)]
      : r.error !== undefined
        ? [`${r.error.code}: ${r.error.message}`]
        : r.snapshotId !== null
          ? [`snapshot ${r.snapshotId}`]
          : [];
  if (r.lag) parts.push(lagText(r.lag));
  if (r.lagError) parts.push(`lag not checked: ${r.lagError.code} ${r.lagError.message}`);
  return `    ${r.table.padEnd(width)}  ${phase.padEnd(9)} ${parts.join(' · ')}`.trimEnd();
}

const needsAttention = (r: TableStatusRow): boolean =>
  (r.lag !== undefined && r.lag !== null && isBehind(r.lag)) || r.lastSync?.outcome === 'refused' || r.lagError !== undefined;

export function sincePlanText(s: SincePlan): string[] {
  const added = s.partitions.added;
  return [
    `  since the plan: ${plural(added.count, 'partition')} added${added.exact ? '' : ' (not exact: a partition was dropped or added in the plan’s last second)'}${added.names.length > 0 ? `: ${added.names.slice(0, 10).join(', ')}${added.count > 10 ? ', …' : ''}` : ''}`,
    `  partitions planned ${s.partitions.planned ?? 'unknown'}, converted ${s.partitions.converted}; files planned ${s.files.planned}, converted ${s.files.converted}`,
  ];
}

/** The tables section of the status text. */
export function renderTables(rows: readonly TableStatusRow[], counts: readonly WaveTableCounts[], sincePlan?: SincePlan | null): string {
  const lines = ['tables:', ...counts.map(waveCountsLine)];
  const shown = rows.length <= TABLE_LINES ? rows : rows.filter(needsAttention).slice(0, TABLE_LINES);
  const width = Math.max(0, ...shown.map((r) => r.table.length));
  lines.push(...shown.map((r) => tableLine(r, width)));
  if (shown.length < rows.length)
    lines.push(`    … ${plural(rows.length - shown.length, 'more table')} (--table <db.t> for one, --json for all)`);
  if (sincePlan) lines.push(...sincePlanText(sincePlan));
  else if (sincePlan === null) lines.push('  since the plan: not recorded (the table was not validated by this version)');
  if (rows.some((r) => r.lag === undefined && (r.phase === 'migrated' || r.phase === 'syncing')))
    lines.push('  (lag not checked: add --lag to compare Hive’s partitions now with the last synced state)');
  return `${lines.join('\n')}\n`;
}
