// The one place where raw HMS representations (backing-DB rows, Thrift structs) become model values,
// so both inventory paths produce deep-equal models. Pure; no I/O. Each rule says what HMS does on
// the Thrift path and was checked against HMS 4.0.1 on Postgres and MariaDB (test/adapters/hms-db).
import { HIVE_DEFAULT_PARTITION } from './model';
import type { HivePartition, HiveTable, Params, SkewedInfo } from './model';

type OwnerType = HiveTable['ownerType'];
const OWNER_TYPES: ReadonlySet<string> = new Set(['USER', 'ROLE', 'GROUP']);

/**
 * Rule 1 — params: a stored NULL value is dropped (HMS trims null map values before returning,
 * `metastore.orm.retrieveMapNullsAsEmptyStrings` defaults to false); '' stays ''. Keys are sorted
 * by UTF-16 code unit so serialised models (hashes, golden files) are stable. Applies to table,
 * partition, database, storage-descriptor and SerDe params alike.
 */
export function normalizeParams(entries: Iterable<readonly [string, string | null | undefined]>): Params {
  const kept = [...entries].filter((e): e is readonly [string, string] => typeof e[1] === 'string');
  kept.sort((a, b) => compareCodeUnits(a[0], b[0]));
  const out: Record<string, string> = {};
  for (const [k, v] of kept) out[k] = v;
  return out;
}

/** The same rule for a params object (Thrift maps arrive as objects). */
export function normalizeParamsObject(p: Readonly<Record<string, string | null | undefined>> | null | undefined): Params {
  return normalizeParams(Object.entries(p ?? {}));
}

/**
 * Rule 2 — table owner type: the IDL gives Table.ownerType (field 18) the default
 * `PrincipalType.USER`, and HMS only overrides it when TBLS.OWNER_TYPE is non-null; so a NULL in
 * the DB reads as 'USER' over Thrift. Unknown strings → null.
 */
export function tableOwnerType(raw: string | null | undefined): OwnerType {
  return raw === null || raw === undefined ? 'USER' : ownerType(raw);
}

/** Rule 3 — database owner type: Database.ownerType (field 7) has no default; NULL stays null. */
export function databaseOwnerType(raw: string | null | undefined): OwnerType {
  return raw === null || raw === undefined ? null : ownerType(raw);
}

function ownerType(raw: string): OwnerType {
  const up = raw.toUpperCase();
  return OWNER_TYPES.has(up) ? (up as NonNullable<OwnerType>) : null;
}

/**
 * Rule 4 — partition values: PARTITION_KEY_VALS and Partition.values hold the raw (unescaped)
 * values; only `__HIVE_DEFAULT_PARTITION__` needs mapping, to null. (PART_NAME is the escaped form;
 * core/hive/partition-names.ts parses it when only a name is at hand.)
 */
export function partitionValue(raw: string | null | undefined): string | null {
  return raw === null || raw === undefined || raw === HIVE_DEFAULT_PARTITION ? null : raw;
}

/**
 * Rule 5 — skew: HMS returns an empty SkewedInfo for every SD (the DB simply has no SKEWED_* rows);
 * empty → null. Value tuples keep their stored order (INTEGER_IDX); the location map has no order
 * over Thrift (a Java HashMap), so locations are sorted by their value tuple.
 */
export function normalizeSkewed(
  columnNames: readonly string[],
  values: readonly (readonly string[])[],
  locations: readonly { readonly values: readonly string[]; readonly location: string }[],
): SkewedInfo | null {
  if (columnNames.length === 0 && values.length === 0 && locations.length === 0) return null;
  const locs = locations.map((l) => ({ values: [...l.values], location: l.location }));
  locs.sort((a, b) => compareTuples(a.values, b.values) || compareCodeUnits(a.location, b.location));
  return { columnNames: [...columnNames], values: values.map((v) => [...v]), locations: locs };
}

/**
 * Rule 6 — strings are taken as stored: a NULL column comment, SerDe name, location or view text
 * is null; '' stays '' (both backends and Thrift agree; Oracle, which stores '' as NULL, is not
 * supported). Rule 7 — a missing SerDe reads as { name: null, serializationLib: null, parameters: {} }
 * and a missing column descriptor as no columns (HMS returns null structs/lists for both).
 */
export function nullable(raw: string | null | undefined): string | null {
  return raw === undefined ? null : raw;
}

/** Rule 8 — order: partitions by name, databases and table names by UTF-16 code unit (not locale/collation). */
export function sortPartitions<P extends Pick<HivePartition, 'name'>>(parts: readonly P[]): P[] {
  return [...parts].sort((a, b) => compareCodeUnits(a.name, b.name));
}

export function sortNames(names: Iterable<string>): string[] {
  return [...names].sort(compareCodeUnits);
}

/**
 * Rule 9 — booleans: Postgres returns boolean, MySQL/MariaDB BIT(1) a one-byte buffer, some
 * schemas 'Y'/'N' or 0/1. Accepts any of them.
 */
export function sqlBoolean(raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number' || typeof raw === 'bigint') return raw !== 0 && raw !== 0n;
  if (typeof raw === 'string') return ['1', 't', 'true', 'y', 'yes'].includes(raw.toLowerCase());
  if (raw instanceof Uint8Array) return raw.some((b) => b !== 0);
  return false;
}

/** Rule 10 — numbers: bigint columns arrive as strings (pg, mysql2 bigNumberStrings); HMS values are < 2^53. */
export function sqlNumber(raw: unknown, fallback = 0): number {
  if (raw === null || raw === undefined) return fallback;
  const n = typeof raw === 'number' ? raw : Number(raw);
  return Number.isFinite(n) ? n : fallback;
}

export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareTuples(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareCodeUnits(a[i] as string, b[i] as string);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
