// The comparisons that decide "migrated" (docs/architecture.md "Validation decides success"): exact row
// counts across every source that has one, the exact file manifest (storage listing = data files
// in our manifests, by path, size and partition tuple), and every Hive column mapped (the type tree: schema-tree.ts). Pure; no I/O.
// Each disagreement is a finding with a stable code and the evidence; no finding = validated.
import { ErrorCode } from '../errors';
import { toBytes } from '../iceberg/bounds';
import type { PrimitiveType, PrimitiveValue } from '../iceberg/types';

export type ValidationCode =
  | typeof ErrorCode.VALIDATION_ROW_COUNT_MISMATCH
  | typeof ErrorCode.VALIDATION_FILES_MISMATCH
  | typeof ErrorCode.VALIDATION_CATALOG_MISMATCH
  | typeof ErrorCode.VALIDATION_SCHEMA_MISMATCH
  | typeof ErrorCode.VALIDATION_FOOTER_UNMAPPED
  | typeof ErrorCode.VALIDATION_FIELD_ID_MISMATCH;

export interface ValidationFinding {
  readonly code: ValidationCode;
  readonly check: 'rows' | 'files' | 'catalog' | 'schema' | 'footers';
  readonly message: string;
  readonly expected?: string;
  readonly actual?: string;
  readonly path?: string;
  /** 'warning': reported with the evidence but does not fail validation (absent = it fails). */
  readonly severity?: 'warning';
}

/** The findings that fail validation (every one but the warnings). */
export function failing(findings: readonly ValidationFinding[]): ValidationFinding[] {
  return findings.filter((f) => f.severity !== 'warning');
}

/** A data file as one side sees it. */
export interface FileFact {
  readonly path: string;
  readonly size: number;
  readonly partition: readonly (PrimitiveValue | null)[];
}

/** Canonical text of a partition tuple (single-value serialization, hex), so 1 and 1n compare equal. */
export function partitionText(types: readonly PrimitiveType[], tuple: readonly (PrimitiveValue | null)[]): string {
  return tuple
    .map((v, i) => {
      const t = types[i];
      if (v === null) return 'null';
      if (t === undefined) return `?${String(v)}`;
      return Array.from(toBytes(t, v), (b) => b.toString(16).padStart(2, '0')).join('');
    })
    .join('/');
}

/** Normalise s3/s3a/s3n to one scheme: the same object, however a writer spelled it. */
export function canonicalPath(p: string): string {
  return p.replace(/^s3[an]?:\/\//, 's3://');
}

const MAX_LISTED = 20;

/** Storage listing vs manifests: missing, extra, size and partition mismatches, duplicates. */
export function compareFiles(
  types: readonly PrimitiveType[],
  listed: Iterable<FileFact>,
  inManifests: Iterable<FileFact>,
): { findings: ValidationFinding[]; listed: number; inManifests: number } {
  const byPath = new Map<string, FileFact>();
  let nListed = 0;
  for (const f of listed) {
    byPath.set(canonicalPath(f.path), f);
    nListed++;
  }
  const findings: ValidationFinding[] = [];
  const add = (f: ValidationFinding): void => {
    findings.push(f);
  };
  const seen = new Set<string>();
  let nManifest = 0;
  for (const m of inManifests) {
    nManifest++;
    const key = canonicalPath(m.path);
    if (seen.has(key)) {
      add({
        code: ErrorCode.VALIDATION_FILES_MISMATCH,
        check: 'files',
        message: `${m.path} is listed twice in the manifests`,
        path: m.path,
      });
      continue;
    }
    seen.add(key);
    const s = byPath.get(key);
    if (s === undefined) {
      add({
        code: ErrorCode.VALIDATION_FILES_MISMATCH,
        check: 'files',
        message: `${m.path} is in the Iceberg table but not in storage`,
        path: m.path,
        expected: 'absent',
        actual: 'in manifest',
      });
      continue;
    }
    if (s.size !== m.size)
      add({
        code: ErrorCode.VALIDATION_FILES_MISMATCH,
        check: 'files',
        message: `${m.path}: size ${m.size} in the manifest, ${s.size} in storage`,
        path: m.path,
        expected: String(s.size),
        actual: String(m.size),
      });
    const want = partitionText(types, s.partition);
    const got = partitionText(types, m.partition);
    if (want !== got)
      add({
        code: ErrorCode.VALIDATION_FILES_MISMATCH,
        check: 'files',
        message: `${m.path}: partition ${got} in the manifest, ${want} from HMS`,
        path: m.path,
        expected: want,
        actual: got,
      });
  }
  for (const [key, s] of byPath) {
    if (!seen.has(key))
      add({
        code: ErrorCode.VALIDATION_FILES_MISMATCH,
        check: 'files',
        message: `${s.path} is in storage but not in the Iceberg table`,
        path: s.path,
        expected: 'in manifest',
        actual: 'absent',
      });
  }
  // Keep evidence readable for huge tables: the first MAX_LISTED per kind, plus a count.
  if (findings.length > MAX_LISTED) {
    const more = findings.length - MAX_LISTED;
    findings.splice(MAX_LISTED, findings.length, {
      code: ErrorCode.VALIDATION_FILES_MISMATCH,
      check: 'files',
      message: `…and ${more} more file differences`,
    });
  }
  return { findings, listed: nListed, inManifests: nManifest };
}

/** Every source of a row count must agree exactly; `hms` only when its basic stats are accurate. */
export function compareRowCounts(counts: {
  readonly footers: number;
  readonly snapshotTotal: number | null;
  readonly manifests: number;
  readonly hms?: number;
}): ValidationFinding[] {
  const out: ValidationFinding[] = [];
  const ref = counts.footers;
  const check = (name: string, v: number | null | undefined): void => {
    if (v === undefined) return;
    const actual = v ?? 0;
    if (actual !== ref)
      out.push({
        code: ErrorCode.VALIDATION_ROW_COUNT_MISMATCH,
        check: 'rows',
        message: `${name} says ${actual} rows, the data file footers ${ref}`,
        expected: String(ref),
        actual: String(actual),
      });
  };
  check('the snapshot summary (total-records)', counts.snapshotTotal);
  check('the manifests (sum of record_count)', counts.manifests);
  check('HMS numRows (stats marked accurate)', counts.hms);
  return out;
}

/** HMS basic stats are trusted only when COLUMN_STATS_ACCURATE says BASIC_STATS is true. */
export function accurateNumRows(params: Readonly<Record<string, string>>): number | undefined {
  const raw = params.COLUMN_STATS_ACCURATE;
  const n = params.numRows;
  if (raw === undefined || n === undefined || !/^\d+$/.test(n)) return undefined;
  try {
    const parsed = JSON.parse(raw) as { BASIC_STATS?: unknown };
    return parsed.BASIC_STATS === 'true' || parsed.BASIC_STATS === true ? Number(n) : undefined;
  } catch {
    return undefined;
  }
}
