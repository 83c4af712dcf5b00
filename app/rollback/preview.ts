// `migrate rollback <plan> --wave N --dry-run`: what a rollback of the wave would do to each table,
// changing nothing. Per table, like ops/undo.ts decides it: our metadata still current →
// drop the entry; commits since ours (a descendant) → the put-back plan (the engine port's planPutBack: the
// partitions to add and the ones already visible, files and rows per snapshot) or what blocks it
// (ROLLBACK_BLOCKED with each snapshot; with --force: dropped with them); an entry we did not
// register → ROLLBACK_NOT_OURS; no entry → nothing to unregister. Still-migrated views of later
// waves that read the wave come first: refused (ROLLBACK_ORDER) or, with --with-dependent-views,
// previewed like the wave's own. Reads only: the state store, the catalog and the manifests.
import type { IcebergCatalog, TableIdent } from '../../core/catalog/catalog';
import { parseTableIdent } from '../../core/catalog/catalog';
import type { MigrateConfig } from '../../core/config/schema';
import { targetOf } from '../../core/convert/plan-conversion';
import { ErrorCode } from '../../core/errors';
import { planId } from '../../core/plan/ids';
import { nothingToRollBack } from '../../core/state/status';
import { isOurView } from '../../core/view/iceberg-view';
import { dependentViews, liveViewsAfter } from '../../core/view/rollback-order';
import { NodeSqlViewParser } from '../../adapters/sql/view-deps';
import type { TableRecord } from '../../core/state/store';
import type { ObjectStore } from '../../core/storage/object-store';
import type { PutBackSummary } from '../../core/engine-port/checks';
import type { ConversionEngine } from '../../core/engine-port/conversion-engine';
import { planWithWave } from './rollback';
import { openCatalog, openState, openStores } from '../runtime/runtime';

export type PreviewAction = 'drop' | 'put-back' | 'blocked' | 'force-drop' | 'refused' | 'not-ours' | 'nothing-registered';

export interface RollbackPreviewTable {
  readonly table: string;
  readonly action: PreviewAction;
  /** The code a real rollback would refuse the table with (blocked, refused, not-ours). */
  readonly code?: string;
  readonly message?: string;
  readonly putBack?: PutBackSummary;
}

export interface RollbackPreview {
  readonly dryRun: true;
  readonly plan: string;
  readonly wave: number;
  readonly tables: readonly RollbackPreviewTable[];
}

interface Reach {
  readonly engine: ConversionEngine;
  readonly catalog: IcebergCatalog;
  readonly store: ObjectStore;
  readonly namespacePrefix: string;
  readonly force: boolean;
}

const identOf = (rec: TableRecord, nsPrefix: string): TableIdent =>
  rec.target === null ? targetOf(rec.tableId, nsPrefix) : parseTableIdent(rec.target.slice(rec.target.indexOf(':') + 1));

async function descendant(r: Reach, rec: TableRecord, ident: TableIdent, current: string): Promise<RollbackPreviewTable> {
  const table = rec.tableId;
  if (r.catalog.inPlace === true || rec.original === null)
    return r.force
      ? { table, action: 'force-drop', message: `commits after ours (now at ${current}) would be dropped (--force, audited)` }
      : {
          table,
          action: 'refused',
          code: ErrorCode.ROLLBACK_REFUSED,
          message: `commits after ours (now at ${current}); in place they cannot be put back`,
        };
  const plan = await r.engine.planPutBack(r.store, r.catalog, ident, table, rec.original);
  const s = plan.summary;
  if (s.blockers.length === 0) return { table, action: 'put-back', putBack: s };
  const blockers = s.blockers.map((b) => `snapshot ${b.snapshotId} (${b.operation}): ${b.reason}`).join(' | ');
  return r.force
    ? {
        table,
        action: 'force-drop',
        code: ErrorCode.ROLLBACK_BLOCKED,
        message: `cannot be put back, dropped with --force: ${blockers}`,
        putBack: s,
      }
    : { table, action: 'blocked', code: ErrorCode.ROLLBACK_BLOCKED, message: blockers, putBack: s };
}

/** A created Iceberg view: dropped when it carries our marker (ops/views.ts rollbackView). */
async function previewView(r: Reach, rec: TableRecord): Promise<RollbackPreviewTable> {
  const table = rec.tableId;
  const ident = identOf(rec, r.namespacePrefix);
  if (r.catalog.views === undefined || !(await r.catalog.views.viewExists(ident))) return { table, action: 'nothing-registered' };
  if (isOurView(await r.catalog.views.loadView(ident), table)) return { table, action: 'drop' };
  return { table, action: 'not-ours', code: ErrorCode.ROLLBACK_NOT_OURS, message: 'a view this tool did not create for it' };
}

async function previewTable(r: Reach, rec: TableRecord): Promise<RollbackPreviewTable> {
  if (rec.status === 'view-created') return previewView(r, rec);
  const table = rec.tableId;
  const ours = rec.metadataLocation;
  const ident = identOf(rec, r.namespacePrefix);
  if (ours === null || !(await r.catalog.tableExists(ident))) return { table, action: 'nothing-registered' };
  const loaded = await r.catalog.loadTable(ident);
  if (loaded.metadataLocation === ours) return { table, action: 'drop' };
  if (loaded.metadata.metadataLog.some((e) => e.metadataFile === ours)) return descendant(r, rec, ident, loaded.metadataLocation);
  return {
    table,
    action: 'not-ours',
    code: ErrorCode.ROLLBACK_NOT_OURS,
    message: `held by an entry this tool did not register (metadata at ${loaded.metadataLocation}; ours was ${ours})`,
  };
}

/** What `rollback --wave N` would do, table by table (the wave's order reversed, as the rollback runs), changing nothing. */
export async function previewRollback(
  config: MigrateConfig,
  plan: string,
  opts: { wave: number; force: boolean; withDependentViews?: boolean },
  engine: ConversionEngine,
): Promise<RollbackPreview> {
  const state = await openState(config);
  const stores = openStores(config);
  try {
    const planHash = await planWithWave(state, plan, opts.wave);
    const catalog = await openCatalog(config, process.env, stores);
    try {
      const r: Reach = {
        engine,
        catalog,
        store: stores.storeFor([]),
        namespacePrefix: config.catalog?.namespacePrefix ?? '',
        force: opts.force,
      };
      const all = await state.listTables(planHash);
      const recs = all.filter((t) => t.wave === opts.wave && !nothingToRollBack(t)).reverse();
      const first = dependentViews(
        opts.wave,
        recs.map((t) => t.tableId),
        liveViewsAfter(all, opts.wave, new NodeSqlViewParser()),
      );
      const tables: RollbackPreviewTable[] = [];
      for (const v of first) {
        const rec = all.find((t) => t.tableId === v.id)!;
        tables.push(
          opts.withDependentViews === true
            ? await previewTable(r, rec)
            : {
                table: v.id,
                action: 'refused',
                code: ErrorCode.ROLLBACK_ORDER,
                message: `a view of wave ${v.wave} that reads this wave: roll back its wave first, or pass --with-dependent-views`,
              },
        );
      }
      for (const rec of recs) tables.push(await previewTable(r, rec));
      return { dryRun: true, plan: planId(planHash), wave: opts.wave, tables };
    } finally {
      await catalog.close?.();
    }
  } finally {
    stores.close();
    await state.close();
  }
}
