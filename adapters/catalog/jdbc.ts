// Iceberg's JDBC catalog layout (JdbcCatalog / JdbcUtil; PyIceberg's SqlCatalog uses the same
// tables): `iceberg_tables` (catalog_name, table_namespace, table_name, metadata_location,
// previous_metadata_location, iceberg_type; primary key = the first three) and
// `iceberg_namespace_properties` (catalog_name, namespace, property_key, property_value). Namespace
// levels are joined with '.'. Postgres (`pg`) and MySQL/MariaDB (`mysql2`). Register is an INSERT,
// so the primary key gives assert-create; unregister deletes only while the row still points at our
// metadata file; nothing here can delete a file. Tables are created when missing, as JdbcCatalog does.
import mysql from 'mysql2/promise';
import pg from 'pg';
import type {
  CommitOutcome,
  HiveOriginalPlace,
  IcebergCatalog,
  LoadedTable,
  Namespace,
  RegisterOutcome,
  SnapshotCommit,
  TableIdent,
  UnregisterOutcome,
} from '../../core/catalog/catalog';
import {
  HIVE_ORIGINAL_UNTOUCHED,
  checkNamespace,
  commitConflict,
  existingEntryOutcome,
  formatTableIdent,
} from '../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../core/errors';
import { fromMetadataJson } from '../../core/iceberg/metadata-json';
import type { ObjectStore } from '../../core/storage/object-store';

type Row = Record<string, unknown>;

/** The two SQL dialects behind one small interface ($1-style placeholders are rewritten for MySQL). */
interface Sql {
  query(sql: string, params: readonly unknown[]): Promise<{ rows: Row[]; affected: number }>;
  close(): Promise<void>;
  readonly duplicateKey: (e: unknown) => boolean;
}

function pgSql(url: string): Sql {
  const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 10_000, query_timeout: 30_000 });
  pool.on('error', () => undefined);
  return {
    query: async (sql, params) => {
      const r = await pool.query(sql, [...params]);
      return { rows: r.rows as Row[], affected: r.rowCount ?? 0 };
    },
    close: () => pool.end(),
    duplicateKey: (e) => (e as { code?: string }).code === '23505',
  };
}

function mysqlSql(url: string): Sql {
  const pool = mysql.createPool({ uri: url.replace(/^mariadb:/, 'mysql:'), connectionLimit: 4, connectTimeout: 10_000 });
  return {
    query: async (sql, params) => {
      const [res] = await pool.query(sql.replace(/\$\d+/g, '?'), [...params]);
      return Array.isArray(res)
        ? { rows: res as Row[], affected: 0 }
        : { rows: [], affected: (res as { affectedRows: number }).affectedRows };
    },
    close: () => pool.end(),
    duplicateKey: (e) => (e as { code?: string }).code === 'ER_DUP_ENTRY',
  };
}

const DDL = [
  `CREATE TABLE IF NOT EXISTS iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5), PRIMARY KEY (catalog_name, table_namespace, table_name))`,
  `CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255) NOT NULL, property_value VARCHAR(1000), PRIMARY KEY (catalog_name, namespace, property_key))`,
];

const nsText = (ns: Namespace): string => ns.join('.');

function wrap(e: unknown, what: string): MigrationError {
  if (e instanceof MigrationError) return e;
  const code = (e as { code?: string }).code ?? '';
  const unreachable =
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|PROTOCOL_CONNECTION_LOST|57P01/.test(code) ||
    /Connection terminated|connect ETIMEDOUT/.test(String((e as Error).message));
  return new MigrationError(
    unreachable ? ErrorCode.CATALOG_UNREACHABLE : ErrorCode.CATALOG_SERVER_ERROR,
    `JDBC catalog: ${what}: ${(e as Error).message}`,
    { sqlCode: code },
    { cause: e },
  );
}

export interface JdbcCatalogOptions {
  /** postgres://… or mysql://… / mariadb://… */
  readonly url: string;
  /** `catalog_name` in the tables (the catalog's name in Spark/PyIceberg configs). */
  readonly catalogName: string;
  /** Reads metadata.json for loadTable. */
  readonly store: ObjectStore;
}

export class JdbcIcebergCatalog implements IcebergCatalog {
  private constructor(
    readonly name: string,
    private readonly sql: Sql,
    private readonly store: ObjectStore,
  ) {}

  static async connect(o: JdbcCatalogOptions): Promise<JdbcIcebergCatalog> {
    const sql = /^postgres(ql)?:/.test(o.url) ? pgSql(o.url) : /^(mysql|mariadb):/.test(o.url) ? mysqlSql(o.url) : null;
    if (sql === null)
      throw new MigrationError(ErrorCode.CONFIG_INVALID, 'JDBC catalog url must be postgres://… or mysql://…', { path: 'catalog.uri' });
    try {
      for (const ddl of DDL) await sql.query(ddl, []);
    } catch (e) {
      await sql.close().catch(() => undefined);
      throw wrap(e, 'creating the catalog tables');
    }
    return new JdbcIcebergCatalog(o.catalogName, sql, o.store);
  }

  /** A JDBC catalog only registers new entries: the Hive table stays as it was. */
  hiveOriginalPlace(): HiveOriginalPlace {
    return HIVE_ORIGINAL_UNTOUCHED;
  }

  async close(): Promise<void> {
    await this.sql.close();
  }

  private async q(sqlText: string, params: readonly unknown[], what: string): Promise<{ rows: Row[]; affected: number }> {
    try {
      return await this.sql.query(sqlText, params);
    } catch (e) {
      throw wrap(e, what);
    }
  }

  async namespaceExists(ns: Namespace): Promise<boolean> {
    checkNamespace(ns);
    const n = nsText(ns);
    const a = await this.q(
      'SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = $1 AND namespace = $2 LIMIT 1',
      [this.name, n],
      'namespace exists',
    );
    if (a.rows.length > 0) return true;
    const b = await this.q(
      'SELECT 1 FROM iceberg_tables WHERE catalog_name = $1 AND (table_namespace = $2 OR table_namespace LIKE $3) LIMIT 1',
      [this.name, n, `${n}.%`],
      'namespace exists',
    );
    return b.rows.length > 0;
  }

  async createNamespace(ns: Namespace, properties: Readonly<Record<string, string>> = {}): Promise<{ created: boolean }> {
    if (await this.namespaceExists(ns)) return { created: false };
    // JdbcCatalog marks a namespace with an `exists` property row.
    for (const [k, v] of Object.entries({ exists: 'true', ...properties })) {
      try {
        await this.sql.query(
          'INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) VALUES ($1, $2, $3, $4)',
          [this.name, nsText(ns), k, v],
        );
      } catch (e) {
        if (!this.sql.duplicateKey(e)) throw wrap(e, 'create namespace');
      }
    }
    return { created: true };
  }

  async dropNamespace(ns: Namespace): Promise<{ dropped: boolean }> {
    if (!(await this.namespaceExists(ns))) return { dropped: false };
    if ((await this.listTables(ns)).length > 0)
      throw new MigrationError(ErrorCode.CATALOG_CONFLICT, `namespace ${nsText(ns)} is not empty`, { namespace: ns });
    await this.q(
      'DELETE FROM iceberg_namespace_properties WHERE catalog_name = $1 AND namespace = $2',
      [this.name, nsText(ns)],
      'drop namespace',
    );
    return { dropped: true };
  }

  async listNamespaces(parent: Namespace = []): Promise<Namespace[]> {
    const a = await this.q(
      'SELECT DISTINCT namespace AS n FROM iceberg_namespace_properties WHERE catalog_name = $1',
      [this.name],
      'list namespaces',
    );
    const b = await this.q(
      'SELECT DISTINCT table_namespace AS n FROM iceberg_tables WHERE catalog_name = $1',
      [this.name],
      'list namespaces',
    );
    const all = new Set([...a.rows, ...b.rows].map((r) => String(r.n)));
    const prefix = parent.length === 0 ? '' : `${nsText(parent)}.`;
    return [...all]
      .filter((n) => n.startsWith(prefix) && n !== nsText(parent))
      .sort()
      .map((n) => n.split('.'));
  }

  async listTables(ns: Namespace): Promise<TableIdent[]> {
    const r = await this.q(
      'SELECT table_name FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 ORDER BY table_name',
      [this.name, nsText(ns)],
      'list tables',
    );
    return r.rows.map((x) => ({ namespace: [...ns], name: String(x.table_name) }));
  }

  private async location(ident: TableIdent): Promise<string | null> {
    const r = await this.q(
      'SELECT metadata_location FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3',
      [this.name, nsText(ident.namespace), ident.name],
      'load table',
    );
    const row = r.rows[0];
    return row === undefined ? null : String(row.metadata_location);
  }

  async tableExists(ident: TableIdent): Promise<boolean> {
    return (await this.location(ident)) !== null;
  }

  async loadTable(ident: TableIdent): Promise<LoadedTable> {
    const loc = await this.location(ident);
    if (loc === null)
      throw new MigrationError(
        ErrorCode.CATALOG_NOT_FOUND,
        `table ${formatTableIdent(ident)} does not exist in JDBC catalog ${this.name}`,
        { table: formatTableIdent(ident) },
      );
    let text: string;
    try {
      const { size } = await this.store.head(loc);
      text = new TextDecoder().decode(await this.store.readRange(loc, 0, size));
    } catch (e) {
      throw new MigrationError(
        ErrorCode.CATALOG_METADATA_UNREADABLE,
        `${formatTableIdent(ident)}: cannot read ${loc}: ${(e as Error).message}`,
        { metadataLocation: loc },
        { cause: e },
      );
    }
    return { ident, metadataLocation: loc, metadata: fromMetadataJson(text), config: {} };
  }

  async registerTable(ident: TableIdent, metadataLocation: string): Promise<{ outcome: RegisterOutcome; table: LoadedTable }> {
    if (!(await this.namespaceExists(ident.namespace)))
      throw new MigrationError(ErrorCode.CATALOG_NOT_FOUND, `namespace ${nsText(ident.namespace)} does not exist`, {
        namespace: ident.namespace,
      });
    // The metadata file must be readable before anything points at it.
    await this.store.head(metadataLocation).catch((e: unknown) => {
      throw new MigrationError(
        ErrorCode.CATALOG_METADATA_UNREADABLE,
        `cannot read ${metadataLocation}: ${(e as Error).message}`,
        { metadataLocation },
        { cause: e },
      );
    });
    let outcome: RegisterOutcome = 'registered';
    try {
      await this.sql.query(
        'INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type) VALUES ($1, $2, $3, $4, NULL, $5)',
        [this.name, nsText(ident.namespace), ident.name, metadataLocation, 'TABLE'],
      );
    } catch (e) {
      if (!this.sql.duplicateKey(e)) throw wrap(e, 'register');
      const existing = await this.location(ident);
      outcome = existingEntryOutcome(ident, existing ?? '', metadataLocation);
    }
    return { outcome, table: await this.loadTable(ident) };
  }

  /**
   * Compare-and-swap of the row (JdbcTableOperations): UPDATE … SET metadata_location = ours,
   * previous_metadata_location = base WHERE metadata_location = base. No row changed → reload:
   * ours already → already-committed; elsewhere → CATALOG_CONFLICT. A lost connection → reload
   * and compare (the UPDATE may have committed).
   */
  async commitTable(ident: TableIdent, c: SnapshotCommit): Promise<{ outcome: CommitOutcome; table: LoadedTable }> {
    await this.store.head(c.metadataLocation).catch((e: unknown) => {
      throw new MigrationError(ErrorCode.CATALOG_METADATA_UNREADABLE, `cannot read ${c.metadataLocation}: ${(e as Error).message}`, {
        metadataLocation: c.metadataLocation,
      });
    });
    let affected = 0;
    try {
      const r = await this.sql.query(
        'UPDATE iceberg_tables SET metadata_location = $1, previous_metadata_location = $2 WHERE catalog_name = $3 AND table_namespace = $4 AND table_name = $5 AND metadata_location = $2',
        [c.metadataLocation, c.base.metadataLocation, this.name, nsText(ident.namespace), ident.name],
      );
      affected = r.affected;
    } catch (e) {
      const err = wrap(e, 'commit');
      if ((await this.location(ident)) !== c.metadataLocation) throw err;
      return { outcome: 'committed', table: await this.loadTable(ident) };
    }
    if (affected > 0) return { outcome: 'committed', table: await this.loadTable(ident) };
    const now = await this.location(ident);
    if (now === c.metadataLocation) return { outcome: 'already-committed', table: await this.loadTable(ident) };
    throw commitConflict(ident, c, now);
  }

  async unregisterTable(ident: TableIdent, metadataLocation: string): Promise<{ outcome: UnregisterOutcome }> {
    const r = await this.q(
      'DELETE FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3 AND metadata_location = $4',
      [this.name, nsText(ident.namespace), ident.name, metadataLocation],
      'unregister',
    );
    if (r.affected > 0) return { outcome: 'unregistered' };
    const now = await this.location(ident);
    if (now === null) return { outcome: 'absent' };
    throw new MigrationError(
      ErrorCode.CATALOG_CONFLICT,
      `${formatTableIdent(ident)} now points at ${now}, not at ${metadataLocation}: it was committed to after us; not dropping`,
      { current: now, ours: metadataLocation },
    );
  }

  async dropTable(ident: TableIdent): Promise<{ dropped: boolean }> {
    const r = await this.q(
      'DELETE FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3',
      [this.name, nsText(ident.namespace), ident.name],
      'drop table',
    );
    return { dropped: r.affected > 0 };
  }
}
