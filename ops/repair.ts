// Orphans: metadata this tool wrote for tables that did not end `migrated` — a child
// workflow terminated mid-step, or a compensation that could not finish. findOrphans reports what
// is left per table (our metadata files that still exist, a catalog entry that points at OUR
// metadata, an in-place Hive table still in our Iceberg form); repairOrphans undoes exactly that, in
// reverse (unregister, then the files), audited, and closes the record as `failed`. Never touched:
// data files (the store may delete only under the table's metadata directory), a catalog entry that
// points anywhere else, and a table whose workflow still runs. Preparation is never re-run as a
// precondition: the metadata directory comes from the saved original; the deterministic names a
// crashed write may have left unrecorded are added when preparation still succeeds.
import type { AuditEventInput } from '../core/audit/chain';
import { AuditAction, digestOf } from '../core/audit/chain';
import type { IcebergCatalog, TableIdent } from '../core/catalog/catalog';
import { formatTableIdent } from '../core/catalog/catalog';
import type { PreparedConversion } from '../core/convert/prepare';
import { manifestPath } from '../core/convert/prepare';
import { ErrorCode, MigrationError } from '../core/errors';
import type { PlanFile } from '../core/plan/plan-file';
import type { ObjectStore } from '../core/storage/object-store';
import { inFlight } from '../core/state/status';
import type { StateStore, TableRecord, TableStatus } from '../core/state/store';
import { conversionFor, targetOf } from '../core/convert/plan-conversion';
import { recordTransition } from '../engine/record-transition';
import { planId } from '../core/plan/ids';

export interface RepairDeps {
  readonly state: StateStore;
  /** The configured catalog; an in-place Hive catalog learns each table's saved original. */
  readonly catalog: IcebergCatalog;
  /** A store that may delete only under `metadataPrefixes` (adapters/storage). */
  readonly storeFor: (metadataPrefixes: readonly string[]) => ObjectStore;
  readonly namespacePrefix: string;
  /** True while the table's workflow runs (the CLI asks Temporal): then it is not an orphan. */
  readonly isRunning: (planHash: string, tableId: string) => Promise<boolean>;
  readonly toolVersion?: string;
  readonly now?: () => Date;
}

/** What the catalog holds at the table's target name. */
export interface CatalogEntryFinding {
  /** `ours`: points at our metadata (a leftover); `foreign`: anywhere else (reported, never touched); `unreadable`: the catalog could not say. */
  readonly state: 'ours' | 'foreign' | 'unreadable';
  readonly location: string | null;
  readonly message?: string;
}

export interface TableLeftovers {
  readonly tableId: string;
  readonly wave: number;
  readonly status: TableStatus;
  readonly errorCode: string | null;
  readonly target: string;
  readonly metadataDir: string | null;
  /** Our metadata.json (recorded, or the name this conversion uses). */
  readonly ours: string | null;
  /** Our metadata files that exist in storage, in deletion order (metadata.json first). */
  readonly files: readonly string[];
  readonly entry: CatalogEntryFinding | null;
  /** The record still shows a step in flight (or an unfinished compensation). */
  readonly staleState: boolean;
  readonly running: boolean;
  /** Not running, and something of ours is left (files, our entry, an unfinished record). */
  readonly orphan: boolean;
}

export interface OrphanReport {
  readonly planHash: string;
  /** Tables with leftovers (orphans, and running tables left alone) or a foreign entry at their target. */
  readonly tables: readonly TableLeftovers[];
}

/** Record marker for a table closed by repair that had no failure code of its own. */
export const REPAIRED = 'REPAIRED';
/** What the lead records for a compensation that could not finish. */
export const COMPENSATION_INCOMPLETE = 'COMPENSATION_INCOMPLETE';
const EXAMINED: ReadonlySet<TableStatus> = new Set(['original-saved', 'written', 'registered', 'failed']);

const trimSlash = (s: string): string => s.replace(/\/+$/, '');
const isNotFound = (e: unknown): boolean =>
  e instanceof MigrationError && (e.code === ErrorCode.STORAGE_NOT_FOUND || e.code === ErrorCode.CATALOG_NOT_FOUND);

/** The conversion as apply decided it, when preparation still succeeds (only for file names). */
function preparedOrNull(plan: PlanFile, rec: TableRecord, deps: RepairDeps): PreparedConversion | null {
  if (rec.original === null) return null;
  try {
    return conversionFor(plan, rec.tableId, rec.original, deps.namespacePrefix, deps.toolVersion ?? '0.0.0');
  } catch {
    return null;
  }
}

/** metadata.json first, then the manifest list, then manifests: the reverse of how they were written. */
function deletionOrder(paths: Iterable<string>): string[] {
  const rank = (p: string): number => (p.endsWith('.metadata.json') ? 0 : /\/snap-[^/]*\.avro$/.test(p) ? 1 : 2);
  return [...new Set(paths)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

async function exists(store: ObjectStore, path: string): Promise<boolean> {
  try {
    await store.head(path);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

/** Our metadata files that exist: the recorded ones, plus this conversion's deterministic names in the directory. */
async function ourFiles(store: ObjectStore, dir: string, rec: TableRecord, p: PreparedConversion | null): Promise<string[]> {
  const named = new Set<string>([
    ...(rec.writtenFiles ?? []).map((f) => f.path),
    ...(rec.metadataLocation === null ? [] : [rec.metadataLocation]),
  ]);
  if (p !== null && p.metadataDir === dir) {
    named.add(p.metadataLocation).add(p.manifestListPath);
    const manifests = manifestPath(p, 0).replace(/0\.avro$/, '');
    try {
      for await (const e of store.list(dir))
        if (e.kind === 'file' && e.path.startsWith(manifests) && e.path.endsWith('.avro')) named.add(e.path);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  const found: string[] = [];
  for (const path of deletionOrder([...named].filter((x) => x.startsWith(dir)))) if (await exists(store, path)) found.push(path);
  return found;
}

/** The catalog for this table: in place, one that knows the saved original (as activities' catalogOf). */
function catalogFor(deps: RepairDeps, rec: TableRecord, ident: TableIdent): IcebergCatalog {
  return rec.original === null || deps.catalog.withSavedOriginal === undefined
    ? deps.catalog
    : deps.catalog.withSavedOriginal(ident, rec.original.table);
}

async function entryAt(catalog: IcebergCatalog, ident: TableIdent, ours: string | null): Promise<CatalogEntryFinding | null> {
  if (!(await catalog.tableExists(ident))) return null;
  let location: string;
  try {
    location = (await catalog.loadTable(ident)).metadataLocation;
  } catch (e) {
    if (isNotFound(e)) return null;
    // The Hive catalog names the location it could not read; a REST server does not.
    const named = e instanceof MigrationError ? e.context.metadataLocation : undefined;
    if (typeof named !== 'string')
      return { state: 'unreadable', location: null, message: e instanceof MigrationError ? `${e.code}: ${e.message}` : String(e) };
    location = named;
  }
  return { state: ours !== null && location === ours ? 'ours' : 'foreign', location };
}

async function inspect(deps: RepairDeps, plan: PlanFile, rec: TableRecord): Promise<TableLeftovers> {
  const ident = targetOf(rec.tableId, deps.namespacePrefix);
  const p = preparedOrNull(plan, rec, deps);
  const location = rec.original?.table.sd.location ?? '';
  const dir = location === '' ? null : `${trimSlash(location)}/metadata/`;
  const ours = rec.metadataLocation ?? p?.metadataLocation ?? null;
  const files = dir === null ? [] : await ourFiles(deps.storeFor([dir]), dir, rec, p);
  const entry = await entryAt(catalogFor(deps, rec, ident), ident, ours);
  const staleState = inFlight(rec.status) || rec.errorCode === COMPENSATION_INCOMPLETE;
  const running = staleState || files.length > 0 || entry?.state === 'ours' ? await deps.isRunning(rec.planHash, rec.tableId) : false;
  const leftover = staleState || files.length > 0 || (entry !== null && entry.state !== 'foreign');
  return {
    tableId: rec.tableId,
    wave: rec.wave,
    status: rec.status,
    errorCode: rec.errorCode,
    target: formatTableIdent(ident),
    metadataDir: dir,
    ours,
    files,
    entry,
    staleState,
    running,
    orphan: leftover && !running,
  };
}

const worthReporting = (t: TableLeftovers): boolean => t.staleState || t.files.length > 0 || t.entry !== null;

/** Every table of the plan that did not end migrated/rolled back/skipped and still has something to show. */
export async function findOrphans(deps: RepairDeps, planHash: string): Promise<OrphanReport> {
  const plan = await deps.state.getPlan(planHash);
  const tables: TableLeftovers[] = [];
  for (const rec of await deps.state.listTables(planHash)) {
    if (!EXAMINED.has(rec.status)) continue;
    const t = await inspect(deps, plan, rec);
    if (worthReporting(t)) tables.push(t);
  }
  return { planHash, tables };
}

export interface RepairOutcome {
  readonly tableId: string;
  /** Our metadata files deleted, and what happened to the catalog entry. */
  readonly removed: { readonly files: readonly string[]; readonly entry: 'unregistered' | 'hive-original-restored' | null };
  /** What is still there after the repair (re-inspected); empty when the table is clean. */
  readonly left: TableLeftovers | null;
  readonly error?: { readonly code: string; readonly message: string };
  readonly ok: boolean;
}

export interface RepairReport {
  readonly planHash: string;
  readonly repaired: readonly RepairOutcome[];
  /** Tables whose workflow still runs: left alone. */
  readonly running: readonly string[];
  /** Catalog entries at our targets that point elsewhere: reported, never touched. */
  readonly foreign: readonly { readonly tableId: string; readonly target: string; readonly location: string | null }[];
}

type Audit = (
  action: AuditEventInput['action'],
  object: string,
  before: string | null,
  after: string | null,
  details: Record<string, unknown>,
) => AuditEventInput;

/** Unregister (only our entry; in place, the saved original takes its name back). */
async function undoEntry(deps: RepairDeps, rec: TableRecord, t: TableLeftovers, ev: Audit): Promise<RepairOutcome['removed']['entry']> {
  const ident = targetOf(rec.tableId, deps.namespacePrefix);
  const catalog = catalogFor(deps, rec, ident);
  const object = `${deps.catalog.name}:${t.target}`;
  if (t.entry?.state === 'ours' && t.ours !== null) {
    const { outcome } = await catalog.unregisterTable(ident, t.ours);
    if (outcome === 'unregistered')
      await deps.state.appendAudit(
        ev(AuditAction.TABLE_UNREGISTERED, object, digestOf(t.ours), null, { metadataLocation: t.ours, repair: true }),
      );
    return outcome === 'unregistered' ? 'unregistered' : null;
  }
  // In place, a conversion stopped between moving the Hive table aside and creating ours: put it back.
  if (catalog.inPlace === true && t.entry === null && t.staleState && rec.status !== 'original-saved') {
    const { outcome } = await catalog.unregisterTable(ident, t.ours ?? '');
    if (outcome === 'unregistered')
      await deps.state.appendAudit(ev(AuditAction.TABLE_UNREGISTERED, object, null, null, { restoredOriginal: true, repair: true }));
    return outcome === 'unregistered' ? 'hive-original-restored' : null;
  }
  return null;
}

async function repairOne(deps: RepairDeps, plan: PlanFile, rec: TableRecord, t: TableLeftovers, by: string): Promise<RepairOutcome> {
  const at = (): string => (deps.now?.() ?? new Date()).toISOString();
  const ev: Audit = (action, object, before, after, details) => ({
    at: at(),
    actor: by,
    action,
    object,
    planHash: rec.planHash,
    beforeDigest: before,
    afterDigest: after,
    details,
  });
  const deleted: string[] = [];
  let entry: RepairOutcome['removed']['entry'] = null;
  try {
    entry = await undoEntry(deps, rec, t, ev);
    if (t.entry?.state !== 'unreadable' && t.files.length > 0 && t.metadataDir !== null) {
      const store = deps.storeFor([t.metadataDir]);
      for (const f of t.files) {
        if (!f.startsWith(t.metadataDir))
          throw new MigrationError(ErrorCode.STORAGE_MUTATION_REFUSED, `${f} is outside ${t.metadataDir}; not deleting`, { path: f });
        await store.delete(f);
        deleted.push(f);
      }
      await deps.state.appendAudit(
        ev(AuditAction.TABLE_METADATA_DELETED, `hms:${rec.tableId}`, digestOf(t.files), null, {
          files: deleted.length,
          paths: deleted,
          repair: true,
        }),
      );
    }
    const left = await inspect(deps, plan, { ...rec, status: 'failed', errorCode: closedCode(rec) });
    if (left.files.length > 0 || left.entry?.state === 'ours' || left.entry?.state === 'unreadable')
      return { tableId: rec.tableId, removed: { files: deleted, entry }, left, ok: false };
    const message = `repaired by ${by} at ${at()}: ${deleted.length} metadata file(s) deleted${entry === null ? '' : `, ${entry}`}; was ${rec.status}${rec.errorCode === null ? '' : ` (${rec.errorCode}: ${rec.errorMessage ?? ''})`}`;
    await recordTransition(
      deps.state,
      rec,
      rec,
      'repair',
      {
        set: { errorCode: closedCode(rec), errorMessage: message.slice(0, 2000), writtenFiles: null },
        before: digestOf(t),
        after: null,
        details: { previousStatus: rec.status, previousCode: rec.errorCode, filesDeleted: deleted.length, entry },
      },
      { at: at(), actor: by },
    );
    return { tableId: rec.tableId, removed: { files: deleted, entry }, left: null, ok: true };
  } catch (e) {
    const error =
      e instanceof MigrationError
        ? { code: e.code, message: e.message }
        : { code: ErrorCode.INTERNAL, message: (e as Error).message ?? String(e) };
    return { tableId: rec.tableId, removed: { files: deleted, entry }, left: null, error, ok: false };
  }
}

/** The failure code a repaired record keeps: its own, unless that only said the undo was unfinished. */
function closedCode(rec: TableRecord): string {
  return rec.errorCode === null || rec.errorCode === COMPENSATION_INCOMPLETE ? REPAIRED : rec.errorCode;
}

/** Remove every orphan's leftovers (tables whose workflow runs are left alone). Idempotent. */
export async function repairOrphans(deps: RepairDeps, planHash: string, opts: { by: string }): Promise<RepairReport> {
  const plan = await deps.state.getPlan(planHash);
  const found = await findOrphans(deps, planHash);
  const repaired: RepairOutcome[] = [];
  const running = found.tables.filter((t) => t.running).map((t) => t.tableId);
  for (const t of found.tables.filter((x) => x.orphan)) {
    // Looked at again just before acting: a wave may have (re)started the table since the listing.
    const rec = await deps.state.getTable(planHash, t.tableId);
    const now = EXAMINED.has(rec.status) ? await inspect(deps, plan, rec) : null;
    if (now?.running === true) running.push(t.tableId);
    if (now?.orphan === true) repaired.push(await repairOne(deps, plan, rec, now, opts.by));
  }
  return {
    planHash,
    repaired,
    running,
    foreign: found.tables
      .filter((t) => t.entry?.state === 'foreign')
      .map((t) => ({ tableId: t.tableId, target: t.target, location: t.entry?.location ?? null })),
  };
}

export interface OrphanSummary {
  readonly planHash: string;
  readonly orphans: number;
  readonly metadataFiles: number;
  readonly ourCatalogEntries: number;
  readonly running: number;
  readonly foreignEntries: number;
  readonly tables: readonly { readonly tableId: string; readonly status: string; readonly files: number; readonly entry: string | null }[];
  /** A Markdown section for the nightly report (empty string when there is nothing to say). */
  readonly markdown: string;
}

/** For the nightly validation: how many orphans a plan has, and which (the publish step reports it). */
export async function orphanSummary(deps: RepairDeps, planHash: string): Promise<OrphanSummary> {
  const { tables } = await findOrphans(deps, planHash);
  const orphans = tables.filter((t) => t.orphan);
  const rows = orphans.map((t) => ({
    tableId: t.tableId,
    status: t.errorCode === null ? t.status : `${t.status} (${t.errorCode})`,
    files: t.files.length,
    entry: t.entry?.state ?? null,
  }));
  const foreign = tables.filter((t) => t.entry?.state === 'foreign').length;
  const markdown =
    orphans.length === 0
      ? ''
      : [
          `### Orphans: ${orphans.length} table(s) with metadata left by this tool`,
          '',
          '| table | status | our metadata files | catalog entry |',
          '|---|---|---|---|',
          ...rows.map((r) => `| \`${r.tableId}\` | ${r.status} | ${r.files} | ${r.entry ?? '—'} |`),
          '',
          `Remove them with \`migrate repair ${planId(planHash)} --apply\`.`,
          '',
        ].join('\n');
  return {
    planHash,
    orphans: orphans.length,
    metadataFiles: orphans.reduce((n, t) => n + t.files.length, 0),
    ourCatalogEntries: orphans.filter((t) => t.entry?.state === 'ours').length,
    running: tables.filter((t) => t.running).length,
    foreignEntries: foreign,
    tables: rows,
    markdown,
  };
}
