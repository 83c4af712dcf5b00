// HmsReader over the HMS backing database (schema: hms.md §4): the same core/hive model as the
// Thrift path, from batched SQL — `IN (...)` lists in chunks, partitions walked by keyset pages
// (PART_ID), column descriptors fetched once per CD_ID. Driver-neutral: a SqlSession supplies the
// connection (postgres.ts, mysql.ts). Every raw → model rule is in core/hive/normalize.ts.
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { HiveColumn, HiveDatabase, HivePartition, HiveTable, HmsReader, SerDe, StorageDescriptor, TableInventory } from '../../../core/hive/model';
import {
  databaseOwnerType, nullable, normalizeParams, normalizeSkewed, partitionValue, sortNames, sortPartitions, sqlBoolean, sqlNumber, tableOwnerType,
} from '../../../core/hive/normalize';
import { DEFAULT_DB_OPTIONS, translateSqlError } from './session';
import type { HmsDbOptions, Row, SqlSession } from './session';

type Id = string;
const id = (v: unknown): Id => String(v);
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function chunks<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

function groupBy(rows: readonly Row[], key: string): Map<Id, Row[]> {
  const m = new Map<Id, Row[]>();
  for (const r of rows) {
    const k = id(r[key]);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
}

function paramsOf(rows: readonly Row[] | undefined) {
  return normalizeParams((rows ?? []).map((r) => [String(r.PARAM_KEY), str(r.PARAM_VALUE)] as const));
}

function columnsOf(rows: readonly Row[] | undefined, prefix: 'COLUMN' | 'PKEY'): HiveColumn[] {
  const sorted = [...(rows ?? [])].sort((a, b) => sqlNumber(a.INTEGER_IDX) - sqlNumber(b.INTEGER_IDX));
  return prefix === 'COLUMN'
    ? sorted.map((r) => ({ name: String(r.COLUMN_NAME), type: String(r.TYPE_NAME ?? ''), comment: str(r.COMMENT) }))
    : sorted.map((r) => ({ name: String(r.PKEY_NAME), type: String(r.PKEY_TYPE ?? ''), comment: str(r.PKEY_COMMENT) }));
}

type Pairs = [string, string | null][] | null;
/** PART_ID, TBL_ID, SD_ID, PART_NAME, CREATE_TIME, LAST_ACCESS_TIME, key values, parameters. */
/**
 * One partition of a JSON page: [PART_ID, TBL_ID, PART_NAME, CREATE_TIME, LAST_ACCESS_TIME, SD_ID,
 * CD_ID, LOCATION, INPUT_FORMAT, OUTPUT_FORMAT, IS_COMPRESSED, NUM_BUCKETS, IS_STOREDASSUBDIRECTORIES,
 * SERDE_ID, SERDE NAME, SLIB] as text, key values, parameters, SerDe parameters, SD parameters,
 * bucket columns, sort columns, has skew rows.
 */
type PageTuple = [(string | null)[], (string | null)[] | null, Pairs, Pairs, Pairs, string[] | null, [string, unknown][] | null, boolean];
/** SDS + SERDES columns, serde params, SD params, bucket columns, sort columns, has skew rows. */
type SdTuple = [unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown, Pairs, Pairs, string[] | null, [string, unknown][] | null, boolean];

interface TableRow {
  readonly tblId: Id;
  readonly sdId: Id | null;
  readonly row: Row;
}

export class BackingDbReader implements HmsReader {
  private readonly opts: Required<HmsDbOptions>;
  private closed = false;
  /** Extra sessions on the leader's snapshot (Postgres), made on first use; closed with the reader. */
  private readonly forks: SqlSession[] = [];
  private forkFailed = false;

  constructor(
    private readonly session: SqlSession,
    opts: HmsDbOptions = {},
  ) {
    this.opts = { ...DEFAULT_DB_OPTIONS, ...opts };
  }

  private async q(what: string, sql: string, params: readonly unknown[] = [], session: SqlSession = this.session): Promise<Row[]> {
    if (this.closed) throw new MigrationError(ErrorCode.HMS_UNREACHABLE, `HMS backing DB (${this.session.backend}): reader is closed`, { operation: what }, { retryable: false });
    try {
      return await session.query(sql, params);
    } catch (e) {
      throw translateSqlError(e, this.session.backend, what);
    }
  }

  /** `SELECT … WHERE col IN (…)` over all ids, in chunks; `sql` has one `{in}` marker. */
  private async qIn(what: string, sql: string, ids: readonly unknown[], extra: readonly unknown[] = []): Promise<Row[]> {
    const out: Row[] = [];
    for (const part of chunks([...new Set(ids.map(id))], this.opts.inChunk)) {
      const rows = await this.q(what, sql.replace('{in}', part.map(() => '?').join(',')), [...extra, ...part]);
      for (const r of rows) out.push(r);
    }
    return out;
  }

  async listDatabases(): Promise<string[]> {
    const rows = await this.q('listDatabases', 'SELECT "NAME" FROM "DBS" WHERE "CTLG_NAME" = ?', [this.opts.catalog]);
    return sortNames(rows.map((r) => String(r.NAME)));
  }

  private async dbRow(name: string): Promise<Row> {
    // HMS lower-cases database and table names (normalizeIdentifier); so do lookups here.
    const rows = await this.q(
      'getDatabase',
      'SELECT "DB_ID", "NAME", "DESC", "DB_LOCATION_URI", "OWNER_NAME", "OWNER_TYPE" FROM "DBS" WHERE "NAME" = ? AND "CTLG_NAME" = ?',
      [name.trim().toLowerCase(), this.opts.catalog],
    );
    const row = rows[0];
    if (row === undefined) throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `database '${name}' not found in the HMS backing DB`, { database: name });
    return row;
  }

  async getDatabase(name: string): Promise<HiveDatabase> {
    const row = await this.dbRow(name);
    const params = await this.q('getDatabase', 'SELECT "PARAM_KEY", "PARAM_VALUE" FROM "DATABASE_PARAMS" WHERE "DB_ID" = ?', [row.DB_ID]);
    return {
      name: String(row.NAME),
      description: str(row.DESC),
      locationUri: str(row.DB_LOCATION_URI),
      parameters: paramsOf(params),
      owner: str(row.OWNER_NAME),
      ownerType: databaseOwnerType(str(row.OWNER_TYPE)),
    };
  }

  async listTables(database: string): Promise<string[]> {
    const db = await this.dbRow(database);
    const rows = await this.q('listTables', 'SELECT "TBL_NAME" FROM "TBLS" WHERE "DB_ID" = ?', [db.DB_ID]);
    return sortNames(rows.map((r) => String(r.TBL_NAME)));
  }

  async getTables(database: string, names: readonly string[]): Promise<TableInventory[]> {
    const db = await this.dbRow(database);
    const wanted = names.map((n) => n.trim().toLowerCase());
    const rows = await this.qIn(
      'getTables',
      'SELECT "TBL_ID", "SD_ID", "TBL_NAME", "TBL_TYPE", "OWNER", "OWNER_TYPE", "CREATE_TIME", "LAST_ACCESS_TIME", "RETENTION", "VIEW_ORIGINAL_TEXT", "VIEW_EXPANDED_TEXT" FROM "TBLS" WHERE "DB_ID" = ? AND "TBL_NAME" IN ({in})',
      wanted,
      [db.DB_ID],
    );
    const byName = new Map(rows.map((r) => [String(r.TBL_NAME), { tblId: id(r.TBL_ID), sdId: r.SD_ID == null ? null : id(r.SD_ID), row: r } satisfies TableRow]));
    const missing = wanted.filter((n) => !byName.has(n));
    if (missing.length > 0) {
      throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `table(s) not found in database '${database}': ${missing.join(', ')}`, { database, tables: missing });
    }
    const tables = [...byName.values()];
    const tblIds = tables.map((t) => t.tblId);
    const cdCache = new Map<Id, HiveColumn[]>();
    const [tableParams, partKeys, sds, partitions] = [
      groupBy(await this.qIn('getTables', 'SELECT "TBL_ID", "PARAM_KEY", "PARAM_VALUE" FROM "TABLE_PARAMS" WHERE "TBL_ID" IN ({in})', tblIds), 'TBL_ID'),
      groupBy(await this.qIn('getTables', 'SELECT "TBL_ID", "PKEY_NAME", "PKEY_TYPE", "PKEY_COMMENT", "INTEGER_IDX" FROM "PARTITION_KEYS" WHERE "TBL_ID" IN ({in})', tblIds), 'TBL_ID'),
      await this.sds(tables.flatMap((t) => (t.sdId === null ? [] : [t.sdId])), cdCache),
      this.session.backend === 'postgres' ? await this.partitionsJson(tblIds, cdCache) : await this.partitions(tblIds),
    ];
    const dbName = String(db.NAME);
    return wanted.map((n) => {
      const t = byName.get(n) as TableRow;
      const sd = t.sdId === null ? undefined : sds.get(t.sdId);
      if (sd === undefined) throw new MigrationError(ErrorCode.HMS_BAD_METADATA, `${dbName}.${n}: no storage descriptor in the HMS backing DB`, { database: dbName, table: n });
      const table: HiveTable = {
        database: dbName,
        name: String(t.row.TBL_NAME),
        owner: str(t.row.OWNER),
        ownerType: tableOwnerType(str(t.row.OWNER_TYPE)),
        createTime: sqlNumber(t.row.CREATE_TIME),
        lastAccessTime: sqlNumber(t.row.LAST_ACCESS_TIME),
        retention: sqlNumber(t.row.RETENTION),
        tableType: String(t.row.TBL_TYPE ?? ''),
        sd,
        partitionKeys: columnsOf(partKeys.get(t.tblId), 'PKEY'),
        parameters: paramsOf(tableParams.get(t.tblId)),
        viewOriginalText: nullable(str(t.row.VIEW_ORIGINAL_TEXT)),
        viewExpandedText: nullable(str(t.row.VIEW_EXPANDED_TEXT)),
        // Temporary tables live in one HiveServer2 session and never reach the backing DB.
        temporary: false,
      };
      return { table, partitions: sortPartitions(partitions.get(t.tblId) ?? []) };
    });
  }

  /** All partitions of these tables, walked in keyset pages of `pageSize` by PART_ID. */
  private async partitions(tblIds: readonly Id[]): Promise<Map<Id, HivePartition[]>> {
    const out = new Map<Id, HivePartition[]>();
    for (const part of chunks(tblIds, this.opts.inChunk)) {
      let after = '-1';
      for (;;) {
        const page = await this.q(
          'partitions',
          `SELECT "PART_ID", "TBL_ID", "SD_ID", "PART_NAME", "CREATE_TIME", "LAST_ACCESS_TIME" FROM "PARTITIONS" WHERE "TBL_ID" IN (${part.map(() => '?').join(',')}) AND "PART_ID" > ? ORDER BY "PART_ID" LIMIT ${this.opts.pageSize}`,
          [...part, after],
        );
        if (page.length === 0) break;
        await this.partitionPage(page, out);
        after = id(page[page.length - 1]?.PART_ID);
        if (page.length < this.opts.pageSize) break;
      }
    }
    return out;
  }

  private async partitionPage(page: readonly Row[], out: Map<Id, HivePartition[]>): Promise<void> {
    const partIds = page.map((r) => r.PART_ID);
    const vals = groupBy(await this.qIn('partitions', 'SELECT "PART_ID", "PART_KEY_VAL", "INTEGER_IDX" FROM "PARTITION_KEY_VALS" WHERE "PART_ID" IN ({in})', partIds), 'PART_ID');
    const params = groupBy(await this.qIn('partitions', 'SELECT "PART_ID", "PARAM_KEY", "PARAM_VALUE" FROM "PARTITION_PARAMS" WHERE "PART_ID" IN ({in})', partIds), 'PART_ID');
    const sds = await this.storageDescriptors(page.flatMap((r) => (r.SD_ID == null ? [] : [id(r.SD_ID)])));
    for (const r of page) {
      const name = String(r.PART_NAME);
      const sd = r.SD_ID == null ? undefined : sds.get(id(r.SD_ID));
      if (sd === undefined) throw new MigrationError(ErrorCode.HMS_BAD_METADATA, `partition ${name}: no storage descriptor in the HMS backing DB`, { partition: name });
      const values = [...(vals.get(id(r.PART_ID)) ?? [])].sort((a, b) => sqlNumber(a.INTEGER_IDX) - sqlNumber(b.INTEGER_IDX)).map((v) => partitionValue(str(v.PART_KEY_VAL)));
      const p: HivePartition = {
        values,
        name,
        createTime: sqlNumber(r.CREATE_TIME),
        lastAccessTime: sqlNumber(r.LAST_ACCESS_TIME),
        sd,
        parameters: paramsOf(params.get(id(r.PART_ID))),
      };
      const k = id(r.TBL_ID);
      const list = out.get(k);
      if (list) list.push(p);
      else out.set(k, [p]);
    }
  }

  /** Storage descriptors: the one-document JSON path on Postgres, the portable row path elsewhere. */
  private sds(sdIds: readonly Id[], cdCache: Map<Id, HiveColumn[]>): Promise<Map<Id, StorageDescriptor>> {
    return this.session.backend === 'postgres' ? this.storageDescriptorsJson(sdIds, cdCache) : this.storageDescriptors(sdIds);
  }

  /** Up to `parallel - 1` forks on the leader's snapshot (sessions that can fork), then the leader. */
  private async workers(): Promise<SqlSession[]> {
    const fork = this.session.fork?.bind(this.session);
    while (fork !== undefined && this.forks.length < this.opts.parallel - 1 && !this.forkFailed) {
      try {
        this.forks.push(await fork());
      } catch {
        // No second snapshot (e.g. a server that cannot export one): carry on with what we have.
        this.forkFailed = true;
      }
    }
    // Forks first: they take the first groups (the leader also serves the skew look-ups).
    return [...this.forks, this.session];
  }

  /**
   * Postgres: all partitions of these tables. Tables are cut into groups; each group is walked in
   * keyset pages of `pageSize` (PART_ID) by one of the sessions sharing the snapshot, side by side.
   * A page is one statement whose answer is one JSON document built by the server — partition row,
   * key values in order, parameters, its storage descriptor with SerDe, parameters, bucket and sort
   * columns, and whether it has skew rows — so the client does one JSON.parse per page instead of
   * a row object per value. Same model as partitions() + partitionPage().
   */
  private async partitionsJson(tblIds: readonly Id[], cdCache: Map<Id, HiveColumn[]>): Promise<Map<Id, HivePartition[]>> {
    const out = new Map<Id, HivePartition[]>();
    const sessions = await this.workers();
    const groups = chunks(tblIds, Math.max(1, Math.ceil(tblIds.length / (sessions.length * 4))));
    let next = 0;
    await Promise.all(
      sessions.map(async (session) => {
        while (next < groups.length) {
          const group = groups[next++] as Id[];
          await this.partitionGroupJson(session, group, cdCache, out);
        }
      }),
    );
    return out;
  }

  private async partitionGroupJson(session: SqlSession, tblIds: readonly Id[], cdCache: Map<Id, HiveColumn[]>, out: Map<Id, HivePartition[]>): Promise<void> {
    let after = '-1';
    for (;;) {
      const rows = await this.q(
        'partitions',
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
         FROM (SELECT * FROM "PARTITIONS" WHERE "TBL_ID" = ANY(?::bigint[]) AND "PART_ID" > ? ORDER BY "PART_ID" LIMIT ${this.opts.pageSize}) p
         LEFT JOIN "SDS" s ON s."SD_ID" = p."SD_ID" LEFT JOIN "SERDES" d ON d."SERDE_ID" = s."SERDE_ID"`,
        [tblIds, after],
        session,
      );
      const n = sqlNumber(rows[0]?.N);
      if (n === 0) return;
      const page = JSON.parse(String(rows[0]?.DOC)) as PageTuple[];
      await this.columnsFor(page.flatMap((r) => (r[0][6] == null ? [] : [r[0][6]])), cdCache, session);
      const skewed = page.filter((r) => r[7] === true).map((r) => r[0][5] as string);
      const skew = skewed.length === 0 ? new Map<Id, never>() : await this.skew(skewed);
      for (const [f, vals, params, serdeParams, sdParams, buckets, sorts] of page) {
        const [, tblId, name, createTime, lastAccessTime, sdId, cdId, location, inputFormat, outputFormat, compressed, numBuckets, subDirs, serdeId, serdeName, slib] = f;
        if (sdId == null) throw new MigrationError(ErrorCode.HMS_BAD_METADATA, `partition ${name}: no storage descriptor in the HMS backing DB`, { partition: name });
        const sk = skew.get(sdId);
        const sd: StorageDescriptor = {
          columns: cdId == null ? [] : [...(cdCache.get(cdId) ?? [])],
          location: str(location),
          inputFormat: str(inputFormat),
          outputFormat: str(outputFormat),
          compressed: sqlBoolean(compressed),
          numBuckets: sqlNumber(numBuckets, -1),
          serde: serdeId == null ? { name: null, serializationLib: null, parameters: {} } : { name: str(serdeName), serializationLib: str(slib), parameters: normalizeParams(serdeParams ?? []) },
          bucketColumns: (buckets ?? []).map(String),
          sortColumns: (sorts ?? []).map(([column, order]) => ({ column: String(column), order: sqlNumber(order) })),
          parameters: normalizeParams(sdParams ?? []),
          skewed: normalizeSkewed(sk?.names ?? [], sk?.values ?? [], sk?.locations ?? []),
          storedAsSubDirectories: sqlBoolean(subDirs),
        };
        const p: HivePartition = {
          values: (vals ?? []).map((v) => partitionValue(v)),
          name: String(name),
          createTime: sqlNumber(createTime),
          lastAccessTime: sqlNumber(lastAccessTime),
          sd,
          parameters: normalizeParams(params ?? []),
        };
        const k = tblId as string;
        const list = out.get(k);
        if (list) list.push(p);
        else out.set(k, [p]);
      }
      if (n < this.opts.pageSize) return;
      after = id(rows[0]?.LAST);
    }
  }

  /** Columns of these CD_IDs into the cache (once per getTables call), in INTEGER_IDX order. */
  private async columnsFor(cdIds: readonly (string | null)[], cdCache: Map<Id, HiveColumn[]>, session: SqlSession = this.session): Promise<void> {
    const missing = [...new Set(cdIds.flatMap((c) => (c == null || cdCache.has(c) ? [] : [c])))];
    if (missing.length === 0) return;
    const cols = await this.q(
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
   * Postgres: storage descriptors as one JSON document (SerDe, its and the SD's parameters, bucket and
   * sort columns in INTEGER_IDX order, whether any skew rows exist); columns once per CD_ID for the
   * whole getTables call; skew through the portable path, only for the SDs that have any.
   */
  private async storageDescriptorsJson(sdIds: readonly Id[], cdCache: Map<Id, HiveColumn[]>): Promise<Map<Id, StorageDescriptor>> {
    const out = new Map<Id, StorageDescriptor>();
    if (sdIds.length === 0) return out;
    const rows = await this.q(
      'storageDescriptors',
      `SELECT coalesce(json_agg(json_build_array(s."SD_ID", s."CD_ID", s."LOCATION", s."INPUT_FORMAT", s."OUTPUT_FORMAT", s."IS_COMPRESSED", s."NUM_BUCKETS",
         s."IS_STOREDASSUBDIRECTORIES", s."SERDE_ID", d."NAME", d."SLIB",
         (SELECT json_agg(json_build_array(x."PARAM_KEY", x."PARAM_VALUE")) FROM "SERDE_PARAMS" x WHERE x."SERDE_ID" = s."SERDE_ID"),
         (SELECT json_agg(json_build_array(x."PARAM_KEY", x."PARAM_VALUE")) FROM "SD_PARAMS" x WHERE x."SD_ID" = s."SD_ID"),
         (SELECT json_agg(x."BUCKET_COL_NAME" ORDER BY x."INTEGER_IDX") FROM "BUCKETING_COLS" x WHERE x."SD_ID" = s."SD_ID"),
         (SELECT json_agg(json_build_array(x."COLUMN_NAME", x."ORDER") ORDER BY x."INTEGER_IDX") FROM "SORT_COLS" x WHERE x."SD_ID" = s."SD_ID"),
         (EXISTS (SELECT 1 FROM "SKEWED_COL_NAMES" x WHERE x."SD_ID" = s."SD_ID") OR EXISTS (SELECT 1 FROM "SKEWED_VALUES" x WHERE x."SD_ID_OID" = s."SD_ID")
           OR EXISTS (SELECT 1 FROM "SKEWED_COL_VALUE_LOC_MAP" x WHERE x."SD_ID" = s."SD_ID"))
       )), '[]')::text AS "DOC"
       FROM "SDS" s LEFT JOIN "SERDES" d ON d."SERDE_ID" = s."SERDE_ID" WHERE s."SD_ID" = ANY(?::bigint[])`,
      [[...new Set(sdIds)]],
    );
    const sds = JSON.parse(String(rows[0]?.DOC ?? '[]')) as SdTuple[];
    await this.columnsFor(sds.map((r) => (r[1] == null ? null : id(r[1]))), cdCache);
    const skewed = sds.filter((r) => r[15] === true).map((r) => id(r[0]));
    const skew = skewed.length === 0 ? new Map<Id, never>() : await this.skew(skewed);
    for (const [sdId, cdId, location, inputFormat, outputFormat, compressed, numBuckets, subDirs, serdeId, serdeName, slib, serdeParams, sdParams, buckets, sorts] of sds) {
      const k = id(sdId);
      const s = skew.get(k);
      out.set(k, {
        columns: cdId == null ? [] : [...(cdCache.get(id(cdId)) ?? [])],
        location: str(location),
        inputFormat: str(inputFormat),
        outputFormat: str(outputFormat),
        compressed: sqlBoolean(compressed),
        numBuckets: sqlNumber(numBuckets, -1),
        serde: serdeId == null ? { name: null, serializationLib: null, parameters: {} } : { name: str(serdeName), serializationLib: str(slib), parameters: normalizeParams(serdeParams ?? []) },
        bucketColumns: (buckets ?? []).map(String),
        sortColumns: (sorts ?? []).map(([column, order]) => ({ column: String(column), order: sqlNumber(order) })),
        parameters: normalizeParams(sdParams ?? []),
        skewed: normalizeSkewed(s?.names ?? [], s?.values ?? [], s?.locations ?? []),
        storedAsSubDirectories: sqlBoolean(subDirs),
      });
    }
    return out;
  }

  /** Storage descriptors by SD_ID, with SerDe, columns (once per CD_ID), params, bucketing, sort and skew. */
  private async storageDescriptors(sdIds: readonly Id[]): Promise<Map<Id, StorageDescriptor>> {
    const out = new Map<Id, StorageDescriptor>();
    if (sdIds.length === 0) return out;
    const rows = await this.qIn(
      'storageDescriptors',
      'SELECT s."SD_ID", s."CD_ID", s."SERDE_ID", s."LOCATION", s."INPUT_FORMAT", s."OUTPUT_FORMAT", s."IS_COMPRESSED", s."NUM_BUCKETS", s."IS_STOREDASSUBDIRECTORIES", d."NAME" AS "SERDE_NAME", d."SLIB" FROM "SDS" s LEFT JOIN "SERDES" d ON d."SERDE_ID" = s."SERDE_ID" WHERE s."SD_ID" IN ({in})',
      sdIds,
    );
    const ids = rows.map((r) => r.SD_ID);
    const serdeIds = rows.flatMap((r) => (r.SERDE_ID == null ? [] : [r.SERDE_ID]));
    const cdIds = rows.flatMap((r) => (r.CD_ID == null ? [] : [r.CD_ID]));
    const cols = groupBy(await this.qIn('columns', 'SELECT "CD_ID", "COLUMN_NAME", "TYPE_NAME", "COMMENT", "INTEGER_IDX" FROM "COLUMNS_V2" WHERE "CD_ID" IN ({in})', cdIds), 'CD_ID');
    const serdeParams = groupBy(await this.qIn('serdeParams', 'SELECT "SERDE_ID", "PARAM_KEY", "PARAM_VALUE" FROM "SERDE_PARAMS" WHERE "SERDE_ID" IN ({in})', serdeIds), 'SERDE_ID');
    const sdParams = groupBy(await this.qIn('sdParams', 'SELECT "SD_ID", "PARAM_KEY", "PARAM_VALUE" FROM "SD_PARAMS" WHERE "SD_ID" IN ({in})', ids), 'SD_ID');
    const bucketCols = groupBy(await this.qIn('bucketCols', 'SELECT "SD_ID", "BUCKET_COL_NAME", "INTEGER_IDX" FROM "BUCKETING_COLS" WHERE "SD_ID" IN ({in})', ids), 'SD_ID');
    const sortCols = groupBy(await this.qIn('sortCols', 'SELECT "SD_ID", "COLUMN_NAME", "ORDER", "INTEGER_IDX" FROM "SORT_COLS" WHERE "SD_ID" IN ({in})', ids), 'SD_ID');
    const skew = await this.skew(ids);
    const byIdx = (a: Row, b: Row): number => sqlNumber(a.INTEGER_IDX) - sqlNumber(b.INTEGER_IDX);
    for (const r of rows) {
      const sdId = id(r.SD_ID);
      const serde: SerDe = r.SERDE_ID == null
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

  /** SKEWED_COL_NAMES, SKEWED_VALUES → string lists, SKEWED_COL_VALUE_LOC_MAP → string lists, per SD. */
  private async skew(sdIds: readonly unknown[]): Promise<Map<Id, { names: string[]; values: string[][]; locations: { values: string[]; location: string }[] }>> {
    const names = await this.qIn('skew', 'SELECT "SD_ID", "SKEWED_COL_NAME", "INTEGER_IDX" FROM "SKEWED_COL_NAMES" WHERE "SD_ID" IN ({in})', sdIds);
    const values = await this.qIn(
      'skew',
      'SELECT v."SD_ID_OID", v."STRING_LIST_ID_EID", v."INTEGER_IDX", l."STRING_LIST_VALUE", l."INTEGER_IDX" AS "VALUE_IDX" FROM "SKEWED_VALUES" v LEFT JOIN "SKEWED_STRING_LIST_VALUES" l ON l."STRING_LIST_ID" = v."STRING_LIST_ID_EID" WHERE v."SD_ID_OID" IN ({in})',
      sdIds,
    );
    const locs = await this.qIn(
      'skew',
      'SELECT m."SD_ID", m."STRING_LIST_ID_KID", m."LOCATION", l."STRING_LIST_VALUE", l."INTEGER_IDX" AS "VALUE_IDX" FROM "SKEWED_COL_VALUE_LOC_MAP" m LEFT JOIN "SKEWED_STRING_LIST_VALUES" l ON l."STRING_LIST_ID" = m."STRING_LIST_ID_KID" WHERE m."SD_ID" IN ({in})',
      sdIds,
    );
    const out = new Map<Id, { names: string[]; values: string[][]; locations: { values: string[]; location: string }[] }>();
    const entry = (sd: Id) => {
      let e = out.get(sd);
      if (!e) out.set(sd, (e = { names: [], values: [], locations: [] }));
      return e;
    };
    const num = (r: Row, k: string): number => sqlNumber(r[k]);
    for (const r of [...names].sort((a, b) => num(a, 'INTEGER_IDX') - num(b, 'INTEGER_IDX'))) entry(id(r.SD_ID)).names.push(String(r.SKEWED_COL_NAME));
    // One string list per (SD, list id); lists ordered by SKEWED_VALUES.INTEGER_IDX, values by their own.
    const lists = (rows: readonly Row[], sdKey: string, listKey: string, order: (r: Row) => number) => {
      const m = new Map<string, { sd: Id; order: number; values: [number, string][]; row: Row }>();
      for (const r of rows) {
        const k = `${id(r[sdKey])}/${id(r[listKey])}`;
        let l = m.get(k);
        if (!l) m.set(k, (l = { sd: id(r[sdKey]), order: order(r), values: [], row: r }));
        if (r.STRING_LIST_VALUE !== null && r.STRING_LIST_VALUE !== undefined) l.values.push([num(r, 'VALUE_IDX'), String(r.STRING_LIST_VALUE)]);
      }
      return [...m.values()].sort((a, b) => a.order - b.order).map((l) => ({ ...l, tuple: l.values.sort((a, b) => a[0] - b[0]).map((v) => v[1]) }));
    };
    for (const l of lists(values, 'SD_ID_OID', 'STRING_LIST_ID_EID', (r) => num(r, 'INTEGER_IDX'))) entry(l.sd).values.push(l.tuple);
    for (const l of lists(locs, 'SD_ID', 'STRING_LIST_ID_KID', (r) => num(r, 'STRING_LIST_ID_KID'))) entry(l.sd).locations.push({ values: l.tuple, location: String(l.row.LOCATION ?? '') });
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.forks.map((f) => f.close()));
    await this.session.close();
  }
}
