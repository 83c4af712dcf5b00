// The read-back proof's pure decisions (docs/migrating.md, "Read-back"): which of a table's data files
// are sampled (deterministic per plan, by path hash), the spec of the shipped engine job
// jobs/readback.py (for every table: the Iceberg table restricted to the sampled files, and the same
// files read with the Hive schema, serde and partition values), and what the two sides' results mean.
// Row counts, the file manifest and the name mapping can all agree while a reader still binds a
// column to the wrong field; only reading values through both sides proves them. Pure; no I/O.
// Secrets never go in a spec (S3 keys come from the job's environment).
import type { TableInventory } from '../hive/model';
import { sha256Hex } from '../hash';
import type { RewriteSpec } from '../rewrite/spec';
import type { RowInput } from './drift';
import { DriftCheck, DriftCode } from './drift';
import { REWRITE_SERDES, rewriteSource } from '../rewrite/spec';

export const READBACK_SPEC_VERSION = 1;
export const READBACK_DEFAULT_FILES = 2;

/** One table of the job: its Iceberg name, the sampled files and how Hive reads each of them. */
export interface ReadBackTable {
  readonly tableId: string;
  readonly iceberg: { readonly namespace: string; readonly name: string };
  /** The sampled data files, exactly as the Iceberg manifests name them (the Iceberg side filters `_file` on them). */
  readonly files: readonly string[];
  /** The Hive side: the table's columns, serde and one location per sampled file (the file itself, its partition's values). */
  readonly source: RewriteSpec['source'];
}

export interface ReadBackSpec {
  readonly version: typeof READBACK_SPEC_VERSION;
  readonly jobId: string;
  readonly catalog: { readonly name: string; readonly properties: Readonly<Record<string, string>> };
  readonly tables: readonly ReadBackTable[];
}

export interface ReadBackSide {
  readonly rows: number;
  readonly checksum: string;
}

/** One table in the job's result file. */
export interface ReadBackTableResult {
  readonly tableId: string;
  readonly status: 'checked' | 'failed';
  readonly iceberg?: ReadBackSide;
  readonly hive?: ReadBackSide;
  readonly seconds?: number;
  readonly error?: string;
}

/** The job's result file (jobs/readback.py). */
export interface ReadBackResult {
  readonly status: 'checked' | 'bad-spec';
  readonly jobId?: string;
  readonly tables?: readonly ReadBackTableResult[];
  readonly seconds?: number;
  readonly error?: string;
}

/** What a table's validation record holds under `readBack`: the evidence, or why the proof did not run. */
export type ReadBackEvidence =
  | { readonly skipped: string }
  | {
      readonly engine: 'spark';
      readonly jobId: string;
      readonly files: readonly string[];
      readonly iceberg: ReadBackSide;
      readonly hive: ReadBackSide;
      readonly equal: boolean;
      readonly seconds: number;
    }
  | {
      /** The table could not be read (its files could not be listed, or a side's read threw in the job). */
      readonly engine: 'spark';
      readonly jobId: string;
      readonly files: readonly string[];
      readonly error: string;
      readonly seconds: number;
    };

/** What a table's evidence means for it: nothing (proved, or not made and said why), or its failure code and message. */
export function readBackVerdict(
  tableId: string,
  e: ReadBackEvidence,
): { readonly code: 'READBACK_MISMATCH' | 'READBACK_FAILED'; readonly message: string } | null {
  if ('skipped' in e) return null;
  if ('error' in e)
    return { code: 'READBACK_FAILED', message: `${tableId}: read-back job ${e.jobId || '(none)'} could not read the table: ${e.error}` };
  if (e.equal) return null;
  const short = (c: string): string => c.slice(0, 12);
  return {
    code: 'READBACK_MISMATCH',
    message: `${tableId}: Spark reads ${e.files.length} sampled file(s) differently through the Iceberg table than through Hive (rows ${e.hive.rows} → ${e.iceberg.rows}, checksum ${short(e.hive.checksum)} → ${short(e.iceberg.checksum)}; job ${e.jobId})`,
  };
}

/** Deterministic per (plan, batch of tables): a retry overwrites the same spec/result files. */
export function readBackJobId(planHash: string, tableIds: readonly string[]): string {
  return sha256Hex(`him-readback\n${planHash}\n${[...tableIds].sort().join('\n')}`).slice(0, 16);
}

/**
 * The sampled files: the `n` files whose sha256(plan, path) sorts first. Deterministic for a plan
 * (a retry, the nightly run and a reviewer reading the record pick the same files), spread over
 * partitions without bias toward any directory, and independent of the order files were listed in.
 */
export function sampleFiles(planHash: string, files: readonly string[], n: number): string[] {
  const unique = [...new Set(files)];
  const keyed = unique.map((f) => ({ f, k: sha256Hex(`${planHash}\n${f}`) }));
  keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return keyed.slice(0, Math.max(0, n)).map((x) => x.f);
}

/** `s3a://b/x/` and `s3://b/x` name the same place: scheme family and trailing slashes aside. */
function canon(uri: string): string {
  return uri.replace(/^s3[an]?:\/\//, 's3://').replace(/\/+$/, '');
}

/** Why the job cannot read this table's files as Hive does (null: it can). */
export function readBackRefusal(inv: TableInventory): string | null {
  const lib = inv.table.sd.serde.serializationLib ?? '';
  if (REWRITE_SERDES[lib] === undefined) return `serde ${lib || '(none)'} is not one the read-back job reads`;
  const other = inv.partitions.find((p) => (p.sd.serde.serializationLib ?? lib) !== lib);
  if (other !== undefined) return `partition ${other.name} uses another serde`;
  return null;
}

/**
 * The Hive side of one table for the sampled files: each file under the partition whose location
 * holds it (the longest one: nested partition directories), read with that partition's values.
 * A file no partition holds is reported (the manifest and HMS disagree: the proof cannot stand).
 */
export function hiveSourceFor(
  inv: TableInventory,
  tableId: string,
  files: readonly string[],
): { ok: true; source: RewriteSpec['source'] } | { ok: false; why: string } {
  const all = rewriteSource(inv, tableId);
  const locations: { location: string; values: (string | null)[] }[] = [];
  for (const f of files) {
    const cf = canon(f);
    let best: { location: string; values: readonly (string | null)[] } | undefined;
    for (const l of all.locations) {
      const cl = canon(l.location);
      if (cl !== '' && cf.startsWith(`${cl}/`) && (best === undefined || cl.length > canon(best.location).length)) best = l;
    }
    if (best === undefined) return { ok: false, why: `${f} is under no location of the Hive table` };
    // Hive's spelling of the file (its partition location's scheme: the job reads it as Hive would).
    locations.push({ location: `${best.location.replace(/\/+$/, '')}${cf.slice(canon(best.location).length)}`, values: [...best.values] });
  }
  return { ok: true, source: { ...all, locations } };
}

export interface ReadBackTableInput {
  readonly tableId: string;
  readonly inventory: TableInventory;
  readonly iceberg: { readonly namespace: string; readonly name: string };
  /** Every data file of the Iceberg table's current snapshot. */
  readonly files: readonly string[];
}

export interface ReadBackSpecInput {
  readonly planHash: string;
  readonly filesPerTable: number;
  readonly catalogName: string;
  readonly catalogProperties: Readonly<Record<string, string>>;
  readonly tables: readonly ReadBackTableInput[];
}

/** The job's spec, and for every table it leaves out why (a table without files has nothing to read). */
export function readBackSpec(i: ReadBackSpecInput): { spec: ReadBackSpec | null; skipped: Map<string, string> } {
  const skipped = new Map<string, string>();
  const tables: ReadBackTable[] = [];
  for (const t of [...i.tables].sort((a, b) => (a.tableId < b.tableId ? -1 : a.tableId > b.tableId ? 1 : 0))) {
    const refusal = readBackRefusal(t.inventory);
    if (refusal !== null) {
      skipped.set(t.tableId, refusal);
      continue;
    }
    const files = sampleFiles(i.planHash, t.files, i.filesPerTable);
    if (files.length === 0) {
      skipped.set(t.tableId, 'the table has no data files');
      continue;
    }
    const src = hiveSourceFor(t.inventory, t.tableId, files);
    if (!src.ok) {
      skipped.set(t.tableId, src.why);
      continue;
    }
    tables.push({ tableId: t.tableId, iceberg: t.iceberg, files, source: src.source });
  }
  if (tables.length === 0) return { spec: null, skipped };
  return {
    spec: {
      version: READBACK_SPEC_VERSION,
      jobId: readBackJobId(
        i.planHash,
        tables.map((t) => t.tableId),
      ),
      catalog: { name: i.catalogName, properties: { ...i.catalogProperties } },
      tables,
    },
    skipped,
  };
}

/** Both sides read: equal only when rows and checksums both agree (and neither side is missing). */
export function readBackEqual(r: ReadBackTableResult): boolean {
  return (
    r.status === 'checked' &&
    r.iceberg !== undefined &&
    r.hive !== undefined &&
    r.iceberg.rows === r.hive.rows &&
    r.iceberg.checksum !== '' &&
    r.iceberg.checksum === r.hive.checksum
  );
}

/** The evidence as a validation row (`migrate validate`): proved or not made → ok, unequal → drift, unreadable → failed. */
export function readBackRow(e: ReadBackEvidence): RowInput {
  const check = DriftCheck.READ_BACK;
  if ('skipped' in e) return { check, status: 'ok', code: DriftCode.OK, expected: 'equal reads', actual: `not made: ${e.skipped}` };
  const files = `${e.files.length} sampled file(s), job ${e.jobId}`;
  if ('error' in e)
    return { check, status: 'failed', code: DriftCode.CHECK_FAILED, expected: 'equal reads', actual: `${files}: ${e.error}` };
  const side = (s: ReadBackSide): string => `${s.rows} rows, ${s.checksum.slice(0, 16)}`;
  return {
    check,
    status: e.equal ? 'ok' : 'drift',
    code: e.equal ? DriftCode.OK : DriftCode.READBACK_MISMATCH,
    expected: `Hive: ${side(e.hive)}`,
    actual: `Iceberg: ${side(e.iceberg)} (${files}, ${e.seconds}s)`,
  };
}
