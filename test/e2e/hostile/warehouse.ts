// A small hostile Hive warehouse for the corpus: real Parquet files (written by pyarrow, the stack's
// verifier venv) under s3a://hive/hostile/<prefix>/, registered in the stack's HMS (hms-pg) through
// the product's Thrift writer; what HMS refuses to store (a relative or empty location) is written
// into its backing database afterwards, as a careless operator's SQL would. Not a test file.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { ThriftHmsWriter } from '../../../adapters/hms/thrift/writer';
import type { HiveColumn, HivePartition, HiveTable, StorageDescriptor } from '../../../core/hive/model';
import { env, openStore } from '../../helpers/hostile';

/** What each table is made of. */
export type Kind =
  | 'good'
  | 'bucketed'
  | 'badint'
  | 'emptyloc'
  | 'relloc'
  | 'shared'
  | 'missingdir'
  | 'view_notext'
  | 'zerobyte'
  | 'truncfooter'
  | 'badmagic'
  /** A good Parquet file whose name readers cannot open from a manifest (`;`, `?`, `#`). */
  | 'oddname';

export interface Built {
  readonly id: string;
  readonly name: string;
  readonly kind: Kind;
  /** Where its files are (the HMS location may say otherwise: emptyloc, relloc). */
  readonly location: string;
}

const PARQUET = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
};
const COLUMNS: HiveColumn[] = [
  { name: 'id', type: 'int', comment: null },
  { name: 'name', type: 'string', comment: null },
];

function sd(location: string | null, extra: Partial<StorageDescriptor> = {}): StorageDescriptor {
  return {
    columns: COLUMNS,
    location,
    inputFormat: PARQUET.inputFormat,
    outputFormat: PARQUET.outputFormat,
    compressed: false,
    numBuckets: -1,
    serde: { name: null, serializationLib: PARQUET.serializationLib, parameters: { 'serialization.format': '1' } },
    bucketColumns: [],
    sortColumns: [],
    parameters: {},
    skewed: null,
    storedAsSubDirectories: false,
    ...extra,
  };
}

function table(db: string, name: string, s: StorageDescriptor, extra: Partial<HiveTable> = {}): HiveTable {
  return {
    database: db,
    name,
    owner: 'him-hostile',
    ownerType: 'USER',
    createTime: 1_700_000_000,
    lastAccessTime: 0,
    retention: 0,
    tableType: 'EXTERNAL_TABLE',
    sd: s,
    partitionKeys: [],
    parameters: { EXTERNAL: 'TRUE' },
    viewOriginalText: null,
    viewExpandedText: null,
    temporary: false,
    ...extra,
  };
}

const part = (values: string[], location: string): HivePartition => ({
  values,
  name: '',
  createTime: 1_700_000_100,
  lastAccessTime: 0,
  sd: sd(location),
  parameters: {},
});

/** One small Parquet file (3 rows of id int32, name string), written by pyarrow. */
async function parquetBytes(): Promise<Uint8Array> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-pq-'));
  const file = path.join(dir, 'f.parquet');
  const py = `import pyarrow as pa, pyarrow.parquet as pq\npq.write_table(pa.table({'id': pa.array([1, 2, 3], pa.int32()), 'name': ['a', 'b', 'c']}), ${JSON.stringify(file)})`;
  await promisify(execFile)(env.HIM_VERIFIER_PYTHON as string, ['-c', py]);
  const bytes = new Uint8Array(readFileSync(file));
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

/** The same file with half of its footer cut out (length and magic kept): a truncated footer. */
function truncatedFooter(b: Uint8Array): Uint8Array {
  const footerLen = new DataView(b.buffer, b.byteOffset).getUint32(b.length - 8, true);
  const keep = b.length - 8 - Math.ceil(footerLen / 2);
  const out = new Uint8Array(keep + 8);
  out.set(b.subarray(0, keep));
  out.set(b.subarray(b.length - 8), keep);
  return out;
}

function wrongMagic(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b);
  out.set(new TextEncoder().encode('PAR0'), out.length - 4);
  return out;
}

export const rootOf = (prefix: string): string => `s3a://hive/hostile/${prefix}`;

/** Tables (name → kind) in database `db`; returns what was built. `shared` tables all share one location. */
export async function buildWarehouse(prefix: string, db: string, tables: Readonly<Record<string, Kind>>): Promise<Built[]> {
  const root = rootOf(prefix);
  const store = openStore([`${root}/`]);
  const hms = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string } as never);
  const pq = await parquetBytes();
  const built: Built[] = [];
  const sqlLocations: [string, string][] = [];
  try {
    await hms.createDatabase({
      name: db,
      description: 'hostile corpus',
      locationUri: `${root}/${db}`,
      parameters: {},
      owner: 'him-hostile',
      ownerType: 'USER',
    } as never);
    for (const [name, kind] of Object.entries(tables)) {
      const location = kind === 'shared' ? `${root}/shared` : `${root}/${name}`;
      const put = (key: string, bytes: Uint8Array) =>
        store.put(`${location}/${key}`, bytes).catch((e: { code?: string }) => {
          if (e.code !== 'STORAGE_PRECONDITION_FAILED') throw e;
        });
      if (kind === 'view_notext') {
        await hms.createTable(table(db, name, sd(null), { tableType: 'VIRTUAL_VIEW', parameters: {} }));
      } else if (kind === 'badint' || kind === 'missingdir') {
        const key: HiveColumn = { name: 'p', type: kind === 'badint' ? 'int' : 'string', comment: null };
        await hms.createTable(table(db, name, sd(location), { partitionKeys: [key] }));
        const values = kind === 'badint' ? ['abc'] : ['a', 'b'];
        await put(`p=${values[0] as string}/part-00000.parquet`, pq); // p=b of missingdir stays without files
        await hms.addPartitions(
          db,
          name,
          values.map((v) => part([v], `${location}/p=${v}`)),
        );
      } else {
        const extra: Partial<StorageDescriptor> = kind === 'bucketed' ? { numBuckets: 4, bucketColumns: ['id'] } : {};
        await hms.createTable(table(db, name, sd(location, extra)));
        const bytes = kind === 'truncfooter' ? truncatedFooter(pq) : kind === 'badmagic' ? wrongMagic(pq) : pq;
        await put(kind === 'bucketed' ? '000000_0' : kind === 'oddname' ? 'part;00000?v=1#x.parquet' : 'part-00000.parquet', bytes);
        if (kind === 'zerobyte') await put('part-00001.parquet', new Uint8Array());
        if (kind === 'emptyloc') sqlLocations.push([name, '']);
        if (kind === 'relloc') sqlLocations.push([name, `hostile/${prefix}/${name}`]);
      }
      built.push({ id: `${db}.${name}`, name, kind, location });
    }
  } finally {
    await hms.close();
    store.destroy();
  }
  if (sqlLocations.length > 0) await setLocations(db, sqlLocations);
  return built;
}

/** Locations HMS would not store through Thrift, written into its backing database. */
export async function setLocations(db: string, locations: readonly [string, string][]): Promise<void> {
  const pg = new Client({ connectionString: env.HIM_HMS_POSTGRES_URL as string });
  await pg.connect();
  try {
    for (const [name, loc] of locations) {
      const r = await pg.query(
        'UPDATE "SDS" SET "LOCATION" = $1 WHERE "SD_ID" = (SELECT t."SD_ID" FROM "TBLS" t JOIN "DBS" d ON d."DB_ID" = t."DB_ID" WHERE d."NAME" = $2 AND t."TBL_NAME" = $3)',
        [loc, db, name],
      );
      if (r.rowCount !== 1) throw new Error(`could not set the location of ${db}.${name}`);
    }
  } finally {
    await pg.end();
  }
}

/** A partition's location as an operator's SQL sets it (HMS would store a file: one through Thrift too; this is quicker). */
export async function setPartitionLocation(db: string, tbl: string, partName: string, location: string): Promise<void> {
  const pg = new Client({ connectionString: env.HIM_HMS_POSTGRES_URL as string });
  await pg.connect();
  try {
    const r = await pg.query(
      'UPDATE "SDS" SET "LOCATION" = $1 WHERE "SD_ID" = (SELECT p."SD_ID" FROM "PARTITIONS" p JOIN "TBLS" t ON t."TBL_ID" = p."TBL_ID" JOIN "DBS" d ON d."DB_ID" = t."DB_ID" WHERE d."NAME" = $2 AND t."TBL_NAME" = $3 AND p."PART_NAME" = $4)',
      [location, db, tbl, partName],
    );
    if (r.rowCount !== 1) throw new Error(`could not set the location of ${db}.${tbl} ${partName}`);
  } finally {
    await pg.end();
  }
}

/** Drop the tables (deleteData=false), the database and every object under the prefix. */
export async function dropWarehouse(prefix: string, db: string, names: readonly string[]): Promise<void> {
  const hms = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string } as never);
  for (const n of names) await hms.dropTable(db, n).catch(() => undefined);
  await hms.dropDatabase(db).catch(() => undefined);
  await hms.close();
  const root = `${rootOf(prefix)}/`;
  const store = openStore([root]);
  const files: string[] = [];
  for await (const e of store.list(root, { recursive: true })) if (e.kind === 'file') files.push(e.path);
  for (const f of files) await store.delete(f).catch(() => undefined);
  store.destroy();
}

/** Drop one table from HMS (a table dropped after planning); its files stay. */
export async function dropHmsTable(db: string, name: string): Promise<void> {
  const hms = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string } as never);
  try {
    await hms.dropTable(db, name);
  } finally {
    await hms.close();
  }
}
