// A wave's line in `migrate status`, from where its tables stand now (the state store) rather than
// from how its apply run ended: a wave applied, then rolled back or cut over, reads so. Pure; no I/O.
import { inFlight, isLive } from './status';
import type { TableStatus } from './store';

export interface WaveTable {
  readonly table: string;
  readonly status: string;
  readonly error?: { readonly code: string } | undefined;
}

export interface WaveLine {
  /** The run's status (succeeded, failed, cancelled), or what the tables say since: rolled back, cut over, partly so. */
  readonly status: string;
  /** Counts by where the tables stand, in a fixed order ("4 migrated", "2 rolled back", "1 failed: t (CODE)"). */
  readonly parts: readonly string[];
}

const ORDER: readonly [string, string][] = [
  ['migrated', 'migrated'],
  ['fenced', 'fenced'],
  ['cutover', 'cut over'],
  ['rolled-back', 'rolled back'],
  ['view-created', 'view(s) created'],
  ['skipped', 'view(s) unchanged'],
  ['in-flight', 'in flight'],
  ['pending', 'not started'],
];

const bucket = (s: string): string => (inFlight(s as TableStatus) ? 'in-flight' : s);

/** The wave's line from its tables; `runStatus` is how its apply run ended (or `running`). */
export function waveLine(runStatus: string, tables: readonly WaveTable[]): WaveLine {
  if (tables.length === 0) return { status: runStatus, parts: [] };
  const n = (b: string): number => tables.filter((t) => bucket(t.status) === b).length;
  const failed = tables.filter((t) => t.status === 'failed');
  const parts = [
    ...ORDER.filter(([b]) => n(b) > 0).map(([b, label]) => `${n(b)} ${label}`),
    ...(failed.length ? [`${failed.length} failed: ${failed.map((t) => `${t.table} (${t.error?.code ?? '?'})`).join(', ')}`] : []),
  ];
  const rolledBack = n('rolled-back');
  const live = tables.filter((t) => isLive(t.status as TableStatus)).length;
  const cut = n('cutover');
  let status = runStatus;
  if (rolledBack > 0) status = live === 0 && n('in-flight') === 0 ? 'rolled back' : `${runStatus}, partly rolled back`;
  else if (cut > 0) status = cut === live && n('in-flight') === 0 ? 'cut over' : `${runStatus}, partly cut over`;
  return { status, parts };
}
