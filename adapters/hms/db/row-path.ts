// The portable read path of the backing-DB reader (MySQL/MariaDB; Postgres for skew): plain rows
// from ANSI-quoted SQL, `IN (...)` lists in chunks, partitions walked by keyset pages (PART_ID),
// column descriptors fetched once per CD_ID. Every raw → model rule is in core/hive/normalize.ts.
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { HivePartition, SerDe, StorageDescriptor } from '../../../core/hive/model';
import { normalizeSkewed, partitionValue, sqlBoolean, sqlNumber } from '../../../core/hive/normalize';
import type { DbQueries } from './queries';
import { chunks, columnsOf, groupBy, id, paramsOf, pushTo, str } from './rows';
import type { Id } from './rows';
import type { Row } from './session';

/** One SD's skew: column names, value tuples, and value tuple → location. */
export interface Skew {
  readonly names: string[];
  readonly values: string[][];
  readonly locations: { values: string[]; location: string }[];
}

/** All partitions of these tables, walked in keyset pages of `pageSize` by PART_ID. */
export async function partitionsByRows(db: DbQueries, tblIds: readonly Id[]): Promise<Map<Id, HivePartition[]>> {
  const out = new Map<Id, HivePartition[]>();
  for (const part of chunks(tblIds, db.opts.inChunk)) {
    let after = '-1';
    for (;;) {
      const page = await db.q(
        'partitions',
        `SELECT "PART_ID", "TBL_ID", "SD_ID", "PART_NAME", "CREATE_TIME", "LAST_ACCESS_TIME" FROM "PARTITIONS" WHERE "TBL_ID" IN (${part.map(() => '?').join(',')}) AND "PART_ID" > ? ORDER BY "PART_ID" LIMIT ${db.opts.pageSize}`,
        [...part, after],
      );
      if (page.length === 0) break;
      await partitionPage(db, page, out);
      after = id(page[page.length - 1]?.PART_ID);
      if (page.length < db.opts.pageSize) break;
    }
  }
  return out;
}

async function partitionPage(db: DbQueries, page: readonly Row[], out: Map<Id, HivePartition[]>): Promise<void> {
  const partIds = page.map((r) => r.PART_ID);
  const vals = groupBy(
    await db.qIn(
      'partitions',
      'SELECT "PART_ID", "PART_KEY_VAL", "INTEGER_IDX" FROM "PARTITION_KEY_VALS" WHERE "PART_ID" IN ({in})',
      partIds,
    ),
    'PART_ID',
  );
  const params = groupBy(
    await db.qIn('partitions', 'SELECT "PART_ID", "PARAM_KEY", "PARAM_VALUE" FROM "PARTITION_PARAMS" WHERE "PART_ID" IN ({in})', partIds),
    'PART_ID',
  );
  const sds = await storageDescriptorsByRows(
    db,
    page.flatMap((r) => (r.SD_ID == null ? [] : [id(r.SD_ID)])),
  );
  for (const r of page) {
    const name = String(r.PART_NAME);
    const sd = r.SD_ID == null ? undefined : sds.get(id(r.SD_ID));
    if (sd === undefined)
      throw new MigrationError(ErrorCode.HMS_BAD_METADATA, `partition ${name}: no storage descriptor in the HMS backing DB`, {
        partition: name,
      });
    const values = [...(vals.get(id(r.PART_ID)) ?? [])]
      .sort((a, b) => sqlNumber(a.INTEGER_IDX) - sqlNumber(b.INTEGER_IDX))
      .map((v) => partitionValue(str(v.PART_KEY_VAL)));
    const p: HivePartition = {
      values,
      name,
      createTime: sqlNumber(r.CREATE_TIME),
      lastAccessTime: sqlNumber(r.LAST_ACCESS_TIME),
      sd,
      parameters: paramsOf(params.get(id(r.PART_ID))),
    };
    pushTo(out, id(r.TBL_ID), p);
  }
}

/** The rows hanging off SDS: columns (once per CD_ID), SerDe and SD parameters, bucket and sort columns, skew. */
async function sdChildren(db: DbQueries, rows: readonly Row[]) {
  const ids = rows.map((r) => r.SD_ID);
  const serdeIds = rows.flatMap((r) => (r.SERDE_ID == null ? [] : [r.SERDE_ID]));
  const cdIds = rows.flatMap((r) => (r.CD_ID == null ? [] : [r.CD_ID]));
  const cols = groupBy(
    await db.qIn(
      'columns',
      'SELECT "CD_ID", "COLUMN_NAME", "TYPE_NAME", "COMMENT", "INTEGER_IDX" FROM "COLUMNS_V2" WHERE "CD_ID" IN ({in})',
      cdIds,
    ),
    'CD_ID',
  );
  const serdeParams = groupBy(
    await db.qIn('serdeParams', 'SELECT "SERDE_ID", "PARAM_KEY", "PARAM_VALUE" FROM "SERDE_PARAMS" WHERE "SERDE_ID" IN ({in})', serdeIds),
    'SERDE_ID',
  );
  const sdParams = groupBy(
    await db.qIn('sdParams', 'SELECT "SD_ID", "PARAM_KEY", "PARAM_VALUE" FROM "SD_PARAMS" WHERE "SD_ID" IN ({in})', ids),
    'SD_ID',
  );
  const bucketCols = groupBy(
    await db.qIn('bucketCols', 'SELECT "SD_ID", "BUCKET_COL_NAME", "INTEGER_IDX" FROM "BUCKETING_COLS" WHERE "SD_ID" IN ({in})', ids),
    'SD_ID',
  );
  const sortCols = groupBy(
    await db.qIn('sortCols', 'SELECT "SD_ID", "COLUMN_NAME", "ORDER", "INTEGER_IDX" FROM "SORT_COLS" WHERE "SD_ID" IN ({in})', ids),
    'SD_ID',
  );
  const skew = await skewOf(db, ids);
  return { cols, serdeParams, sdParams, bucketCols, sortCols, skew };
}

/** Storage descriptors by SD_ID, with SerDe, columns (once per CD_ID), params, bucketing, sort and skew. */
export async function storageDescriptorsByRows(db: DbQueries, sdIds: readonly Id[]): Promise<Map<Id, StorageDescriptor>> {
  const out = new Map<Id, StorageDescriptor>();
  if (sdIds.length === 0) return out;
  const rows = await db.qIn(
    'storageDescriptors',
    'SELECT s."SD_ID", s."CD_ID", s."SERDE_ID", s."LOCATION", s."INPUT_FORMAT", s."OUTPUT_FORMAT", s."IS_COMPRESSED", s."NUM_BUCKETS", s."IS_STOREDASSUBDIRECTORIES", d."NAME" AS "SERDE_NAME", d."SLIB" FROM "SDS" s LEFT JOIN "SERDES" d ON d."SERDE_ID" = s."SERDE_ID" WHERE s."SD_ID" IN ({in})',
    sdIds,
  );
  const { cols, serdeParams, sdParams, bucketCols, sortCols, skew } = await sdChildren(db, rows);
  const byIdx = (a: Row, b: Row): number => sqlNumber(a.INTEGER_IDX) - sqlNumber(b.INTEGER_IDX);
  for (const r of rows) {
    const sdId = id(r.SD_ID);
    const serde: SerDe =
      r.SERDE_ID == null
        ? { name: null, serializationLib: null, parameters: {} }
        : { name: str(r.SERDE_NAME), serializationLib: str(r.SLIB), parameters: paramsOf(serdeParams.get(id(r.SERDE_ID))) };
    const s = skew.get(sdId);
    out.set(sdId, {
      columns: r.CD_ID == null ? [] : columnsOf(cols.get(id(r.CD_ID)), 'COLUMN'),
      location: str(r.LOCATION),
      inputFormat: str(r.INPUT_FORMAT),
      outputFormat: str(r.OUTPUT_FORMAT),
      compressed: sqlBoolean(r.IS_COMPRESSED),
      numBuckets: sqlNumber(r.NUM_BUCKETS, -1),
      serde,
      bucketColumns: [...(bucketCols.get(sdId) ?? [])].sort(byIdx).map((b) => String(b.BUCKET_COL_NAME)),
      sortColumns: [...(sortCols.get(sdId) ?? [])].sort(byIdx).map((o) => ({ column: String(o.COLUMN_NAME), order: sqlNumber(o.ORDER) })),
      parameters: paramsOf(sdParams.get(sdId)),
      skewed: normalizeSkewed(s?.names ?? [], s?.values ?? [], s?.locations ?? []),
      storedAsSubDirectories: sqlBoolean(r.IS_STOREDASSUBDIRECTORIES),
    });
  }
  return out;
}

const num = (r: Row, k: string): number => sqlNumber(r[k]);

/** One string list per (SD, list id); lists ordered by `order`, values by their own INTEGER_IDX. */
function stringLists(rows: readonly Row[], sdKey: string, listKey: string, order: (r: Row) => number) {
  const m = new Map<string, { sd: Id; order: number; values: [number, string][]; row: Row }>();
  for (const r of rows) {
    const k = `${id(r[sdKey])}/${id(r[listKey])}`;
    let l = m.get(k);
    if (!l) m.set(k, (l = { sd: id(r[sdKey]), order: order(r), values: [], row: r }));
    if (r.STRING_LIST_VALUE !== null && r.STRING_LIST_VALUE !== undefined)
      l.values.push([num(r, 'VALUE_IDX'), String(r.STRING_LIST_VALUE)]);
  }
  return [...m.values()]
    .sort((a, b) => a.order - b.order)
    .map((l) => ({ ...l, tuple: l.values.sort((a, b) => a[0] - b[0]).map((v) => v[1]) }));
}

/** SKEWED_COL_NAMES, SKEWED_VALUES → string lists, SKEWED_COL_VALUE_LOC_MAP → string lists, per SD. */
export async function skewOf(db: DbQueries, sdIds: readonly unknown[]): Promise<Map<Id, Skew>> {
  const names = await db.qIn(
    'skew',
    'SELECT "SD_ID", "SKEWED_COL_NAME", "INTEGER_IDX" FROM "SKEWED_COL_NAMES" WHERE "SD_ID" IN ({in})',
    sdIds,
  );
  const values = await db.qIn(
    'skew',
    'SELECT v."SD_ID_OID", v."STRING_LIST_ID_EID", v."INTEGER_IDX", l."STRING_LIST_VALUE", l."INTEGER_IDX" AS "VALUE_IDX" FROM "SKEWED_VALUES" v LEFT JOIN "SKEWED_STRING_LIST_VALUES" l ON l."STRING_LIST_ID" = v."STRING_LIST_ID_EID" WHERE v."SD_ID_OID" IN ({in})',
    sdIds,
  );
  const locs = await db.qIn(
    'skew',
    'SELECT m."SD_ID", m."STRING_LIST_ID_KID", m."LOCATION", l."STRING_LIST_VALUE", l."INTEGER_IDX" AS "VALUE_IDX" FROM "SKEWED_COL_VALUE_LOC_MAP" m LEFT JOIN "SKEWED_STRING_LIST_VALUES" l ON l."STRING_LIST_ID" = m."STRING_LIST_ID_KID" WHERE m."SD_ID" IN ({in})',
    sdIds,
  );
  const out = new Map<Id, Skew>();
  const entry = (sd: Id): Skew => {
    let e = out.get(sd);
    if (!e) out.set(sd, (e = { names: [], values: [], locations: [] }));
    return e;
  };
  for (const r of [...names].sort((a, b) => num(a, 'INTEGER_IDX') - num(b, 'INTEGER_IDX')))
    entry(id(r.SD_ID)).names.push(String(r.SKEWED_COL_NAME));
  for (const l of stringLists(values, 'SD_ID_OID', 'STRING_LIST_ID_EID', (r) => num(r, 'INTEGER_IDX'))) entry(l.sd).values.push(l.tuple);
  for (const l of stringLists(locs, 'SD_ID', 'STRING_LIST_ID_KID', (r) => num(r, 'STRING_LIST_ID_KID')))
    entry(l.sd).locations.push({ values: l.tuple, location: String(l.row.LOCATION ?? '') });
  return out;
}
