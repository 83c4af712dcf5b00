// Files and bytes of a table from HMS fast stats (numFiles, totalSize; docs/design/hive-metastore.md §6): per partition for
// partitioned tables, else the table's. Sizing hints only, never correctness. When they are absent
// or zero on an unpartitioned table (usual for tables Spark wrote: HMS gathered nothing at create
// time), the storage sample lists the location and its SIZE_FROM_STORAGE finding wins. Pure; no I/O.
import type { Params, TableInventory } from '../hive/model';
import type { AssessFinding } from './types';
import { AssessCode, isView } from './types';

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

/** Whether the storage sample should size this table from its listing (HMS stats absent or zero). */
export function needsStorageSize(t: TableInventory): boolean {
  if (isView(t) || t.table.partitionKeys.length > 0) return false;
  const s = tableStats(t);
  return !s.known || s.files === 0;
}

const fromStorage = (fs: readonly AssessFinding[]): AssessFinding | undefined =>
  fs.find((f) => f.code === AssessCode.SIZE_FROM_STORAGE && f.size !== undefined);

/**
 * With a storage size, HMS's word on emptiness goes: EMPTY_TABLE stays only when the listing says
 * so (the sample's EMPTY_TABLE carries a size; the metadata rule's does not).
 */
export function withStorageSize(findings: readonly AssessFinding[]): AssessFinding[] {
  if (fromStorage(findings) === undefined) return [...findings];
  return findings.filter((f) => f.code !== AssessCode.EMPTY_TABLE || f.size !== undefined);
}

export function sizeOf(t: TableInventory, findings: readonly AssessFinding[]): { files: number; bytes: number; source: 'hms' | 'storage' } {
  if (isView(t)) return { files: 0, bytes: 0, source: 'hms' };
  const listed = fromStorage(findings)?.size;
  if (listed !== undefined) return { files: listed.files, bytes: listed.bytes, source: 'storage' };
  const s = tableStats(t);
  return { files: s.files, bytes: s.bytes, source: 'hms' };
}
