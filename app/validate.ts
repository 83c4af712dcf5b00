// `validate` on demand, in this process: the nightly drift checks (the engine port's checkTableDrift)
// over the migrated tables of a plan, scoped by wave and table; with `validation.readBack` configured,
// also the read-back proof (the port's proveReadBack) of the migrated tables in scope, one Spark job per
// `tablesPerJob` tables, as one `read-back` row per table. Reports only: nothing is rolled back here.
import { rewriteFactsOf } from '../ops/rewrite';
import { parseTableIdent } from '../core/catalog/catalog';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError } from '../core/errors';
import { planId } from '../core/plan/ids';
import type { TableRecord } from '../core/state/store';
import type { ValidationRow } from '../core/validate/drift';
import { readBackRow } from '../core/validate/readback-spec';
import { targetOf } from '../core/convert/plan-conversion';
import { mapOrdered } from '../core/ordered-pool';
import type { ConversionEngine } from '../core/engine-port/conversion-engine';
import type { PlanTables } from './runtime/plan-tables';
import { withMigratedTables } from './runtime/plan-tables';
import { rewriteDepsOf } from './runtime/rewrite-config';
import { toolVersion } from './runtime/runtime';

export interface ValidateScope {
  readonly waves: readonly number[];
  readonly tables: readonly string[];
  readonly concurrency: number;
}

/** The read-back rows of the metadata-only tables in scope (rewritten tables and views have no metadata of ours to prove). */
async function readBackRows(config: MigrateConfig, t: PlanTables, runId: string, engine: ConversionEngine): Promise<ValidationRow[]> {
  const rb = config.validation?.readBack;
  if (rb === undefined) return [];
  const r = rewriteDepsOf(config);
  if (r === undefined)
    throw new MigrationError(
      ErrorCode.CONFIG_INVALID,
      'validation.readBack needs the rewrite section’s spark-submit command line (rewrite.command)',
    );
  const prefix = config.catalog?.namespacePrefix ?? '';
  const deps = { catalog: t.catalog, storeFor: t.stores.storeFor, namespacePrefix: prefix, toolVersion: toolVersion() };
  const recs = t.records.filter(
    (x) => x.metadataLocation !== null && rewriteFactsOf(x) === null && x.original?.table.tableType !== 'VIRTUAL_VIEW',
  );
  const rows: ValidationRow[] = [];
  const team = new Map(t.plan.waves.flatMap((w) => w.tables.map((e) => [e.id, e.team ?? 'unowned'] as const)));
  const rowOf = (rec: TableRecord) => ({
    plan: planId(t.planHash),
    wave: rec.wave,
    team: team.get(rec.tableId) ?? 'unowned',
    table: rec.tableId,
    runId,
    snapshotId: rec.snapshotId ?? '',
  });
  for (let i = 0; i < recs.length; i += rb.tablesPerJob) {
    const batch = recs.slice(i, i + rb.tablesPerJob);
    const identOf = (rec: TableRecord) =>
      rec.target === null ? targetOf(rec.tableId, prefix) : parseTableIdent(rec.target.slice(rec.target.indexOf(':') + 1));
    const targets = batch.map((rec) => ({ rec, ident: identOf(rec) }));
    const job = { command: r.command, env: r.env, workDir: r.workDir, timeoutMs: r.timeoutMinutes * 60_000 };
    const found = await engine.proveReadBack(deps, t.plan, targets, {
      filesPerTable: rb.filesPerTable,
      catalogProperties: r.catalogProperties,
      job,
    });
    for (const rec of batch) {
      const e = found.get(rec.tableId) ?? { skipped: 'no evidence' };
      rows.push({ ...rowOf(rec), ...readBackRow(e), time: new Date().toISOString() });
    }
  }
  return rows;
}

/** Every check's row for the migrated tables of `plan` in scope; none in scope is a USAGE error. */
export async function validateNow(
  config: MigrateConfig,
  plan: string,
  scope: ValidateScope,
  engine: ConversionEngine,
): Promise<ValidationRow[]> {
  const inScope = (t: { wave: number; tableId: string }): boolean =>
    (scope.waves.length === 0 || scope.waves.includes(t.wave)) && (scope.tables.length === 0 || scope.tables.includes(t.tableId));
  return withMigratedTables(config, plan, inScope, async (t) => {
    const { hms, catalog, stores, planHash, plan: p, records } = t;
    const runId = `${planId(planHash)}-cli-${Date.now()}`;
    const rows: ValidationRow[] = [];
    const deps = {
      hms,
      catalog,
      storeFor: stores.storeFor,
      namespacePrefix: config.catalog?.namespacePrefix ?? '',
      toolVersion: toolVersion(),
    };
    for await (const r of mapOrdered(records, scope.concurrency, (rec) => engine.checkTableDrift(deps, p, rec, runId, () => new Date())))
      rows.push(...r);
    rows.push(...(await readBackRows(config, t, runId, engine)));
    return rows;
  });
}
