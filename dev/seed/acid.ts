// Seed the insert-only ACID warehouse in a database of its own (default `lb_acid`):
// insert-only Parquet tables created through Thrift and written through the metastore's real
// transaction API, as Hive writes them: open_txns → allocate_table_write_ids → the write's files
// into `delta_<w>_<w>_0000/` (Parquet from acid_files.py) → commit_txn, or abort_txns with the files
// left on S3, or left open. Rows are deterministic from (start, count), so a test knows exactly which
// rows Hive would read. Idempotent: the database is dropped (deleteData=false) and the seed's S3
// prefix deleted first. Dev tooling.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import Int64 from 'node-int64';
import path from 'node:path';
import type { HmsConnection } from '../../adapters/hms/thrift/connection';
import { openHms } from '../../adapters/hms/thrift/connection';
import { toNumber } from '../../adapters/hms/thrift/mapping';
import * as ttypes from '../../thrift-idl/gen/hive_metastore_types';
import { deletePrefix, putObject, s3Client } from './s3';
import type { S3Settings } from './s3';
import { runPython } from './python';

export interface AcidSeedOptions {
  readonly hms: string;
  readonly database: string;
  readonly bucket: string;
  readonly s3: S3Settings;
  readonly python: string;
  readonly log: (msg: string) => void;
  /** Seed into an existing database (another seed module made it; dev/seed/lb-warehouse.ts): no drop, no create. */
  readonly keepDatabase?: boolean;
  /** Only these of the seeded tables (default all: io_events, io_sales, io_open). */
  readonly tables?: readonly string[];
}

export type WriteState = 'committed' | 'aborted' | 'open';

/** One write of one transaction: its files (relative to the bucket) and the rows they hold. */
export interface AcidSeedWrite {
  readonly txnId: number;
  readonly writeId: number;
  readonly state: WriteState;
  /** Partition value ('' when unpartitioned) → [start, count] of the rows written there. */
  readonly rows: ReadonlyArray<{ readonly partition: string; readonly start: number; readonly count: number; readonly file: string }>;
}

export interface AcidSeedTable {
  readonly name: string;
  readonly location: string;
  /** Partition values of the key `day` (empty when unpartitioned). */
  readonly partitions: readonly string[];
  readonly writes: readonly AcidSeedWrite[];
}

export interface AcidSeedManifest {
  readonly database: string;
  readonly tables: readonly AcidSeedTable[];
}

const COLUMNS = [
  { name: 'id', type: 'bigint' },
  { name: 'name', type: 'string' },
  { name: 'amount', type: 'double' },
];
const PARQUET = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  serde: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
};
const CALL_TIMEOUT_MS = 180_000;
const pad = (n: number, w: number): string => String(n).padStart(w, '0');
/** Hive's delta directory of one statement of one write (AcidUtils.deltaSubdir: %07d_%07d_%04d). */
export const deltaDir = (w: number): string => `delta_${pad(w, 7)}_${pad(w, 7)}_0000`;

function sd(location: string): ttypes.StorageDescriptor {
  return new ttypes.StorageDescriptor({
    cols: COLUMNS.map((c) => new ttypes.FieldSchema({ name: c.name, type: c.type, comment: null as unknown as string })),
    location,
    inputFormat: PARQUET.inputFormat,
    outputFormat: PARQUET.outputFormat,
    compressed: false,
    numBuckets: -1,
    serdeInfo: new ttypes.SerDeInfo({
      name: null as unknown as string,
      serializationLib: PARQUET.serde,
      parameters: { 'serialization.format': '1' },
    }),
    bucketCols: [],
    sortCols: [],
    parameters: {},
  });
}

function tableObject(db: string, name: string, location: string, partitioned: boolean): ttypes.Table {
  type TableArgs = NonNullable<ConstructorParameters<typeof ttypes.Table>[0]>;
  // Tables leave the view texts unset (null on the wire), as Hive sends them.
  return new ttypes.Table({
    tableName: name,
    dbName: db,
    owner: 'seed',
    createTime: 1_717_200_000,
    lastAccessTime: 0,
    retention: 0,
    sd: sd(location),
    partitionKeys: partitioned ? [new ttypes.FieldSchema({ name: 'day', type: 'string', comment: null as unknown as string })] : [],
    parameters: { transactional: 'true', transactional_properties: 'insert_only', 'him.seed': 'acid' },
    tableType: 'MANAGED_TABLE',
  } as Omit<TableArgs, 'viewOriginalText' | 'viewExpandedText'> as TableArgs);
}

/** A client of the metastore's transaction API for one write at a time (what Hive's DbTxnManager does). */
export class AcidWriter {
  constructor(
    private readonly hms: HmsConnection,
    private readonly o: Pick<AcidSeedOptions, 'bucket' | 's3' | 'python'>,
  ) {}

  async openTxn(): Promise<number> {
    const r = await this.hms.call('open_txns', (c) =>
      c.open_txns(new ttypes.OpenTxnRequest({ num_txns: 1, user: 'seed', hostname: 'localhost' })),
    );
    return toNumber(r.txn_ids[0]) as number;
  }

  async allocate(db: string, table: string, txnId: number): Promise<number> {
    const r = await this.hms.call('allocate_table_write_ids', (c) =>
      c.allocate_table_write_ids(new ttypes.AllocateTableWriteIdsRequest({ dbName: db, tableName: table, txnIds: [new Int64(txnId)] })),
    );
    return toNumber(r.txnToWriteIds[0]?.writeId) as number;
  }

  commit(txnId: number): Promise<void> {
    return this.hms.call('commit_txn', (c) => c.commit_txn(new ttypes.CommitTxnRequest({ txnid: new Int64(txnId) })));
  }

  abort(txnId: number): Promise<void> {
    return this.hms.call('abort_txns', (c) => c.abort_txns(new ttypes.AbortTxnsRequest({ txn_ids: [new Int64(txnId)] })));
  }

  /** Parquet files of one write, one per partition, uploaded under `<table>/<part>/delta_w_w_0000/000000_0`. */
  async writeFiles(
    table: Pick<AcidSeedTable, 'location'>,
    writeId: number,
    parts: ReadonlyArray<{ partition: string; start: number; count: number }>,
  ): Promise<AcidSeedWrite['rows']> {
    const work = mkdtempSync(path.join(os.tmpdir(), 'him-acid-'));
    try {
      const prefix = table.location.replace(/^s3a?:\/\/[^/]+\//, '');
      const spec = parts.map((p) => ({
        file: `${prefix}/${p.partition === '' ? '' : `day=${p.partition}/`}${deltaDir(writeId)}/000000_0`,
        start: p.start,
        rows: p.count,
      }));
      writeFileSync(path.join(work, 'spec.json'), JSON.stringify(spec));
      await runPython(this.o.python, ['acid_files.py', path.join(work, 'spec.json'), work]);
      const s3 = s3Client(this.o.s3);
      for (const f of spec) await putObject(s3, this.o.bucket, f.file, readFileSync(path.join(work, f.file)));
      return parts.map((p, i) => ({ ...p, file: `s3a://${this.o.bucket}/${spec[i]?.file ?? ''}` }));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  /** One whole write: open, allocate, files, then commit / abort / leave open. */
  async write(
    db: string,
    table: Pick<AcidSeedTable, 'name' | 'location'>,
    state: WriteState,
    parts: ReadonlyArray<{ partition: string; start: number; count: number }>,
  ): Promise<AcidSeedWrite> {
    const txnId = await this.openTxn();
    const writeId = await this.allocate(db, table.name, txnId);
    const rows = await this.writeFiles(table, writeId, parts);
    if (state === 'committed') await this.commit(txnId);
    if (state === 'aborted') await this.abort(txnId);
    return { txnId, writeId, state, rows };
  }
}

type Plan = ReadonlyArray<{ state: WriteState; parts: ReadonlyArray<{ partition: string; start: number; count: number }> }>;

/** The seeded tables and their writes, in order (write ids 1, 2, … per table). */
const TABLES: ReadonlyArray<{ name: string; partitions: readonly string[]; writes: Plan }> = [
  {
    name: 'io_events',
    partitions: [],
    writes: [
      { state: 'committed', parts: [{ partition: '', start: 1, count: 3 }] },
      { state: 'committed', parts: [{ partition: '', start: 4, count: 4 }] },
      { state: 'aborted', parts: [{ partition: '', start: 100, count: 5 }] },
      { state: 'committed', parts: [{ partition: '', start: 8, count: 2 }] },
    ],
  },
  {
    name: 'io_sales',
    partitions: ['2024-01-01', '2024-01-02'],
    writes: [
      {
        state: 'committed',
        parts: [
          { partition: '2024-01-01', start: 1, count: 2 },
          { partition: '2024-01-02', start: 3, count: 2 },
        ],
      },
      { state: 'aborted', parts: [{ partition: '2024-01-01', start: 200, count: 3 }] },
      { state: 'committed', parts: [{ partition: '2024-01-02', start: 5, count: 3 }] },
    ],
  },
  {
    name: 'io_open',
    partitions: [],
    writes: [
      { state: 'committed', parts: [{ partition: '', start: 1, count: 3 }] },
      { state: 'open', parts: [{ partition: '', start: 300, count: 2 }] },
    ],
  },
];

async function dropDatabase(hms: HmsConnection, db: string): Promise<void> {
  try {
    await hms.call('get_database', (c) => c.get_database(db));
  } catch {
    return;
  }
  await hms.call('drop_database', (c) => c.drop_database(db, false, true));
}

/** Drop and seed the database again; returns what was written (open transactions stay open). */
export async function seedAcid(o: AcidSeedOptions): Promise<AcidSeedManifest> {
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
  try {
    const root = `seed/${o.database}`;
    if (o.keepDatabase !== true) await dropDatabase(hms, o.database);
    await deletePrefix(s3Client(o.s3), o.bucket, `${root}/`);
    const dbLocation = `s3a://${o.bucket}/${root}`;
    if (o.keepDatabase !== true)
      await hms.call('create_database', (c) =>
        c.create_database(
          new ttypes.Database({
            name: o.database,
            description: 'insert-only ACID seed (dev/seed/acid.ts)',
            locationUri: dbLocation,
            parameters: {},
          }),
        ),
      );
    const writer = new AcidWriter(hms, o);
    const tables: AcidSeedTable[] = [];
    for (const t of TABLES.filter((x) => o.tables === undefined || o.tables.includes(x.name))) {
      const location = `${dbLocation}/${t.name}`;
      await hms.call('create_table', (c) => c.create_table(tableObject(o.database, t.name, location, t.partitions.length > 0)));
      if (t.partitions.length > 0) {
        const parts = t.partitions.map(
          (d) =>
            new ttypes.Partition({
              values: [d],
              dbName: o.database,
              tableName: t.name,
              createTime: 1_717_200_000,
              lastAccessTime: 0,
              sd: sd(`${location}/day=${d}`),
              parameters: {},
            }),
        );
        await hms.call('add_partitions', (c) => c.add_partitions(parts));
      }
      const writes: AcidSeedWrite[] = [];
      for (const w of t.writes) writes.push(await writer.write(o.database, { name: t.name, location }, w.state, w.parts));
      o.log(`${o.database}.${t.name}: ${writes.map((w) => `write ${w.writeId} ${w.state}`).join(', ')}`);
      tables.push({ name: t.name, location, partitions: t.partitions, writes });
    }
    return { database: o.database, tables };
  } finally {
    hms.close();
  }
}
