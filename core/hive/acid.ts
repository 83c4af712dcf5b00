// Insert-only (micro-managed) ACID tables: the metastore's valid write ids of a table and which of
// its base_/delta_ directories hold committed data. Pure; no I/O.
//
// Semantics followed (Apache Hive, storage-api and ql):
// - ValidReaderWriteIdList: a write id is valid iff it is <= the high watermark and not in the
//   exceptions (open or aborted; `abortedBits` flags the aborted ones); `isValidBase(w)` iff
//   w < minOpenWriteId and w <= high watermark; `isWriteIdRangeValid` answers ALL / SOME / NONE.
// - ValidReadTxnList.writeToString: `<hwm>:<minOpen>:<open,...>:<aborted,...>` (the form
//   get_valid_write_ids takes as `validTxnList`).
// - AcidUtils.getAcidState / ParsedDelta ordering: `base_<w>` (the newest valid base wins and hides
//   every delta at or below it), `delta_<min>_<max>[_<stmt>]` sorted by min ascending, max descending,
//   a delta whose range lies under the current max is covered (skipped); files at the location's top
//   (pre-transactional "original" files) are read only when no base is chosen; hidden names (`_`, `.`)
//   are never data (`_orc_acid_version`, `_metadata_acid`). `_v<txn>` suffixes (compactor output,
//   visible only once that compaction commits) and `delete_delta_` (full ACID) are refused here:
//   telling whether they are visible needs state we do not read.
import { ErrorCode, MigrationError } from '../errors';

/** The metastore's valid write ids of one table (TableValidWriteIds, hive_metastore.thrift). */
export interface ValidWriteIds {
  /** `db.table` as the metastore names it. */
  readonly table: string;
  readonly highWatermark: number;
  /** Write ids of transactions still open (their files may be half written). */
  readonly open: readonly number[];
  /** Write ids of aborted transactions (their files are garbage until the cleaner removes them). */
  readonly aborted: readonly number[];
}

export type RangeResponse = 'ALL' | 'SOME' | 'NONE';

export function isWriteIdValid(ids: ValidWriteIds, w: number): boolean {
  return w <= ids.highWatermark && !ids.open.includes(w) && !ids.aborted.includes(w);
}

const minOpen = (ids: ValidWriteIds): number => (ids.open.length === 0 ? Infinity : Math.min(...ids.open));

/** ValidReaderWriteIdList.isValidBase: a base written below every open write and at most the watermark. */
export function isValidBase(ids: ValidWriteIds, w: number): boolean {
  return w < minOpen(ids) && w <= ids.highWatermark;
}

export function writeIdRange(ids: ValidWriteIds, min: number, max: number): RangeResponse {
  let valid = 0;
  for (let w = min; w <= max; w++) if (isWriteIdValid(ids, w)) valid++;
  return valid === max - min + 1 ? 'ALL' : valid === 0 ? 'NONE' : 'SOME';
}

/** ValidReadTxnList.writeToString of a get_open_txns answer (exceptions: open and aborted txns). */
export function validTxnListString(hwm: number, open: readonly number[], aborted: readonly number[]): string {
  // Long.MAX_VALUE when nothing is open (TxnUtils.createValidReadTxnList).
  const min = open.length === 0 ? '9223372036854775807' : String(Math.min(...open));
  const sorted = (xs: readonly number[]): string => [...xs].sort((a, b) => a - b).join(',');
  return `${hwm}:${min}:${sorted(open)}:${sorted(aborted)}`;
}

/** The Thrift `abortedBits` (java.util.BitSet.toByteArray, little-endian) split into open and aborted ids. */
export function splitInvalid(invalid: readonly number[], abortedBits: Uint8Array): { open: number[]; aborted: number[] } {
  const open: number[] = [];
  const aborted: number[] = [];
  invalid.forEach((w, i) => (((abortedBits[i >> 3] ?? 0) >> (i & 7)) & 1 ? aborted : open).push(w));
  return { open, aborted };
}

export type AcidDir =
  | { readonly kind: 'base'; readonly writeId: number }
  | { readonly kind: 'delta'; readonly min: number; readonly max: number; readonly stmt: number };

const BASE = /^base_(\d+)$/;
const DELTA = /^delta_(\d+)_(\d+)(?:_(\d+))?$/;

/** A directory name in Hive's ACID layout, or why it is not one we convert. */
export function parseAcidDir(name: string): AcidDir | { readonly kind: 'unsupported'; readonly why: string } {
  const b = BASE.exec(name);
  if (b) return { kind: 'base', writeId: Number(b[1]) };
  const d = DELTA.exec(name);
  if (d) return { kind: 'delta', min: Number(d[1]), max: Number(d[2]), stmt: d[3] === undefined ? -1 : Number(d[3]) };
  if (/^(base|delta)_\d+(_\d+)*_v\d+$/.test(name))
    return { kind: 'unsupported', why: 'compactor output (_v<txn>): its visibility depends on the compaction transaction' };
  if (name.startsWith('delete_delta_')) return { kind: 'unsupported', why: 'a delete delta (full ACID layout)' };
  return { kind: 'unsupported', why: 'not a base_/delta_ directory of an insert-only table' };
}

export interface AcidSelection<F> {
  readonly files: F[];
  /** The chosen base's write id, or null (deltas and originals only). */
  readonly base: number | null;
  /** Directories whose files are in (relative names), in Hive's order. */
  readonly chosen: readonly string[];
  /** Directories left out, with why (aborted, open, above the watermark, covered by a base or delta). */
  readonly leftOut: readonly { readonly dir: string; readonly why: string }[];
}

function refuseLayout(location: string, path: string, why: string): never {
  throw new MigrationError(
    ErrorCode.ACID_LAYOUT_UNSUPPORTED,
    `${path} under ${location}: ${why}; only base_<w> and delta_<min>_<max>[_<stmt>] directories of committed writes convert metadata-only`,
    { location, path },
    { retryable: false },
  );
}

/** Group the listed files of one location by their top directory ('' = files at the top). */
function byDir<F extends { readonly path: string }>(location: string, files: readonly F[]): Map<string, F[]> {
  const base = location.endsWith('/') ? location : `${location}/`;
  const out = new Map<string, F[]>();
  for (const f of files) {
    const rel = f.path.startsWith(base) ? f.path.slice(base.length) : refuseLayout(location, f.path, 'outside the location');
    const parts = rel.split('/');
    if (parts.length > 2) refuseLayout(location, f.path, 'nested more than one directory deep');
    const dir = parts.length === 2 ? (parts[0] as string) : '';
    out.set(dir, [...(out.get(dir) ?? []), f]);
  }
  return out;
}

/** The files of committed writes among one location's listing (recursive, hidden names already out). */
export function selectAcidFiles<F extends { readonly path: string }>(
  location: string,
  files: readonly F[],
  ids: ValidWriteIds,
): AcidSelection<F> {
  const groups = byDir(location, files);
  const dirs: { name: string; d: AcidDir }[] = [];
  for (const name of groups.keys()) {
    if (name === '') continue;
    const d = parseAcidDir(name);
    if (d.kind === 'unsupported') refuseLayout(location, `${location}/${name}`, d.why);
    dirs.push({ name, d });
  }
  const leftOut: { dir: string; why: string }[] = [];
  const bases = dirs.filter((x) => x.d.kind === 'base').sort((a, b) => wid(b.d) - wid(a.d));
  const best = bases.find((x) => isValidBase(ids, wid(x.d)));
  for (const x of bases)
    if (x !== best) leftOut.push({ dir: x.name, why: isValidBase(ids, wid(x.d)) ? 'older base' : 'base of a write not committed' });
  const chosen: string[] = best === undefined ? [] : [best.name];
  let current = best === undefined ? 0 : wid(best.d);
  const deltas = dirs
    .flatMap((x) => (x.d.kind === 'delta' ? [{ name: x.name, d: x.d }] : []))
    .sort((a, b) => a.d.min - b.d.min || b.d.max - a.d.max || a.d.stmt - b.d.stmt);
  let lastRange = '';
  for (const x of deltas) {
    const range = `${x.d.min}_${x.d.max}`;
    if (x.d.max <= current && range !== lastRange) {
      leftOut.push({ dir: x.name, why: best !== undefined && x.d.max <= wid(best.d) ? 'covered by the base' : 'covered by a wider delta' });
      continue;
    }
    const r = writeIdRange(ids, x.d.min, x.d.max);
    if (r === 'NONE') {
      leftOut.push({ dir: x.name, why: deltaWhy(ids, x.d.min) });
      continue;
    }
    if (r === 'SOME') refuseLayout(location, `${location}/${x.name}`, 'a delta spanning committed and uncommitted writes');
    chosen.push(x.name);
    current = x.d.max;
    lastRange = range;
  }
  const originals = best === undefined ? (groups.get('') ?? []) : [];
  if (best !== undefined && (groups.get('') ?? []).length > 0) leftOut.push({ dir: '', why: 'original files covered by the base' });
  const out = [...originals, ...chosen.flatMap((c) => groups.get(c) ?? [])];
  return { files: out, base: best === undefined ? null : wid(best.d), chosen, leftOut };
}

/**
 * The conversion's selection: selectAcidFiles, refused (ACID_LAYOUT_UNSUPPORTED) when a directory
 * holds write ids above the high watermark the metastore gave — files of writes it had not
 * allocated when read (written by hand or copied in, or a write that began after the read). Hive
 * reads none of them today; converting the table without them would leave data behind silently, so
 * the table is refused instead (plan's storage sample classes it rewrite-required for the same
 * reason; a write that began after the read is converted by the next attempt, which reads again).
 */
export function committedFiles<F extends { readonly path: string }>(location: string, files: readonly F[], ids: ValidWriteIds): F[] {
  const sel = selectAcidFiles(location, files, ids);
  const above = sel.leftOut.filter((x) => x.why.startsWith('above the high watermark')).map((x) => x.dir);
  if (above.length > 0)
    refuseLayout(
      location,
      `${location}/${above[0] as string}`,
      `write ids above the metastore's high watermark ${ids.highWatermark}${above.length > 1 ? ` (and ${above.length - 1} more director${above.length > 2 ? 'ies' : 'y'})` : ''}: not written by a transaction the metastore knows`,
    );
  return sel.files;
}

const wid = (d: AcidDir): number => (d.kind === 'base' ? d.writeId : d.max);

function deltaWhy(ids: ValidWriteIds, w: number): string {
  if (ids.aborted.includes(w)) return 'aborted write';
  if (ids.open.includes(w)) return 'open write';
  return w > ids.highWatermark ? 'above the high watermark (not committed when read)' : 'invalid write';
}

/** transactional=true with transactional_properties=insert_only (case-insensitive, as Hive's AcidUtils.isInsertOnlyTable). */
export function isInsertOnly(params: Readonly<Record<string, string>>): boolean {
  return (
    (params['transactional'] ?? '').toLowerCase() === 'true' &&
    (params['transactional_properties'] ?? '').trim().toLowerCase() === 'insert_only'
  );
}

/** What to run in Hive for a full ACID table. `ALTER TABLE … SET TBLPROPERTIES ('transactional'='false')` is refused by the metastore (TransactionalValidationListener: a transactional table cannot be made non-transactional). */
export const FULL_ACID_REMEDIATION =
  "rewrite it in Hive into a table this tool converts: `CREATE EXTERNAL TABLE <t>_plain STORED AS PARQUET AS SELECT * FROM <t>` (Hive 4) or an insert-only copy `CREATE TABLE <t>_io STORED AS PARQUET TBLPROPERTIES ('transactional'='true','transactional_properties'='insert_only') AS SELECT * FROM <t>`, then plan that table; a major compaction is not enough (its base files keep the ACID row struct) and ALTER TABLE … SET TBLPROPERTIES ('transactional'='false') is refused by the metastore";
