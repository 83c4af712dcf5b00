// The Hive Metastore as the Iceberg catalog (Iceberg's HiveCatalog layout, HiveOperationsBase): an
// Iceberg table is an EXTERNAL_TABLE with parameters table_type=ICEBERG and metadata_location, no
// partition keys (partition columns become ordinary columns), FileInputFormat/FileOutputFormat +
// LazySimpleSerDe (Hive engine integration off). Two ways in:
//   - registerTable on a name HMS does not have: create_table (HiveCatalog.registerTable);
//   - in place (`originals` given): the Hive table's original object must have been saved first
//     and must still equal what HMS holds.
//       unpartitioned: the table itself is altered into the Iceberg form, and put back by
//         unregisterTable only while it still points at our metadata file (HMS's expected-parameter
//         check makes that compare-and-set atomic on HMS 4);
//       partitioned (HMS alter_table refuses to change partition keys): the Hive table is made
//         EXTERNAL (so nothing can move or drop its files), renamed to `<name>__him_original` with
//         its partitions untouched, and the Iceberg table is created under the original name, the
//         way Iceberg's own `migrate` procedure keeps a backup. unregisterTable drops the Iceberg
//         entry and renames the original back, restoring the saved object (its table type included).
//     Every step checks what HMS holds first, so a crash between two steps resumes on the next call.
//     The way back (unregisterTable, a forced dropTable) is hive-put-back.ts.
// Data files are never touched: drops always send deleteData=false, and the rename happens only on
// an EXTERNAL table (HMS moves the directory of a renamed MANAGED table).
import type {
  CommitOutcome,
  SnapshotCommit,
  HiveOriginalPlace,
  IcebergCatalog,
  LoadedTable,
  Namespace,
  RegisterOutcome,
  TableIdent,
  UnregisterOutcome,
} from '../../core/catalog/catalog';
import { HIVE_ORIGINAL_UNTOUCHED, commitConflict, existingEntryOutcome, formatTableIdent } from '../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { HiveTable } from '../../core/hive/model';
import { fromMetadataJson } from '../../core/iceberg/metadata-json';
import type { ObjectStore } from '../../core/storage/object-store';
import type { ThriftHmsReader } from '../hms/thrift/reader';
import type { ThriftHmsWriter } from '../hms/thrift/writer';
import {
  EXPECTED_PARAMETER_KEY,
  EXPECTED_PARAMETER_VALUE,
  comparable,
  externalized,
  fromAside,
  icebergForm,
  isExternal,
  isIceberg,
  isOriginal,
  newIcebergTable,
  originalAsideName,
} from './hive-forms';
import { putBack } from './hive-put-back';
import type { HmsSide } from './hive-put-back';

// The forms are hive-forms.ts's; re-exported for this catalog's callers.
export {
  EXPECTED_PARAMETER_KEY,
  EXPECTED_PARAMETER_VALUE,
  ICEBERG_TABLE_TYPE,
  ORIGINAL_SUFFIX,
  externalized,
  fromAside,
  icebergForm,
  originalAsideName,
} from './hive-forms';

export interface HiveCatalogOptions {
  readonly name: string;
  readonly reader: ThriftHmsReader;
  readonly writer: ThriftHmsWriter;
  /** Reads metadata.json for loadTable. */
  readonly store: ObjectStore;
  /** In-place mode: the saved original of a Hive table (from the state store), by identifier. */
  readonly originals?: (ident: TableIdent) => Promise<HiveTable | undefined>;
  /** `in-place`: withSavedOriginal hands out a catalog that converts that table in place. */
  readonly mode?: 'register' | 'in-place';
  /** What close() releases (connections and stores opened for this catalog); none by default. */
  readonly onClose?: () => Promise<void>;
}

export class HiveIcebergCatalog implements IcebergCatalog {
  readonly name: string;
  readonly inPlace: boolean;
  constructor(private readonly o: HiveCatalogOptions) {
    this.name = o.name;
    this.inPlace = o.mode === 'in-place';
  }

  /** In place: a partitioned original waits aside (`originalAsideName`), an unpartitioned one is altered. */
  hiveOriginalPlace(name: string, original: HiveTable): HiveOriginalPlace {
    if (!this.inPlace) return HIVE_ORIGINAL_UNTOUCHED;
    if (original.partitionKeys.length === 0) return { kind: 'altered' };
    return { kind: 'aside', name: originalAsideName(name), asOriginal: (aside) => fromAside(aside, original) };
  }

  withSavedOriginal(ident: TableIdent, original: HiveTable): IcebergCatalog {
    if (!this.inPlace) return this;
    const key = formatTableIdent(ident);
    const outer = this.o.originals;
    return new HiveIcebergCatalog({
      ...this.o,
      onClose: undefined,
      originals: async (i) => (formatTableIdent(i) === key ? original : outer?.(i)),
    });
  }

  async close(): Promise<void> {
    await this.o.onClose?.();
  }

  private db(ns: Namespace): string {
    if (ns.length !== 1)
      throw new MigrationError(ErrorCode.USAGE, `Hive catalog namespaces have one level (a database), got ${ns.join('.')}`, {
        namespace: ns,
      });
    return ns[0] as string;
  }

  private async current(ident: TableIdent): Promise<HiveTable | undefined> {
    try {
      // The table object only: an in-place step never needs the partitions of the table it checks.
      const [t] = await this.o.reader.getTableObjects(this.db(ident.namespace), [ident.name]);
      return t;
    } catch (e) {
      if (e instanceof MigrationError && e.code === ErrorCode.HMS_NOT_FOUND) return undefined;
      throw e;
    }
  }

  /** What the put-back steps (hive-put-back.ts) need of this catalog. */
  private hms(): HmsSide {
    return { writer: this.o.writer, db: (ns) => this.db(ns), current: (ident) => this.current(ident) };
  }

  async namespaceExists(ns: Namespace): Promise<boolean> {
    try {
      await this.o.reader.getDatabase(this.db(ns));
      return true;
    } catch (e) {
      if (e instanceof MigrationError && e.code === ErrorCode.HMS_NOT_FOUND) return false;
      throw e;
    }
  }

  async createNamespace(ns: Namespace, properties: Readonly<Record<string, string>> = {}): Promise<{ created: boolean }> {
    if (await this.namespaceExists(ns)) return { created: false };
    try {
      await this.o.writer.createDatabase({
        name: this.db(ns),
        description: null,
        locationUri: null,
        parameters: { ...properties },
        owner: null,
        ownerType: null,
      });
      return { created: true };
    } catch (e) {
      if (e instanceof MigrationError && e.code === ErrorCode.HMS_ALREADY_EXISTS) return { created: false };
      throw e;
    }
  }

  async dropNamespace(ns: Namespace): Promise<{ dropped: boolean }> {
    if (!(await this.namespaceExists(ns))) return { dropped: false };
    if ((await this.o.reader.listTables(this.db(ns))).length > 0)
      throw new MigrationError(ErrorCode.CATALOG_CONFLICT, `database ${this.db(ns)} is not empty`, { namespace: ns });
    await this.o.writer.dropDatabase(this.db(ns));
    return { dropped: true };
  }

  async listNamespaces(parent: Namespace = []): Promise<Namespace[]> {
    if (parent.length > 0) return [];
    return (await this.o.reader.listDatabases()).map((d) => [d]);
  }

  async listTables(ns: Namespace): Promise<TableIdent[]> {
    const names = await this.o.reader.listTables(this.db(ns));
    const out: TableIdent[] = [];
    for (let i = 0; i < names.length; i += 100) {
      for (const t of await this.o.reader.getTableObjects(this.db(ns), names.slice(i, i + 100)))
        if (isIceberg(t)) out.push({ namespace: [...ns], name: t.name });
    }
    return out;
  }

  async tableExists(ident: TableIdent): Promise<boolean> {
    const t = await this.current(ident);
    return t !== undefined && isIceberg(t);
  }

  async loadTable(ident: TableIdent): Promise<LoadedTable> {
    const t = await this.current(ident);
    const loc = t === undefined || !isIceberg(t) ? undefined : t.parameters.metadata_location;
    if (loc === undefined)
      throw new MigrationError(
        ErrorCode.CATALOG_NOT_FOUND,
        `${formatTableIdent(ident)} is not an Iceberg table in HMS catalog ${this.name}`,
        { table: formatTableIdent(ident) },
      );
    try {
      const { size } = await this.o.store.head(loc);
      return {
        ident,
        metadataLocation: loc,
        metadata: fromMetadataJson(new TextDecoder().decode(await this.o.store.readRange(loc, 0, size))),
        config: {},
      };
    } catch (e) {
      throw new MigrationError(
        ErrorCode.CATALOG_METADATA_UNREADABLE,
        `${formatTableIdent(ident)}: cannot read ${loc}: ${(e as Error).message}`,
        { metadataLocation: loc },
        { cause: e },
      );
    }
  }

  async registerTable(ident: TableIdent, metadataLocation: string): Promise<{ outcome: RegisterOutcome; table: LoadedTable }> {
    const text = await this.o.store.head(metadataLocation).then(
      async ({ size }) => new TextDecoder().decode(await this.o.store.readRange(metadataLocation, 0, size)),
      (e: unknown) => {
        throw new MigrationError(
          ErrorCode.CATALOG_METADATA_UNREADABLE,
          `cannot read ${metadataLocation}: ${(e as Error).message}`,
          { metadataLocation },
          { cause: e },
        );
      },
    );
    const md = fromMetadataJson(text);
    const now = await this.current(ident);
    if (now !== undefined && isIceberg(now)) {
      return {
        outcome: existingEntryOutcome(ident, now.parameters.metadata_location ?? '', metadataLocation),
        table: await this.loadTable(ident),
      };
    }
    const original = this.o.originals === undefined ? undefined : await this.o.originals(ident);
    const db = this.db(ident.namespace);
    if (now === undefined) {
      let created: HiveTable;
      if (original !== undefined) {
        // In place, after the partitioned original was moved aside (a crash before the create): go on
        // only when the table aside is that original.
        const aside =
          original.partitionKeys.length > 0
            ? await this.current({ namespace: ident.namespace, name: originalAsideName(ident.name) })
            : undefined;
        if (aside === undefined || !isOriginal(aside, original)) {
          throw new MigrationError(
            ErrorCode.CATALOG_CONFLICT,
            `${formatTableIdent(ident)}: the Hive table to convert in place is gone from HMS`,
            { table: formatTableIdent(ident) },
          );
        }
        created = icebergForm(original, metadataLocation, null);
      } else {
        created = newIcebergTable(db, ident.name, md, metadataLocation);
      }
      try {
        await this.o.writer.createTable(created);
      } catch (e) {
        if (!(e instanceof MigrationError && e.code === ErrorCode.HMS_ALREADY_EXISTS)) throw e;
        return this.registerTable(ident, metadataLocation); // raced: decide on what is there now
      }
      return { outcome: 'registered', table: await this.loadTable(ident) };
    }
    // A Hive table of that name: in place, only with its saved original, only if unchanged since.
    if (original === undefined) {
      throw new MigrationError(
        ErrorCode.CATALOG_CONFLICT,
        `${formatTableIdent(ident)} is a Hive table; converting it in place needs its saved original (apply saves it first)`,
        { table: formatTableIdent(ident) },
      );
    }
    if (now.partitionKeys.length > 0) {
      // HMS alter_table refuses to change partition keys: move the original aside, create in its place.
      if (!isOriginal(now, original)) {
        throw new MigrationError(
          ErrorCode.SOURCE_CHANGED,
          `${formatTableIdent(ident)} changed in HMS since its original was saved; not converting in place`,
          { table: formatTableIdent(ident) },
        );
      }
      const asideName = originalAsideName(ident.name);
      if ((await this.current({ namespace: ident.namespace, name: asideName })) !== undefined) {
        throw new MigrationError(
          ErrorCode.CATALOG_CONFLICT,
          `${db}.${asideName} already exists; the in-place conversion of ${formatTableIdent(ident)} keeps the Hive table under that name. Rename or drop it first.`,
          { table: formatTableIdent(ident), aside: `${db}.${asideName}` },
        );
      }
      // EXTERNAL first, as its own alter: HMS decides whether a rename moves the directory on the
      // table as it was before the call, and moves it for a MANAGED table.
      if (!isExternal(now)) await this.o.writer.alterTable(db, ident.name, externalized(original), { DO_NOT_UPDATE_STATS: 'true' });
      await this.o.writer.alterTable(db, ident.name, { ...externalized(original), name: asideName }, { DO_NOT_UPDATE_STATS: 'true' });
      return this.registerTable(ident, metadataLocation);
    }
    if (comparable(original) !== comparable(now)) {
      throw new MigrationError(
        ErrorCode.SOURCE_CHANGED,
        `${formatTableIdent(ident)} changed in HMS since its original was saved; not converting in place`,
        { table: formatTableIdent(ident) },
      );
    }
    await this.o.writer.alterTable(db, ident.name, icebergForm(original, metadataLocation, null), { DO_NOT_UPDATE_STATS: 'true' });
    return { outcome: 'registered', table: await this.loadTable(ident) };
  }

  /**
   * Check-and-swap of the `metadata_location` parameter (HiveTableOperations without locks): the
   * table must still point at the base; alter_table carries expected_parameter_key/value, which an
   * HMS 4 checks atomically. An older HMS ignores them: then the window between our read and the
   * alter is a race another writer could win (documented in docs/migrating.md).
   */
  async commitTable(ident: TableIdent, c: SnapshotCommit): Promise<{ outcome: CommitOutcome; table: LoadedTable }> {
    const now = await this.current(ident);
    const at = now === undefined || !isIceberg(now) ? null : (now.parameters.metadata_location ?? null);
    if (at === c.metadataLocation) return { outcome: 'already-committed', table: await this.loadTable(ident) };
    if (now === undefined || at !== c.base.metadataLocation) throw commitConflict(ident, c, at);
    const params: Record<string, string> = { ...now.parameters, metadata_location: c.metadataLocation, previous_metadata_location: at };
    delete params.transient_lastDdlTime;
    try {
      await this.o.writer.alterTable(
        this.db(ident.namespace),
        ident.name,
        { ...now, parameters: params },
        {
          DO_NOT_UPDATE_STATS: 'true',
          [EXPECTED_PARAMETER_KEY]: 'metadata_location',
          [EXPECTED_PARAMETER_VALUE]: at,
        },
      );
    } catch (e) {
      const after = await this.current(ident);
      if (after?.parameters.metadata_location !== c.metadataLocation) throw e;
    }
    return { outcome: 'committed', table: await this.loadTable(ident) };
  }

  async unregisterTable(ident: TableIdent, metadataLocation: string): Promise<{ outcome: UnregisterOutcome }> {
    const now = await this.current(ident);
    const original = this.o.originals === undefined ? undefined : await this.o.originals(ident);
    if (now !== undefined && isIceberg(now) && now.parameters.metadata_location !== metadataLocation) {
      throw new MigrationError(
        ErrorCode.CATALOG_CONFLICT,
        `${formatTableIdent(ident)} now points at ${now.parameters.metadata_location ?? '?'}, not at ${metadataLocation}: committed to after us; not unregistering`,
        { current: now.parameters.metadata_location, ours: metadataLocation },
      );
    }
    if (original !== undefined)
      return { outcome: (await putBack(this.hms(), ident, now, original, metadataLocation)) ? 'unregistered' : 'absent' };
    if (now === undefined || !isIceberg(now)) return { outcome: 'absent' };
    await this.o.writer.dropTable(this.db(ident.namespace), ident.name);
    return { outcome: 'unregistered' };
  }

  async dropTable(ident: TableIdent): Promise<{ dropped: boolean }> {
    const now = await this.current(ident);
    const original = this.o.originals === undefined ? undefined : await this.o.originals(ident);
    // In place, dropping the Iceberg entry (a forced rollback) means the saved Hive table takes its name back.
    if (original !== undefined) return { dropped: await putBack(this.hms(), ident, now, original) };
    if (now === undefined || !isIceberg(now)) return { dropped: false };
    await this.o.writer.dropTable(this.db(ident.namespace), ident.name);
    return { dropped: true };
  }
}
