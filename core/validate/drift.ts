// Drift between a migrated table's Iceberg side and its Hive original, checked nightly until the
// Hive side is retired. Each check yields one result row with a stable code and the evidence
// (expected vs actual). Pure; no I/O: the activity gathers the facts, this decides.
import type { HivePartition, TableInventory } from '../hive/model';
import type { FileFact } from './compare';
import { canonicalPath } from './compare';

export const DriftCheck = {
  HMS_OBJECT: 'hms-object',
  HIVE_PARTITIONS: 'hive-partitions',
  CATALOG_ENTRY: 'catalog-entry',
  ICEBERG_COMMITS: 'iceberg-commits',
  METADATA_FILES: 'metadata-files',
  DATA_FILES: 'data-files',
  ROW_COUNT: 'row-count',
  /** The read-back proof (validation.readBack): sampled files read through Iceberg and through Hive in Spark. */
  READ_BACK: 'read-back',
  /** Files of our snapshot that carry Iceberg field ids: each id is the one our schema gives its column. */
  FIELD_IDS: 'field-ids',
} as const;
export type DriftCheck = (typeof DriftCheck)[keyof typeof DriftCheck];

export const DriftCode = {
  OK: 'OK',
  /** The HMS table object differs from the one saved before migration (altered since). */
  HMS_OBJECT_CHANGED: 'HMS_OBJECT_CHANGED',
  /** Hive partitions that did not exist at migration (writers still adding to Hive). */
  HIVE_PARTITION_ADDED: 'HIVE_PARTITION_ADDED',
  HIVE_PARTITION_REMOVED: 'HIVE_PARTITION_REMOVED',
  /** Data files in a migrated partition location that are not in our snapshot. */
  HIVE_FILES_ADDED: 'HIVE_FILES_ADDED',
  /** Files of our snapshot that are gone from storage (the Iceberg table now references missing data). */
  HIVE_FILES_REMOVED: 'HIVE_FILES_REMOVED',
  /** Same path, different size: rewritten in place. */
  HIVE_FILES_CHANGED: 'HIVE_FILES_CHANGED',
  /** The catalog has no entry for the table. */
  CATALOG_ENTRY_MISSING: 'CATALOG_ENTRY_MISSING',
  /** The entry points at metadata whose history does not contain our snapshot. */
  CATALOG_POINTS_ELSEWHERE: 'CATALOG_POINTS_ELSEWHERE',
  /** The table moved on after our commit: expected after cut-over, reported, and it blocks rollback. */
  ICEBERG_COMMITS_AFTER_OURS: 'ICEBERG_COMMITS_AFTER_OURS',
  /** A metadata file we wrote (metadata.json, manifest list, manifest) is missing or unreadable. */
  METADATA_FILE_MISSING: 'METADATA_FILE_MISSING',
  METADATA_UNREADABLE: 'METADATA_UNREADABLE',
  /** Our snapshot's counts disagree (summary vs manifests vs footers). */
  ROW_COUNT_MISMATCH: 'ROW_COUNT_MISMATCH',
  /** The sampled files read through the Iceberg table differ from the same files read as Hive reads them. */
  READBACK_MISMATCH: 'READBACK_MISMATCH',
  /** A file of our snapshot carries a field id our schema gives another column: readers resolve it by id and misread it. */
  FIELD_ID_MISMATCH: 'FIELD_ID_MISMATCH',
  /** The check itself could not run (server error…); `failed`, not `drift`. */
  CHECK_FAILED: 'CHECK_FAILED',
} as const;
export type DriftCode = (typeof DriftCode)[keyof typeof DriftCode];

export type RowStatus = 'ok' | 'info' | 'drift' | 'failed';

/** One row of a validation run's results (the Parquet file has exactly these columns). */
export interface ValidationRow {
  readonly plan: string;
  readonly wave: number;
  readonly team: string;
  readonly table: string;
  readonly check: DriftCheck;
  readonly status: RowStatus;
  readonly code: DriftCode;
  readonly expected: string;
  readonly actual: string;
  readonly snapshotId: string;
  readonly runId: string;
  /** ISO-8601 instant of the check. */
  readonly time: string;
}

export type RowInput = Omit<ValidationRow, 'plan' | 'wave' | 'team' | 'table' | 'runId' | 'time' | 'snapshotId'>;

const SAMPLE = 5;
const list = (xs: readonly string[]): string =>
  xs.length <= SAMPLE ? xs.join(', ') : `${xs.slice(0, SAMPLE).join(', ')} …(+${xs.length - SAMPLE})`;

/** Partitions now vs at migration (by escaped name). */
export function partitionDrift(saved: readonly HivePartition[], now: readonly HivePartition[]): RowInput[] {
  const before = new Set(saved.map((p) => p.name));
  const after = new Set(now.map((p) => p.name));
  const added = [...after].filter((n) => !before.has(n)).sort();
  const removed = [...before].filter((n) => !after.has(n)).sort();
  const rows: RowInput[] = [];
  if (added.length > 0)
    rows.push({
      check: DriftCheck.HIVE_PARTITIONS,
      status: 'drift',
      code: DriftCode.HIVE_PARTITION_ADDED,
      expected: `${before.size} partitions`,
      actual: `added: ${list(added)}`,
    });
  if (removed.length > 0)
    rows.push({
      check: DriftCheck.HIVE_PARTITIONS,
      status: 'drift',
      code: DriftCode.HIVE_PARTITION_REMOVED,
      expected: `${before.size} partitions`,
      actual: `removed: ${list(removed)}`,
    });
  if (rows.length === 0)
    rows.push({
      check: DriftCheck.HIVE_PARTITIONS,
      status: 'ok',
      code: DriftCode.OK,
      expected: `${before.size} partitions`,
      actual: `${after.size} partitions`,
    });
  return rows;
}

/** The HMS object now vs the saved original (fingerprints of the whole object). */
export function objectDrift(savedDigest: string, nowDigest: string | null, changedKeys: readonly string[]): RowInput {
  if (nowDigest === null)
    return {
      check: DriftCheck.HMS_OBJECT,
      status: 'drift',
      code: DriftCode.HMS_OBJECT_CHANGED,
      expected: savedDigest,
      actual: 'table dropped from HMS',
    };
  if (nowDigest === savedDigest)
    return { check: DriftCheck.HMS_OBJECT, status: 'ok', code: DriftCode.OK, expected: savedDigest, actual: nowDigest };
  return {
    check: DriftCheck.HMS_OBJECT,
    status: 'drift',
    code: DriftCode.HMS_OBJECT_CHANGED,
    expected: savedDigest,
    actual: `${nowDigest}${changedKeys.length ? ` (changed: ${list(changedKeys)})` : ''}`,
  };
}

/** Top-level table fields and parameters that differ (evidence for HMS_OBJECT_CHANGED). */
export function changedKeys(saved: TableInventory, now: TableInventory): string[] {
  const out: string[] = [];
  const a = saved.table as unknown as Record<string, unknown>;
  const b = now.table as unknown as Record<string, unknown>;
  for (const k of Object.keys({ ...a, ...b })) {
    if (k === 'parameters') continue;
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.push(k);
  }
  const pa = saved.table.parameters;
  const pb = now.table.parameters;
  for (const k of Object.keys({ ...pa, ...pb })) if (pa[k] !== pb[k]) out.push(`parameters.${k}`);
  return out.sort();
}

/** Storage now vs the files of our snapshot, within the migrated locations. */
export function fileDrift(inSnapshot: readonly FileFact[], listed: readonly FileFact[]): RowInput[] {
  const snap = new Map(inSnapshot.map((f) => [canonicalPath(f.path), f]));
  const now = new Map(listed.map((f) => [canonicalPath(f.path), f]));
  const added = [...now.keys()].filter((k) => !snap.has(k)).sort();
  const removed = [...snap.keys()].filter((k) => !now.has(k)).sort();
  const changed = [...snap.entries()]
    .filter(([k, f]) => now.has(k) && now.get(k)?.size !== f.size)
    .map(([k]) => k)
    .sort();
  const rows: RowInput[] = [];
  const expected = `${snap.size} files`;
  if (added.length)
    rows.push({
      check: DriftCheck.DATA_FILES,
      status: 'drift',
      code: DriftCode.HIVE_FILES_ADDED,
      expected,
      actual: `added: ${list(added)}`,
    });
  if (removed.length)
    rows.push({
      check: DriftCheck.DATA_FILES,
      status: 'drift',
      code: DriftCode.HIVE_FILES_REMOVED,
      expected,
      actual: `removed: ${list(removed)}`,
    });
  if (changed.length)
    rows.push({
      check: DriftCheck.DATA_FILES,
      status: 'drift',
      code: DriftCode.HIVE_FILES_CHANGED,
      expected,
      actual: `size changed: ${list(changed)}`,
    });
  if (rows.length === 0)
    rows.push({ check: DriftCheck.DATA_FILES, status: 'ok', code: DriftCode.OK, expected, actual: `${now.size} files` });
  return rows;
}

/** Run status from its rows: any failed check → failed; else any drift → drifted; else validated. */
export function runStatus(rows: readonly { status: RowStatus }[]): 'validated' | 'drifted' | 'failed' {
  if (rows.some((r) => r.status === 'failed')) return 'failed';
  if (rows.some((r) => r.status === 'drift')) return 'drifted';
  return 'validated';
}

const SEVERITY: Record<RowStatus, number> = { failed: 0, drift: 1, info: 2, ok: 3 };

/** Markdown summary of a run: counts per team, the worst findings first, a link to the previous run. */
export function runSummaryMarkdown(
  planId: string,
  runId: string,
  rows: readonly ValidationRow[],
  previousRunId: string | null,
  maxFindings = 20,
): string {
  const teams = new Map<string, { tables: Set<string>; drift: Set<string>; failed: Set<string> }>();
  for (const r of rows) {
    const t = teams.get(r.team) ?? { tables: new Set(), drift: new Set(), failed: new Set() };
    t.tables.add(r.table);
    if (r.status === 'drift') t.drift.add(r.table);
    if (r.status === 'failed') t.failed.add(r.table);
    teams.set(r.team, t);
  }
  const status = runStatus(rows);
  const lines = [
    `### Validation of plan \`${planId}\`: **${status}**`,
    '',
    `run \`${runId}\`${previousRunId ? ` · previous run \`${previousRunId}\`` : ' · first run'}`,
    '',
    '| team | tables | drifted | failed |',
    '|---|---|---|---|',
  ];
  for (const [name, t] of [...teams].sort(([a], [b]) => (a < b ? -1 : 1)))
    lines.push(`| ${name} | ${t.tables.size} | ${t.drift.size} | ${t.failed.size} |`);
  const worst = rows
    .filter((r) => r.status === 'drift' || r.status === 'failed' || r.status === 'info')
    .sort((a, b) => SEVERITY[a.status] - SEVERITY[b.status] || (a.table < b.table ? -1 : 1))
    .slice(0, maxFindings);
  if (worst.length > 0) {
    lines.push('', '| table | check | status | code | actual |', '|---|---|---|---|---|');
    for (const r of worst)
      lines.push(`| \`${r.table}\` | ${r.check} | ${r.status} | ${r.code} | ${r.actual.replace(/\|/g, '\\|').slice(0, 200)} |`);
  }
  return `${lines.join('\n')}\n`;
}
