// Files and bytes of a table from HMS fast stats (numFiles, totalSize; hms.md §6): per partition for
// partitioned tables, else the table's. Sizing hints only, never correctness. Pure; no I/O.
import type { Params, TableInventory } from '../../hive/model';

export interface TableStats {
  readonly files: number;
  readonly bytes: number;
  /** False when any numFiles was absent or unparseable (the counts are then lower bounds). */
  readonly known: boolean;
}

function num(p: Params, key: string): number | null {
  const raw = p[key];
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw);
}

export function tableStats(t: TableInventory): TableStats {
  const sources = t.table.partitionKeys.length > 0 ? t.partitions.map((p) => p.parameters) : [t.table.parameters];
  let files = 0;
  let bytes = 0;
  let known = true;
  for (const p of sources) {
    const f = num(p, 'numFiles');
    const b = num(p, 'totalSize');
    if (f === null) known = false;
    files += f ?? 0;
    bytes += b ?? 0;
  }
  return { files, bytes, known };
}
