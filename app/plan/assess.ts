// `assess`, and the front half of `plan`: inventory (any HmsReader: Thrift, or the backing database
// when hms.db is configured) → the assessment rules (core/assess) with the findings only
// outside systems can give (storage sample, target catalog) → PlanTables + view edges.
import { assessOptionsOf } from '../runtime/assess-options';
import { rewritable } from '../../core/rewrite/spec';
import type { MigrateConfig } from '../../core/config/schema';
import { MigrationError } from '../../core/errors';
import type { TableInventory } from '../../core/hive/model';
import { assessTable } from '../../core/assess/assess';
import type { Assessment } from '../../core/assess/assess';
import { AssessCode, finding } from '../../core/assess/types';
import type { AssessFinding, AssessOptions } from '../../core/assess/types';
import { sharedLocationFindings } from '../../core/assess/shared-locations';
import { tableFingerprint } from '../../core/hive/fingerprint';
import { plannedPartitions } from '../../core/plan/partition-set';
import type { PlannedPartitions } from '../../core/plan/partition-set';
import { conversionPin } from '../../core/plan/pin';
import type { ConversionPin } from '../../core/plan/types';
import { parseOwnership, teamOf } from '../../core/plan/ownership';
import type { Ownership } from '../../core/plan/ownership';
import type { PlanEdge, PlanTable } from '../../core/plan/types';
import { compareIds } from '../../core/plan/compare-ids';
import { TableClass } from '../../core/assess/types';
import { viewDependencies } from '../../adapters/sql/view-deps';
import type { HmsSource } from '../runtime/runtime';
import { openCatalog, openStores, openWarehouseReader } from '../runtime/runtime';
import { sampleStorage } from './storage-sample';
import { targetCatalogFindings } from './catalog-presence';
import { readWarehouse } from './walk';

export { readWarehouse };

export interface AssessedTable extends Assessment {
  readonly team: string | null;
  /** sha256 of the canonical JSON of the table and its partitions as read. */
  readonly fingerprint: string;
  /** What decides how it converts (core/plan/pin.ts): apply compares the live table's with it. */
  readonly pin: ConversionPin;
  /** The partitions as read (count, names digest, newest createTime): apply names the ones added since. */
  readonly partitions: PlannedPartitions;
  /** Views: the tables the SQL reads. */
  readonly reads: readonly string[];
  /** Rewrite-required and readable by the rewrite job (core/rewrite/spec.ts): planned with `plan --rewrite`. */
  readonly rewritable: boolean;
}

export interface AssessResult {
  readonly tables: readonly AssessedTable[];
  readonly edges: readonly PlanEdge[];
}

function assessOne(
  t: TableInventory,
  options: AssessOptions,
  ownership: Ownership,
  sampled: ReadonlyMap<string, readonly AssessFinding[]>,
): AssessedTable {
  let reads: readonly string[] = [];
  const extra: AssessFinding[] = [...(sampled.get(`${t.table.database}.${t.table.name}`.toLowerCase()) ?? [])];
  if (t.table.tableType === 'VIRTUAL_VIEW') {
    const deps = viewDependencies(t.table);
    reads = deps.refs;
    if (deps.error !== null)
      extra.push(
        finding(
          AssessCode.VIEW_SQL_UNPARSEABLE,
          'warn',
          deps.error,
          'declare the view’s inputs in the lineage file; its wave is not ordered after them',
        ),
      );
  }
  const a = assessTable(t, options, extra);
  return {
    ...a,
    team: teamOf(t.table, ownership),
    fingerprint: tableFingerprint(t),
    pin: conversionPin(t),
    partitions: plannedPartitions(t),
    reads,
    rewritable: a.class === TableClass.REWRITE_REQUIRED && rewritable(t, a.findings),
  };
}

/**
 * Pure over the inventory: assessments sorted by id, and one view edge per (source, view). Findings
 * that need the whole inventory (LOCATION_SHARED) join the outside ones per table.
 */
export function assessWarehouse(
  inventory: readonly TableInventory[],
  options: AssessOptions,
  ownership: Ownership,
  sampled: ReadonlyMap<string, readonly AssessFinding[]> = new Map(),
): AssessResult {
  const extra = new Map<string, readonly AssessFinding[]>(sampled);
  for (const [id, fs] of sharedLocationFindings(inventory)) extra.set(id, [...fs, ...(extra.get(id) ?? [])]);
  const assessed = inventory.map((t) => assessOne(t, options, ownership, extra)).sort((a, b) => compareIds(a.id, b.id));
  const tables = viewsOverUnmigrated(inventory, assessed, options.rewrite === true, (t, more) =>
    assessOne(t, options, ownership, new Map([...extra, [idOf(t), [...(extra.get(idOf(t)) ?? []), ...more]]])),
  );
  const edges: PlanEdge[] = tables.flatMap((t) => t.reads.map((from): PlanEdge => ({ from, to: t.id, reason: 'view' })));
  return { tables, edges };
}

const idOf = (t: TableInventory): string => `${t.table.database}.${t.table.name}`.toLowerCase();
/**
 * Not migrating, and not already in the target catalog (a view may read what an earlier plan migrated).
 * With the rewrite path on, a rewrite-required table the job takes migrates (as a new Iceberg table of the same name).
 */
const doesNotMigrate = (a: AssessedTable, rewrite: boolean): boolean =>
  (a.class === TableClass.SKIP || (a.class === TableClass.REWRITE_REQUIRED && !(rewrite && a.rewritable))) &&
  !a.findings.some((f) => f.code === AssessCode.IN_TARGET_CATALOG);

/**
 * A view reading a table or view of the inventory that does not migrate (skip, rewrite-required unless
 * the plan rewrites it; not one already in the target catalog, IN_TARGET_CATALOG) cannot become an Iceberg view: VIEW_BASE_NOT_MIGRATED (skip), to a fixpoint so a view over such a
 * view follows. Reads outside the inventory are decided at apply (state store, target catalog).
 */
function viewsOverUnmigrated(
  inventory: readonly TableInventory[],
  assessed: readonly AssessedTable[],
  rewrite: boolean,
  reassess: (t: TableInventory, more: readonly AssessFinding[]) => AssessedTable,
): AssessedTable[] {
  const out = [...assessed];
  const at = new Map(out.map((a, i) => [a.id, i]));
  const inv = new Map(inventory.map((t) => [idOf(t), t]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [i, a] of out.entries()) {
      if (a.reads.length === 0 || a.class === TableClass.SKIP || a.class === TableClass.REWRITE_REQUIRED) continue;
      const blocked = a.reads.filter((r) => at.has(r) && doesNotMigrate(out[at.get(r)!]!, rewrite));
      if (blocked.length === 0) continue;
      const f = finding(
        AssessCode.VIEW_BASE_NOT_MIGRATED,
        'skip',
        `reads ${blocked.join(', ')} (not migrating: ${blocked.map((b) => out[at.get(b)!]!.class).join(', ')})`,
        'the view stays a Hive view; migrate what it reads first (or exclude the view), then plan again',
      );
      out[i] = reassess(inv.get(a.id)!, [f]);
      changed = true;
    }
  }
  return out;
}

export function toPlanTable(a: AssessedTable): PlanTable {
  return {
    id: a.id,
    database: a.database,
    name: a.name,
    team: a.team,
    kind: a.kind,
    class: a.class,
    files: a.files,
    bytes: a.bytes,
    risk: a.risk,
    fingerprint: a.fingerprint,
    pin: a.pin,
    partitions: a.partitions,
    rewritable: a.rewritable,
  };
}

/**
 * Findings the HMS metadata cannot give: the storage sample's and the target catalog's (tables
 * whose target name is already taken), merged by table id.
 */
export async function outsideFindingsFor(cfg: MigrateConfig, inventory: readonly TableInventory[]): Promise<Map<string, AssessFinding[]>> {
  // Independent reads (object store, catalog): side by side.
  const [out, inCatalog] = await Promise.all([sampleStorageFor(cfg, inventory), targetCatalogFor(cfg, inventory)]);
  for (const [id, fs] of inCatalog) out.set(id, [...(out.get(id) ?? []), ...fs]);
  return out;
}

/**
 * The target catalog's findings, when one is configured. An in-place Hive catalog converts the
 * source table itself (a converted one is ALREADY_ICEBERG already), so there is nothing to list.
 */
export async function targetCatalogFor(cfg: MigrateConfig, inventory: readonly TableInventory[]): Promise<Map<string, AssessFinding[]>> {
  const c = cfg.catalog;
  if (c === undefined || (c.type === 'hive' && c.mode === 'in-place')) return new Map();
  let catalog: Awaited<ReturnType<typeof openCatalog>> | undefined;
  try {
    catalog = await openCatalog(cfg);
    return await targetCatalogFindings(catalog, inventory, c.namespacePrefix ?? '');
  } catch (e) {
    if (!(e instanceof MigrationError)) throw e;
    throw new MigrationError(
      e.code,
      `${e.message} (the target catalog ${c.name} is read to leave out the tables it already holds: check catalog.uri, or its credentials)`,
      e.context,
      { cause: e },
    );
  } finally {
    await catalog?.close?.();
  }
}

/** Storage facts for the assessment (sub-directories, INT96), when storage is configured and sampling is on. */
export async function sampleStorageFor(cfg: MigrateConfig, inventory: readonly TableInventory[]): Promise<Map<string, AssessFinding[]>> {
  const files = cfg.plan?.assess.sampleFiles ?? 3;
  if (files === 0 || cfg.storage?.s3 === undefined) return new Map();
  const stores = openStores(cfg);
  try {
    return await sampleStorage(stores.storeFor([]), inventory, { filesPerTable: files, readersRequired: cfg.readers?.required });
  } finally {
    stores.close();
  }
}

/** Config → options, validated up front (a bad ownership mapping fails before HMS is read). */
export function assessSettings(cfg: MigrateConfig): { options: AssessOptions; ownership: Ownership } {
  const plan = cfg.plan;
  return {
    options: assessOptionsOf(cfg),
    ownership: withPrefix('plan.ownership', () => parseOwnership(plan?.ownership ?? {})),
  };
}

/** Re-throw a core validation error with its paths under the config section it came from. */
export function withPrefix<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof MigrationError)) throw e;
    const paths = Array.isArray(e.context.paths) ? (e.context.paths as string[]) : [];
    let message = e.message;
    for (const p of paths)
      message = message.replace(new RegExp(`(^|\\n)${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`), `$1${prefix}.${p}:`);
    throw new MigrationError(e.code, message, { ...e.context, paths: paths.map((p) => `${prefix}.${p}`) });
  }
}

export async function runAssess(cfg: MigrateConfig, databases: readonly string[], source?: HmsSource): Promise<AssessResult> {
  const { options, ownership } = assessSettings(cfg);
  const { reader } = await openWarehouseReader(cfg, { source });
  try {
    const inventory = await readWarehouse(reader, databases.length > 0 ? databases : (cfg.plan?.databases ?? []));
    return assessWarehouse(inventory, options, ownership, await outsideFindingsFor(cfg, inventory));
  } finally {
    await reader.close();
  }
}
