// What HMS metadata cannot tell the assessment, read from storage: one listing of each table's
// first location (sub-directories mean files a metadata-only conversion would leave out: skew,
// list-bucketing, ACID base_/delta_ layouts the metastore does not admit to) and the footers of up
// to `filesPerTable` Parquet files (INT96 timestamps). Bounded concurrency; a table whose storage
// cannot be read gets STORAGE_NOT_SAMPLED (warn) naming the error, never a crash.
import { MigrationError } from '../../core/errors';
import { detectFormat } from '../../core/hive/formats';
import type { TableInventory } from '../../core/hive/model';
import { FileFormat, TableType } from '../../core/hive/model';
import type { AssessFinding } from '../../core/plan/assess/types';
import { AssessCode, finding } from '../../core/plan/assess/types';
import type { ObjectStore } from '../../core/storage/object-store';
import { decodeParquetFooterSync, readParquetFooterBytes } from '../../adapters/formats/parquet';
import { PhysicalType } from '../../adapters/formats/parquet-thrift';
import { listPartition } from '../../adapters/storage/list-partition';
import { mapOrdered } from '../convert/ordered-pool';

export interface StorageSampleOptions {
  readonly filesPerTable?: number;
  readonly concurrency?: number;
}

function firstLocation(t: TableInventory): string | null {
  if (t.table.partitionKeys.length === 0) return t.table.sd.location;
  return t.partitions[0]?.sd.location ?? null;
}

async function sampleOne(store: ObjectStore, t: TableInventory, filesPerTable: number): Promise<AssessFinding[]> {
  if (t.table.tableType === TableType.VIRTUAL_VIEW || t.table.tableType === TableType.MATERIALIZED_VIEW) return [];
  const format = detectFormat(t.table.sd, t.table.parameters);
  if (format !== FileFormat.PARQUET && format !== FileFormat.ORC && format !== FileFormat.AVRO) return [];
  const loc = firstLocation(t);
  if (loc === null || loc === '') return [];
  const out: AssessFinding[] = [];
  try {
    const l = await listPartition(store, loc.replace(/\/+$/, ''));
    const subdirs = l.findings.filter((f) => f.code === 'LISTING_SUBDIRECTORY' && !/\/metadata\/?$/.test(f.path)).map((f) => f.path);
    if (subdirs.length > 0) {
      out.push(finding(AssessCode.DATA_IN_SUBDIRECTORIES, 'rewrite', `${loc} holds sub-directories: ${subdirs.slice(0, 3).join(', ')}${subdirs.length > 3 ? ` (+${subdirs.length - 3})` : ''}`, 'rewrite the table (or flatten the directories); a metadata-only conversion would leave those files out'));
    }
    if (format === FileFormat.PARQUET && l.files.length > 0) {
      const n = l.files.length;
      const picks = [...new Set([0, n - 1, Math.floor(n / 2)].slice(0, Math.max(1, filesPerTable)))].map((i) => l.files[i]).filter((f) => f !== undefined);
      const int96: string[] = [];
      for (const f of picks) {
        const md = decodeParquetFooterSync(f.path, await readParquetFooterBytes(store, f.path, f.size));
        for (const e of md.schema) if (e.type === PhysicalType.INT96 && !int96.includes(e.name)) int96.push(e.name);
      }
      if (int96.length > 0) out.push(finding(AssessCode.INT96_TIMESTAMP, 'warn', `INT96 timestamps in ${int96.join(', ')} (sampled ${picks.length} file(s) of ${loc})`, 'migrates as is: readers convert INT96; bounds are withheld for those columns, so predicates on them do not prune files'));
    }
  } catch (e) {
    // Not a reason to stop planning, but the reviewer must know what the plan could not check.
    const why = e instanceof MigrationError ? `${e.code}: ${e.message}` : String(e);
    out.push(finding(AssessCode.STORAGE_NOT_SAMPLED, 'warn', `${loc}: ${why}`, 'its files were not checked for sub-directories or INT96 timestamps: fix storage.* or the AWS credentials in the environment and assess again (apply reads the files anyway and fails the table coded if they are unreadable)'));
  }
  return out;
}

/** Findings per table id (`db.table`, lower-case) for every table whose storage tells something. */
export async function sampleStorage(store: ObjectStore, inventory: readonly TableInventory[], o: StorageSampleOptions = {}): Promise<Map<string, AssessFinding[]>> {
  const out = new Map<string, AssessFinding[]>();
  for await (const [t, f] of mapOrdered(inventory, o.concurrency ?? 16, async (t) => [t, await sampleOne(store, t, o.filesPerTable ?? 3)] as const)) {
    if (f.length > 0) out.set(`${t.table.database}.${t.table.name}`.toLowerCase(), f);
  }
  return out;
}
