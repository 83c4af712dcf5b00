// A Hive view's steps (apply, undo, rollback): created as an Iceberg view in the target catalog once
// every table or view it reads has an Iceberg name (migrated by this plan, or already in the
// catalog), validated by reading it back and running it in Spark against its Hive SQL, dropped by its undo and by rollback — only while it
// carries our marker. A view that cannot become one stays in Hive with a coded reason (recorded,
// audited). The Hive view itself is never altered.
import { AuditAction as A, digestOf } from '../core/audit/chain';
import type { LoadedView, TableIdent, ViewDefinition } from '../core/catalog/catalog';
import { formatTableIdent } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableInventory } from '../core/hive/model';
import { AssessCode } from '../core/assess/types';
import { viewReferences } from '../core/view/view-deps';
import { isLive } from '../core/state/status';
import type { TableRecord } from '../core/state/store';
import { ViewMarker, buildIcebergView, isOurView, viewDifferences } from '../core/view/iceberg-view';
import type { Ctx, TableRef } from './context';
import type { SparkViewCheck } from './view-check';
import { sparkCheckView } from './view-check';
import { assertHmsUnchanged } from './hms-read';
import { planId } from '../core/plan/ids';

export type ViewStep =
  | { readonly created: true; readonly target: string }
  | { readonly created: false; readonly code: string; readonly message: string };

type Skip = { readonly code: AssessCode; readonly message: string };
/** A coded warning recorded on a created view (validation.warnings) and in its audit events. */
export type ViewWarning = { readonly code: AssessCode; readonly message: string };

/** The Iceberg name of a table or view the view reads, when it has one now; null otherwise. */
async function icebergNameOf(c: Ctx, ref: TableRef, base: string): Promise<TableIdent | null> {
  const rec = await c.deps.state.getTable(ref.planHash, base).catch(() => null);
  if (rec !== null && (isLive(rec.status) || rec.status === 'view-created')) return c.recordedTarget({ ...ref, tableId: base }, rec);
  const ident = c.target(base);
  if (await c.deps.catalog.tableExists(ident)) return ident;
  return (await c.deps.catalog.views?.viewExists(ident)) === true ? ident : null;
}

/** The definition to create, or why the view stays in Hive. */
async function definitionOf(c: Ctx, ref: TableRef, view: TableInventory): Promise<{ def: ViewDefinition; warnings: ViewWarning[] } | Skip> {
  const { deps } = c;
  if (deps.catalog.views === undefined)
    return {
      code: AssessCode.VIEW_CATALOG_UNSUPPORTED,
      message: `catalog ${deps.catalog.name} serves no Iceberg views; the view stays in Hive`,
    };
  if (deps.viewSql === undefined) return { code: AssessCode.VIEW_NOT_TRANSLATABLE, message: 'this worker has no SQL parser for views' };
  const t = view.table;
  const refs = viewReferences(deps.viewSql, t.database, t.viewExpandedText, t.viewOriginalText);
  if (!refs.ok) return { code: AssessCode.VIEW_NOT_TRANSLATABLE, message: `the view's SQL does not parse: ${refs.error}` };
  const targets = new Map<string, TableIdent>();
  const missing: string[] = [];
  for (const base of refs.tables) {
    const ident = await icebergNameOf(c, ref, base);
    if (ident === null) missing.push(base);
    else targets.set(base, ident);
  }
  if (missing.length > 0)
    return { code: AssessCode.VIEW_BASE_NOT_MIGRATED, message: `reads ${missing.join(', ')}: not migrated and not in the target catalog` };
  const ident = c.target(ref.tableId);
  const plan = await c.plan(ref.planHash);
  const built = buildIcebergView({
    view: t,
    targets,
    defaultNamespace: ident.namespace,
    defaultCatalog: plan.targetCatalog,
    trinoCatalog: deps.trinoCatalog ?? null,
    planHash: ref.planHash,
    toolVersion: deps.toolVersion,
  });
  if (!built.ok)
    return {
      code: built.why === 'function' ? AssessCode.VIEW_FUNCTION_UNSUPPORTED : AssessCode.VIEW_NOT_TRANSLATABLE,
      message: built.message,
    };
  // The Spark text must read exactly the Iceberg names (a reference the scanner missed would read a Hive table).
  const spark = built.definition.representations.find((r) => r.dialect === 'spark')?.sql ?? '';
  const back = deps.viewSql.references(spark, ident.namespace.join('.'));
  const want = [...targets.values()].map((i) => formatTableIdent(i).toLowerCase()).sort();
  if (!back.ok || JSON.stringify([...new Set(back.tables)].sort()) !== JSON.stringify([...new Set(want)]))
    return { code: AssessCode.VIEW_NOT_TRANSLATABLE, message: `the Spark SQL does not read exactly ${want.join(', ')}` };
  const warnings =
    built.trinoSkipped === null
      ? []
      : [{ code: AssessCode.VIEW_TRINO_UNTRANSLATED, message: `no trino representation: ${built.trinoSkipped.message}`.slice(0, 500) }];
  return { def: built.definition, warnings };
}

async function skip(c: Ctx, ref: TableRef, rec: TableRecord, s: Skip): Promise<ViewStep> {
  await c.record(ref, rec, 'view-skip', {
    set: { errorCode: s.code, errorMessage: s.message.slice(0, 2000) },
    before: null,
    after: null,
    details: { code: s.code, message: s.message.slice(0, 500) },
  });
  return { created: false, code: s.code, message: s.message };
}

const notOurs = (ref: TableRef, name: string, why: string): MigrationError =>
  new MigrationError(
    ErrorCode.VIEW_NOT_OURS,
    `${ref.tableId}: ${name} ${why}; it is left untouched and the Hive view stays`,
    { tableId: ref.tableId, target: name },
    { retryable: false },
  );

/** Create the Iceberg view (assert-create; a retry finds its own view by the marker) or skip with a code. */
async function createIcebergView(c: Ctx, ref: TableRef): Promise<ViewStep> {
  const { deps } = c;
  await c.assertTarget(ref);
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  const plan = await c.plan(ref.planHash);
  const ident = c.target(ref.tableId);
  const name = `${plan.targetCatalog}:${formatTableIdent(ident)}`;
  if (rec.status === 'view-created') return { created: true, target: name };
  if (rec.original === null) throw new MigrationError(ErrorCode.INTERNAL, `${ref.tableId}: no saved original`, { tableId: ref.tableId });
  const d = await definitionOf(c, ref, rec.original);
  if (!('def' in d)) return skip(c, ref, rec, d);
  const views = deps.catalog.views!;
  await deps.catalog.createNamespace(ident.namespace);
  if (await deps.catalog.tableExists(ident)) throw notOurs(ref, name, 'is a table');
  const { outcome, view } = await views.createView(ident, d.def);
  if (!isOurView(view, ref.tableId)) throw notOurs(ref, name, 'is a view this tool did not create for it');
  // Ours, from another plan (a view created earlier is left as it is, as a registered table is).
  const by = view.properties[ViewMarker.PLAN];
  if (outcome === 'exists' && by !== ref.planHash)
    return skip(c, ref, rec, {
      code: AssessCode.IN_TARGET_CATALOG,
      message: `${name} was created by plan ${planId(String(by))}; left as it is`,
    });
  await c.record(ref, rec, 'view-create', {
    set: { target: name, validation: { view: { wanted: d.def, metadataLocation: view.metadataLocation }, warnings: d.warnings } },
    target: name,
    before: null,
    after: digestOf(d.def),
    details: {
      outcome,
      metadataLocation: view.metadataLocation,
      dialects: d.def.representations.map((r) => r.dialect),
      warnings: d.warnings,
    },
  });
  return { created: true, target: name };
}

const wantedOf = (rec: TableRecord): ViewDefinition | null =>
  (rec.validation as { view?: { wanted?: ViewDefinition } } | null)?.view?.wanted ?? null;
const warningsOf = (rec: TableRecord): ViewWarning[] => (rec.validation as { warnings?: ViewWarning[] } | null)?.warnings ?? [];

function mismatch(ref: TableRef, differences: readonly string[], spark: SparkViewCheck): MigrationError | null {
  if (differences.length > 0)
    return new MigrationError(
      ErrorCode.VIEW_VALIDATION_MISMATCH,
      `${ref.tableId}: the Iceberg view read back differs: ${differences.join('; ')}`,
      { tableId: ref.tableId, differences },
      { retryable: false },
    );
  if ('equal' in spark && !spark.equal)
    return new MigrationError(
      ErrorCode.VIEW_VALIDATION_MISMATCH,
      `${ref.tableId}: Spark reads the Iceberg view differently from the Hive view over the Hive files (rows ${spark.hive.rows} → ${spark.iceberg.rows}, checksum ${spark.hive.checksum.slice(0, 12)} → ${spark.iceberg.checksum.slice(0, 12)})`,
      { tableId: ref.tableId, spark },
      { retryable: false },
    );
  return null;
}

/**
 * Read the view back (our marker, the Hive view's columns, every representation as created), then
 * run it in Spark against its Hive SQL over the Hive files (view-check.ts; skipped without a
 * spark-submit command). Recorded under `validation` and audited; any difference is VIEW_VALIDATION_MISMATCH.
 */
async function validateIcebergView(c: Ctx, ref: TableRef): Promise<{ ok: true; metadataLocation: string }> {
  const { deps } = c;
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  const wanted = wantedOf(rec);
  if (wanted === null || rec.original === null)
    throw new MigrationError(ErrorCode.INTERNAL, `${ref.tableId}: no created view recorded`, { tableId: ref.tableId });
  const ident = c.recordedTarget(ref, rec);
  const loaded: LoadedView = await deps.catalog.views!.loadView(ident);
  const differences = viewDifferences(loaded, wanted, ref.tableId);
  const spark: SparkViewCheck =
    differences.length > 0 ? { skipped: 'the view read back differs' } : await sparkCheckView(c, ref, rec.original, ident);
  const failure = mismatch(ref, differences, spark);
  const validation = {
    view: { wanted, metadataLocation: loaded.metadataLocation },
    ok: failure === null,
    viewUuid: loaded.viewUuid,
    dialects: loaded.representations.map((r) => r.dialect),
    columns: loaded.schema.fields.length,
    differences,
    spark,
    warnings: warningsOf(rec),
  };
  await c.record(ref, rec, 'view-validate', {
    set: { validation },
    before: null,
    after: digestOf(validation),
    details: { ok: validation.ok, dialects: validation.dialects, differences, spark },
  });
  if (failure !== null) throw failure;
  return { ok: true, metadataLocation: loaded.metadataLocation };
}

/** Drop the view only while it is ours; absent: nothing to do. Audited. */
async function dropOurView(c: Ctx, ref: TableRef, rec: TableRecord, by?: string): Promise<'dropped' | 'absent' | 'not-ours'> {
  const views = c.deps.catalog.views;
  if (views === undefined || rec.target === null) return 'absent';
  const ident = c.recordedTarget(ref, rec);
  if (!(await views.viewExists(ident))) return 'absent';
  const loaded = await views.loadView(ident);
  if (!isOurView(loaded, ref.tableId)) return 'not-ours';
  await views.dropView(ident);
  await c.audit(
    A.VIEW_DROPPED,
    rec.target,
    ref.planHash,
    digestOf(loaded.metadataLocation),
    null,
    { metadataLocation: loaded.metadataLocation },
    by,
  );
  return 'dropped';
}

/** Inverse of createIcebergView (the table workflow's undo). */
async function dropIcebergView(c: Ctx, ref: TableRef): Promise<{ outcome: string }> {
  const rec = await c.deps.state.getTable(ref.planHash, ref.tableId);
  if (rec.status !== 'view-created') return { outcome: 'absent' };
  return { outcome: await dropOurView(c, ref, rec) };
}

/** Rollback of a created view: dropped (ours only), the Hive view checked unchanged, recorded. */
export async function rollbackView(c: Ctx, ref: TableRef, rec: TableRecord, by: string): Promise<{ status: string }> {
  const outcome = await dropOurView(c, ref, rec, by);
  if (outcome === 'not-ours')
    throw new MigrationError(
      ErrorCode.ROLLBACK_NOT_OURS,
      `${ref.tableId}: ${rec.target ?? '?'} is a view this tool did not create for it; left untouched`,
      { tableId: ref.tableId },
      { retryable: false },
    );
  await assertHmsUnchanged(c.deps.hms, ref.tableId, rec.originalDigest, { what: 'the Hive view' });
  await c.record(ref, rec, 'view-roll-back', { before: null, after: rec.originalDigest, details: { verified: true, view: outcome } }, by);
  return { status: 'rolled-back' };
}

/** These steps under their activity names (what the workflows call: never rename). */
export function viewOps(c: Ctx) {
  return {
    createIcebergView: (ref: TableRef): Promise<ViewStep> => createIcebergView(c, ref),
    validateIcebergView: (ref: TableRef): Promise<{ ok: true; metadataLocation: string }> => validateIcebergView(c, ref),
    dropIcebergView: (ref: TableRef): Promise<{ outcome: string }> => dropIcebergView(c, ref),
  };
}
