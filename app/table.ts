// One table end to end outside any workflow (`migrate table`), through the same engine the
// workflows use, reached through its port (ConversionEngine.convertTable): prepare → list → footers
// → manifests → metadata.json → register → validate. Ids derive from (source fingerprint, target),
// so a rerun of an unchanged table writes the same files and registers once.
import type { IcebergCatalog, TableIdent } from '../core/catalog/catalog';
import { formatTableIdent } from '../core/catalog/catalog';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError } from '../core/errors';
import { tableFingerprint } from '../core/hive/fingerprint';
import type { ConvertProgress, ConvertTableResult } from '../core/engine-port/conversion';
import type { ConversionEngine } from '../core/engine-port/conversion-engine';

export type { ConvertProgress };
import { footerThreadsOnEveryCpu, sharedFooterThreads } from '../adapters/storage/object-read/footer-pool';
import { openCatalog, openHmsReader, openStores, toolVersion } from './runtime/runtime';
import { withWriteIds } from './plan/walk';
import { assessOptionsOf } from './runtime/assess-options';
import type { TableInventory } from '../core/hive/model';
import { locationFenceRule } from '../core/assess/rules/location-fence';
import { locationReservedRule } from '../core/assess/rules/location-reserved';

/**
 * The location checks plan and apply make, for the one table (no plan here): inside the location
 * fence (LOCATION_NOT_ALLOWED) and clear of this tool's own locations (LOCATION_RESERVED). Before
 * anything is listed, written or registered.
 */
function assertLocationsAllowed(config: MigrateConfig, id: string, inv: TableInventory): void {
  const options = assessOptionsOf(config);
  const [first, ...rest] = [...locationFenceRule(inv, options), ...locationReservedRule(inv, options)];
  if (first === undefined) return;
  const all = [first, ...rest].map((f) => `${f.code}: ${f.evidence}`).join('; ');
  throw new MigrationError(
    first.code as ErrorCode,
    `${id} cannot be migrated from where it is (${all}); nothing was listed, written or registered. ${first.remediation}`,
    { tableId: id, findings: [first, ...rest].map((f) => f.code) },
    { retryable: false },
  );
}

export interface OneTable {
  readonly db: string;
  readonly tbl: string;
  readonly target: TableIdent;
  readonly dryRun: boolean;
  readonly allowUnbucketed: boolean;
  readonly footerConcurrency: number;
  readonly onProgress?: (p: ConvertProgress) => void;
}

export interface Summary {
  readonly table: string;
  readonly target: string;
  readonly registration: string;
  readonly metadataLocation: string;
  readonly locations: number;
  readonly dataFiles: number | null;
  readonly records: number | null;
  readonly partitionFields: readonly string[];
  readonly seconds: number;
  readonly files: readonly { path: string; bytes: number; outcome: string }[];
  readonly findings: readonly { code: string; message: string }[];
  readonly validation?: { ok: boolean } | null;
}

export type TableSummary = ReturnType<typeof summaryOf>;

/**
 * One conversion and no workflow tasks in this process: a footer thread per CPU, started now so they
 * boot while HMS and the catalog answer.
 */
export function startFooterThreads(): void {
  footerThreadsOnEveryCpu();
  sharedFooterThreads();
}

/** What `migrate table` reports of one conversion (the JSON, and the text through renderTable). */
function summaryOf(r: ConvertTableResult, ok: boolean, table: string, target: string, started: number) {
  return {
    ok,
    table,
    target,
    registration: r.registration,
    metadataLocation: r.prepared.metadataLocation,
    snapshotId: r.written?.snapshotId?.toString() ?? null,
    schemaFields: r.prepared.schema.fields.length,
    partitionFields: r.prepared.spec.fields.map((f) => f.name),
    locations: r.prepared.locations.length,
    dataFiles: r.written?.dataFiles ?? null,
    records: r.written?.records ?? null,
    files: r.written?.files ?? [],
    findings: r.written?.findings ?? [],
    validation: r.validation,
    seconds: (Date.now() - started) / 1000,
  };
}

/** Convert, register and validate one table; `ok` is false when validation failed (then nothing stays registered). */
export async function migrateOneTable(
  config: MigrateConfig,
  t: OneTable,
  engine: ConversionEngine,
): Promise<{ ok: boolean; summary: TableSummary; validationFindings: readonly { code: string; message: string }[] }> {
  const hms = openHmsReader(config);
  const stores = openStores(config);
  let catalog: IcebergCatalog | undefined;
  try {
    const [read] = await hms.getTables(t.db, [t.tbl]);
    // An insert-only ACID table converts from its committed writes (its valid write ids, read now).
    const inv = read === undefined ? undefined : await withWriteIds(hms, read);
    if (inv === undefined) throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `${t.db}.${t.tbl} not found in HMS`);
    assertLocationsAllowed(config, `${t.db}.${t.tbl}`, inv);
    catalog = await openCatalog(config, process.env, stores);
    const fingerprint = tableFingerprint(inv);
    const timestampMs = Math.max(1, (Number(inv.table.parameters.transient_lastDdlTime ?? 0) || inv.table.createTime || 1) * 1000);
    const metadataDir = `${(inv.table.sd.location ?? '').replace(/\/+$/, '')}/metadata/`;
    const started = Date.now();
    const r = await engine.convertTable(stores.storeFor([metadataDir]), catalog, {
      inventory: inv,
      identity: { planHash: `table:${fingerprint}`, table: `hms:${t.db}.${t.tbl}->${catalog.name}:${formatTableIdent(t.target)}` },
      timestampMs,
      toolVersion: toolVersion(),
      target: t.target,
      dryRun: t.dryRun,
      allowUnbucketed: t.allowUnbucketed,
      write: {
        footerConcurrency: t.footerConcurrency,
        readersRequired: config.readers?.required,
        ...(t.onProgress !== undefined ? { onProgress: t.onProgress } : {}),
      },
    });
    const ok = r.registration === 'dry-run' || r.validation?.ok === true;
    const summary = summaryOf(r, ok, `${t.db}.${t.tbl}`, `${catalog.name}:${formatTableIdent(t.target)}`, started);
    return { ok, summary, validationFindings: r.validation?.findings ?? [] };
  } finally {
    await catalog?.close?.();
    await hms.close();
    stores.close();
  }
}
