// Row helpers shared by the backing-DB reader's paths: ids as text, nullable strings, id lists in
// chunks, rows grouped by a key, parameters and columns in HMS order. Adapter code; no I/O.
import type { HiveColumn } from '../../../core/hive/model';
import { normalizeParams, sqlNumber } from '../../../core/hive/normalize';
import type { Row } from './session';

/** A row id (TBL_ID, SD_ID, CD_ID, PART_ID…) as text: BIGINT comes back as a string or a number. */
export type Id = string;
export const id = (v: unknown): Id => String(v);
export const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function chunks<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** Append `v` to the list under `k`. */
export function pushTo<V>(m: Map<Id, V[]>, k: Id, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

export function groupBy(rows: readonly Row[], key: string): Map<Id, Row[]> {
  const m = new Map<Id, Row[]>();
  for (const r of rows) pushTo(m, id(r[key]), r);
  return m;
}

export function paramsOf(rows: readonly Row[] | undefined) {
  return normalizeParams((rows ?? []).map((r) => [String(r.PARAM_KEY), str(r.PARAM_VALUE)] as const));
}

export function columnsOf(rows: readonly Row[] | undefined, prefix: 'COLUMN' | 'PKEY'): HiveColumn[] {
  const sorted = [...(rows ?? [])].sort((a, b) => sqlNumber(a.INTEGER_IDX) - sqlNumber(b.INTEGER_IDX));
  return prefix === 'COLUMN'
    ? sorted.map((r) => ({ name: String(r.COLUMN_NAME), type: String(r.TYPE_NAME ?? ''), comment: str(r.COMMENT) }))
    : sorted.map((r) => ({ name: String(r.PKEY_NAME), type: String(r.PKEY_TYPE ?? ''), comment: str(r.PKEY_COMMENT) }));
}
