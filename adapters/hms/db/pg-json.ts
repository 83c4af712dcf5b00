// The Postgres read path of the backing-DB reader: storage descriptors and partition pages as one
// JSON document per statement, built by the server, so the client does one JSON.parse per page
// instead of a row object per value; partition groups read side by side on forks of the snapshot.
// Same model as row-path.ts (skew goes through it); every raw → model rule is in core/hive/normalize.ts.
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { HiveColumn, HivePartition, StorageDescriptor } from '../../../core/hive/model';
import { normalizeParams, normalizeSkewed, partitionValue, sqlBoolean, sqlNumber } from '../../../core/hive/normalize';
import type { DbQueries } from './queries';
import { skewOf } from './row-path';
import type { Skew } from './row-path';
import { chunks, id, pushTo, str } from './rows';
import type { Id } from './rows';
import type { SqlSession } from './session';

type Pairs = [string, string | null][] | null;
/**
 * One partition of a JSON page: [PART_ID, TBL_ID, PART_NAME, CREATE_TIME, LAST_ACCESS_TIME, SD_ID,
 * CD_ID, LOCATION, INPUT_FORMAT, OUTPUT_FORMAT, IS_COMPRESSED, NUM_BUCKETS, IS_STOREDASSUBDIRECTORIES,
 * SERDE_ID, SERDE NAME, SLIB] as text, key values, parameters, SerDe parameters, SD parameters,
 * bucket columns, sort columns, has skew rows.
 */
type PageTuple = [(string | null)[], (string | null)[] | null, Pairs, Pairs, Pairs, string[] | null, [string, unknown][] | null, boolean];
/** SDS + SERDES columns, serde params, SD params, bucket columns, sort columns, has skew rows. */
type SdTuple = [
  unknown,
  unknown,
  unknown,
  unknown,
  unknown,
  unknown,
  unknown,
  unknown,
  unknown,
  unknown,
  unknown,
  Pairs,
  Pairs,
  string[] | null,
  [string, unknown][] | null,
  boolean,
];
/** Column descriptors already read in this getTables call, by CD_ID. */
export type CdCache = Map<Id, HiveColumn[]>;

/** One page of partitions (PART_ID > $2) of the tables in $1, with their SDs, as one JSON document. */
const pageSql = (pageSize: number): string =>
  `SELECT json_agg(json_build_array(
           array_to_json(ARRAY[p."PART_ID"::text, p."TBL_ID"::text, p."PART_NAME", p."CREATE_TIME"::text, p."LAST_ACCESS_TIME"::text,
             s."SD_ID"::text, s."CD_ID"::text, s."LOCATION", s."INPUT_FORMAT", s."OUTPUT_FORMAT", s."IS_COMPRESSED"::text, s."NUM_BUCKETS"::text,
             s."IS_STOREDASSUBDIRECTORIES"::text, s."SERDE_ID"::text, d."NAME", d."SLIB"]),
           (SELECT array_to_json(array_agg(x."PART_KEY_VAL" ORDER BY x."INTEGER_IDX")) FROM "PARTITION_KEY_VALS" x WHERE x."PART_ID" = p."PART_ID"),
           (SELECT array_to_json(array_agg(ARRAY[x."PARAM_KEY", x."PARAM_VALUE"])) FROM "PARTITION_PARAMS" x WHERE x."PART_ID" = p."PART_ID"),
           (SELECT array_to_json(array_agg(ARRAY[x."PARAM_KEY", x."PARAM_VALUE"])) FROM "SERDE_PARAMS" x WHERE x."SERDE_ID" = s."SERDE_ID"),
           (SELECT array_to_json(array_agg(ARRAY[x."PARAM_KEY", x."PARAM_VALUE"])) FROM "SD_PARAMS" x WHERE x."SD_ID" = s."SD_ID"),
           (SELECT array_to_json(array_agg(x."BUCKET_COL_NAME" ORDER BY x."INTEGER_IDX")) FROM "BUCKETING_COLS" x WHERE x."SD_ID" = s."SD_ID"),
           (SELECT json_agg(json_build_array(x."COLUMN_NAME", x."ORDER") ORDER BY x."INTEGER_IDX") FROM "SORT_COLS" x WHERE x."SD_ID" = s."SD_ID"),
           (EXISTS (SELECT 1 FROM "SKEWED_COL_NAMES" x WHERE x."SD_ID" = s."SD_ID") OR EXISTS (SELECT 1 FROM "SKEWED_VALUES" x WHERE x."SD_ID_OID" = s."SD_ID")
             OR EXISTS (SELECT 1 FROM "SKEWED_COL_VALUE_LOC_MAP" x WHERE x."SD_ID" = s."SD_ID"))
         ) ORDER BY p."PART_ID")::text AS "DOC", max(p."PART_ID") AS "LAST", count(*) AS "N"
         FROM (SELECT * FROM "PARTITIONS" WHERE "TBL_ID" = ANY(?::bigint[]) AND "PART_ID" > ? ORDER BY "PART_ID" LIMIT ${pageSize}) p
         LEFT JOIN "SDS" s ON s."SD_ID" = p."SD_ID" LEFT JOIN "SERDES" d ON d."SERDE_ID" = s."SERDE_ID"`;

const SDS_SQL = `SELECT coalesce(json_agg(json_build_array(s."SD_ID", s."CD_ID", s."LOCATION", s."INPUT_FORMAT", s."OUTPUT_FORMAT", s."IS_COMPRESSED", s."NUM_BUCKETS",
         s."IS_STOREDASSUBDIRECTORIES", s."SERDE_ID", d."NAME", d."SLIB",
         (SELECT json_agg(json_build_array(x."PARAM_KEY", x."PARAM_VALUE")) FROM "SERDE_PARAMS" x WHERE x."SERDE_ID" = s."SERDE_ID"),
         (SELECT json_agg(json_build_array(x."PARAM_KEY", x."PARAM_VALUE")) FROM "SD_PARAMS" x WHERE x."SD_ID" = s."SD_ID"),
         (SELECT json_agg(x."BUCKET_COL_NAME" ORDER BY x."INTEGER_IDX") FROM "BUCKETING_COLS" x WHERE x."SD_ID" = s."SD_ID"),
         (SELECT json_agg(json_build_array(x."COLUMN_NAME", x."ORDER") ORDER BY x."INTEGER_IDX") FROM "SORT_COLS" x WHERE x."SD_ID" = s."SD_ID"),
         (EXISTS (SELECT 1 FROM "SKEWED_COL_NAMES" x WHERE x."SD_ID" = s."SD_ID") OR EXISTS (SELECT 1 FROM "SKEWED_VALUES" x WHERE x."SD_ID_OID" = s."SD_ID")
           OR EXISTS (SELECT 1 FROM "SKEWED_COL_VALUE_LOC_MAP" x WHERE x."SD_ID" = s."SD_ID"))
       )), '[]')::text AS "DOC"
       FROM "SDS" s LEFT JOIN "SERDES" d ON d."SERDE_ID" = s."SERDE_ID" WHERE s."SD_ID" = ANY(?::bigint[])`;

/** A storage descriptor from its JSON tuple, columns from the cache, skew as read (if any). */
function sdFromTuple(t: SdTuple, sk: Skew | undefined, cdCache: CdCache): StorageDescriptor {
  const [
    ,
    cdId,
    location,
    inputFormat,
    outputFormat,
    compressed,
    numBuckets,
    subDirs,
    serdeId,
    serdeName,
    slib,
    serdeParams,
    sdParams,
    buckets,
    sorts,
  ] = t;
  return {
    columns: cdId == null ? [] : [...(cdCache.get(id(cdId)) ?? [])],
    location: str(location),
    inputFormat: str(inputFormat),
    outputFormat: str(outputFormat),
    compressed: sqlBoolean(compressed),
    numBuckets: sqlNumber(numBuckets, -1),
    serde:
      serdeId == null
        ? { name: null, serializationLib: null, parameters: {} }
        : { name: str(serdeName), serializationLib: str(slib), parameters: normalizeParams(serdeParams ?? []) },
    bucketColumns: (buckets ?? []).map(String),
    sortColumns: (sorts ?? []).map(([column, order]) => ({ column: String(column), order: sqlNumber(order) })),
    parameters: normalizeParams(sdParams ?? []),
    skewed: normalizeSkewed(sk?.names ?? [], sk?.values ?? [], sk?.locations ?? []),
    storedAsSubDirectories: sqlBoolean(subDirs),
  };
}

/** Columns of these CD_IDs into the cache (once per getTables call), in INTEGER_IDX order. */
async function columnsFor(
  db: DbQueries,
  cdIds: readonly (string | null)[],
  cdCache: CdCache,
  session: SqlSession = db.session,
): Promise<void> {
  const missing = [...new Set(cdIds.flatMap((c) => (c == null || cdCache.has(c) ? [] : [c])))];
  if (missing.length === 0) return;
  const cols = await db.q(
    'columns',
    `SELECT coalesce(json_agg(json_build_array(c."CD_ID"::text, c."COLUMN_NAME", c."TYPE_NAME", c."COMMENT") ORDER BY c."CD_ID", c."INTEGER_IDX"), '[]')::text AS "DOC"
       FROM "COLUMNS_V2" c WHERE c."CD_ID" = ANY(?::bigint[])`,
    [missing],
    session,
  );
  const got = new Map<Id, HiveColumn[]>(missing.map((cd) => [cd, []]));
  for (const [cd, name, type, comment] of JSON.parse(String(cols[0]?.DOC ?? '[]')) as [string, string, string | null, string | null][]) {
    got.get(cd)?.push({ name: String(name), type: String(type ?? ''), comment: str(comment) });
  }
  for (const [cd, c] of got) cdCache.set(cd, c);
}

/**
 * Storage descriptors as one JSON document (SerDe, its and the SD's parameters, bucket and sort
 * columns in INTEGER_IDX order, whether any skew rows exist); columns once per CD_ID for the whole
 * getTables call; skew through the portable path, only for the SDs that have any.
 */
export async function storageDescriptorsJson(db: DbQueries, sdIds: readonly Id[], cdCache: CdCache): Promise<Map<Id, StorageDescriptor>> {
  const out = new Map<Id, StorageDescriptor>();
  if (sdIds.length === 0) return out;
  const rows = await db.q('storageDescriptors', SDS_SQL, [[...new Set(sdIds)]]);
  const sds = JSON.parse(String(rows[0]?.DOC ?? '[]')) as SdTuple[];
  await columnsFor(
    db,
    sds.map((r) => (r[1] == null ? null : id(r[1]))),
    cdCache,
  );
  const skewed = sds.filter((r) => r[15] === true).map((r) => id(r[0]));
  const skew = skewed.length === 0 ? new Map<Id, never>() : await skewOf(db, skewed);
  for (const t of sds) out.set(id(t[0]), sdFromTuple(t, skew.get(id(t[0])), cdCache));
  return out;
}

/**
 * All partitions of these tables. Tables are cut into groups; each group is walked in keyset pages
 * of `pageSize` (PART_ID) by one of the sessions sharing the snapshot, side by side. A page is one
 * statement whose answer is one JSON document — partition row, key values in order, parameters,
 * its storage descriptor with SerDe, parameters, bucket and sort columns, and whether it has skew rows.
 */
export async function partitionsJson(db: DbQueries, tblIds: readonly Id[], cdCache: CdCache): Promise<Map<Id, HivePartition[]>> {
  const out = new Map<Id, HivePartition[]>();
  const sessions = await db.workers();
  const groups = chunks(tblIds, Math.max(1, Math.ceil(tblIds.length / (sessions.length * 4))));
  let next = 0;
  await Promise.all(
    sessions.map(async (session) => {
      while (next < groups.length) {
        const group = groups[next++] as Id[];
        await partitionGroupJson(db, session, group, cdCache, out);
      }
    }),
  );
  return out;
}

async function partitionGroupJson(
  db: DbQueries,
  session: SqlSession,
  tblIds: readonly Id[],
  cdCache: CdCache,
  out: Map<Id, HivePartition[]>,
): Promise<void> {
  let after = '-1';
  for (;;) {
    const rows = await db.q('partitions', pageSql(db.opts.pageSize), [tblIds, after], session);
    const n = sqlNumber(rows[0]?.N);
    if (n === 0) return;
    const page = JSON.parse(String(rows[0]?.DOC)) as PageTuple[];
    await columnsFor(
      db,
      page.flatMap((r) => (r[0][6] == null ? [] : [r[0][6]])),
      cdCache,
      session,
    );
    const skewed = page.filter((r) => r[7] === true).map((r) => r[0][5] as string);
    // Skew look-ups run on the leader session.
    const skew = skewed.length === 0 ? new Map<Id, never>() : await skewOf(db, skewed);
    for (const t of page) addPartition(t, skew, cdCache, out);
    if (n < db.opts.pageSize) return;
    after = id(rows[0]?.LAST);
  }
}

function addPartition(t: PageTuple, skew: ReadonlyMap<Id, Skew>, cdCache: CdCache, out: Map<Id, HivePartition[]>): void {
  const [f, vals, params, serdeParams, sdParams, buckets, sorts] = t;
  const [, tblId, name, createTime, lastAccessTime, sdId, ...sdFields] = f;
  if (sdId == null)
    throw new MigrationError(ErrorCode.HMS_BAD_METADATA, `partition ${name}: no storage descriptor in the HMS backing DB`, {
      partition: name,
    });
  // [CD_ID … SLIB] from the page row, then the SD's own aggregates: the shape storageDescriptorsJson reads.
  const [cdId, location, inputFormat, outputFormat, compressed, numBuckets, subDirs, serdeId, serdeName, slib] = sdFields;
  const sdTuple: SdTuple = [
    sdId,
    cdId,
    location,
    inputFormat,
    outputFormat,
    compressed,
    numBuckets,
    subDirs,
    serdeId,
    serdeName,
    slib,
    serdeParams,
    sdParams,
    buckets,
    sorts,
    false,
  ];
  const p: HivePartition = {
    values: (vals ?? []).map((v) => partitionValue(v)),
    name: String(name),
    createTime: sqlNumber(createTime),
    lastAccessTime: sqlNumber(lastAccessTime),
    sd: sdFromTuple(sdTuple, skew.get(sdId), cdCache),
    parameters: normalizeParams(params ?? []),
  };
  pushTo(out, tblId as string, p);
}
