// createActivities(deps): the per-table steps the workflows run (ARCHITECTURE.md flow), each a
// short call into activities/convert + the state store + the audit log. A MigrationError becomes an
// ApplicationFailure whose type is the code and nonRetryable = !retryable. Every step is
// idempotent: it reads the table's record first and does only what is missing, so a retry or a
// worker killed mid-step ends in the same state as one clean run.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AuditAction, AuditEventInput } from '../core/audit/chain';
import { AuditAction as A, digestOf } from '../core/audit/chain';
import type { IcebergCatalog, TableIdent } from '../core/catalog/catalog';
import { formatTableIdent } from '../core/catalog/catalog';
import type { PreparedConversion } from '../core/convert/prepare';
import { ErrorCode, MigrationError } from '../core/errors';
import type { HmsReader, TableInventory } from '../core/hive/model';
import type { PlanFile } from '../core/plan/plan-file';
import { canonicalJson, sha256Hex } from '../core/plan/hash';
import type { ObjectStore } from '../core/storage/object-store';
import type { PostgresStateStore, TableRecord } from '../adapters/state/postgres';
import { originalAsideName } from '../adapters/catalog/hive';
import { deleteOurMetadata } from './convert/convert-table';
import { conversionFor, dbOf, nameOf, targetOf } from './plan-conversion';
import { checkTableDrift } from './validate/drift-check';
import type { ValidationRow } from '../core/validate/drift';
import { runStatus, runSummaryMarkdown } from '../core/validate/drift';
import { writeResults } from '../adapters/results/parquet';
import { validateConversion } from './convert/validate';
import type { WriteOptions } from './convert/write-metadata';
import { writeIcebergMetadata } from './convert/write-metadata';

/**
 * Failpoints for crash tests: `HIM_FAILPOINTS=after-write,after-register,during-validate` makes the
 * worker SIGKILL itself at that point, once per (point, table), remembered as marker files in
 * `HIM_FAILPOINT_DIR`. Unset (always, outside tests): no effect.
 */
export function failpoint(name: string, tableId: string, env: NodeJS.ProcessEnv = process.env): void {
  const points = (env.HIM_FAILPOINTS ?? '').split(',').filter(Boolean);
  const dir = env.HIM_FAILPOINT_DIR;
  if (!points.includes(name) || dir === undefined) return;
  const marker = path.join(dir, `${name}--${tableId}`);
  if (existsSync(marker)) return;
  writeFileSync(marker, `${process.pid}\n`);
  process.kill(process.pid, 'SIGKILL');
}

export interface ActivityDeps {
  readonly state: PostgresStateStore;
  readonly hms: HmsReader;
  readonly catalog: IcebergCatalog;
  /** A store that may delete/overwrite only under `metadataPrefixes` (one per table). */
  readonly storeFor: (metadataPrefixes: readonly string[]) => ObjectStore;
  readonly namespacePrefix: string;
  /** Worker identity for the audit log. */
  readonly actor: string;
  readonly toolVersion: string;
  readonly now?: () => Date;
  readonly write?: WriteOptions;
  /** Where validation runs write their Parquet results and report (config validation.resultsLocation). */
  readonly resultsLocation?: string;
}

export interface TableRef {
  readonly planHash: string;
  readonly tableId: string;
}

export interface PlanOutline {
  readonly planHash: string;
  readonly targetCatalog: string;
  readonly waves: readonly { readonly number: number; readonly tables: number; readonly teams: readonly string[]; readonly files: number; readonly bytes: number; readonly expectedSeconds: number }[];
}

export type TableOutcome =
  | { readonly tableId: string; readonly status: 'migrated' }
  /** Views hold no data: nothing is converted; they are planned only to order what reads them. */
  | { readonly tableId: string; readonly status: 'skipped'; readonly reason: string }
  | { readonly tableId: string; readonly status: 'failed'; readonly code: string; readonly message: string };

/** The table's fingerprint exactly as `migrate plan` computed it (cli/commands/assess.ts). */
export function fingerprintOf(inv: TableInventory): string {
  return sha256Hex(canonicalJson(inv));
}

function toFailure(e: unknown): unknown {
  if (e instanceof MigrationError) {
    return ApplicationFailure.create({ type: e.code, message: e.message, nonRetryable: !e.retryable, details: [JSON.parse(JSON.stringify(e.context, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as unknown], cause: e });
  }
  return e;
}

function wrap<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (e) {
      throw toFailure(e);
    }
  };
}

export function createActivities(deps: ActivityDeps) {
  const now = (): string => (deps.now?.() ?? new Date()).toISOString();
  const plans = new Map<string, PlanFile>();
  const plan = async (h: string): Promise<PlanFile> => {
    let p = plans.get(h);
    if (p === undefined) {
      p = await deps.state.getPlan(h);
      plans.set(h, p);
    }
    return p;
  };
  const event = (action: AuditAction, object: string, planHash: string | null, before: string | null, after: string | null, details: Record<string, unknown> = {}, actor = deps.actor): AuditEventInput =>
    ({ at: now(), actor, action, object, planHash, beforeDigest: before, afterDigest: after, details });
  const ORDER = ['pending', 'original-saved', 'written', 'registered', 'migrated'];
  /** True when the record already shows this step (a retry after the step was recorded). */
  const reached = (rec: TableRecord, status: string): boolean => ORDER.indexOf(rec.status) >= ORDER.indexOf(status);
  const audit = (action: AuditAction, object: string, planHash: string | null, before: string | null, after: string | null, details: Record<string, unknown> = {}, actor = deps.actor): Promise<unknown> =>
    deps.state.appendAudit({ at: now(), actor, action, object, planHash, beforeDigest: before, afterDigest: after, details } satisfies AuditEventInput);
  const target = (tableId: string): TableIdent => targetOf(tableId, deps.namespacePrefix);

  async function prepared(ref: TableRef, rec: TableRecord): Promise<PreparedConversion> {
    if (rec.original === null) throw new MigrationError(ErrorCode.INTERNAL, `${ref.tableId}: no saved original (snapshot step not run)`, { tableId: ref.tableId });
    return conversionFor(await plan(ref.planHash), ref.tableId, rec.original, deps.namespacePrefix, deps.toolVersion);
  }
  const storeOf = (p: PreparedConversion): ObjectStore => deps.storeFor([p.metadataDir]);
  /** For the audit trail: what an in-place conversion did to the Hive table itself. */
  const inPlaceDetails = (ref: TableRef, rec: TableRecord): Record<string, unknown> => {
    if (deps.catalog.inPlace !== true || rec.original === null) return {};
    const partitioned = rec.original.table.partitionKeys.length > 0;
    return { inPlace: true, hiveOriginal: partitioned ? `hms:${dbOf(ref.tableId)}.${originalAsideName(nameOf(ref.tableId))} (made EXTERNAL, renamed, partitions kept)` : `hms:${ref.tableId} (altered into the Iceberg form)` };
  };
  /** The catalog for this table: an in-place catalog learns its saved original (register replaces it, unregister puts it back). */
  const catalogOf = (ref: TableRef, rec: TableRecord): IcebergCatalog =>
    rec.original === null || deps.catalog.withSavedOriginal === undefined ? deps.catalog : deps.catalog.withSavedOriginal(target(ref.tableId), rec.original.table);

  const acts = {
    async planOutline(planHash: string): Promise<PlanOutline> {
      const p = await plan(planHash);
      return {
        planHash,
        targetCatalog: p.targetCatalog,
        waves: p.waves.map((w) => ({
          number: w.number,
          tables: w.tables.length,
          teams: [...new Set(w.tables.map((t) => t.team ?? 'unowned'))].sort(),
          files: w.estimates.files,
          bytes: w.estimates.bytes,
          expectedSeconds: w.estimates.expectedSeconds,
        })),
      };
    },

    async waveTables(planHash: string, wave: number): Promise<string[]> {
      const p = await plan(planHash);
      const w = p.waves.find((x) => x.number === wave);
      if (w === undefined) throw new MigrationError(ErrorCode.USAGE, `plan ${planHash.slice(0, 12)} has no wave ${wave}`, { wave });
      return w.tables.map((t) => t.id);
    },

    async recordApproval(planHash: string, wave: number, by: string): Promise<void> {
      await audit(A.WAVE_APPROVED, `wave:${wave}`, planHash, null, null, { wave }, by);
    },

    /** Step 1: save the HMS object (once) after checking it is what the plan saw. */
    async snapshotOriginal(ref: TableRef): Promise<{ digest: string; view: boolean }> {
      const rec = await deps.state.getTable(ref.planHash, ref.tableId);
      const isView = (i: TableInventory): boolean => i.table.tableType === 'VIRTUAL_VIEW' || i.table.tableType === 'MATERIALIZED_VIEW';
      if (rec.original !== null && rec.originalDigest !== null) return { digest: rec.originalDigest, view: isView(rec.original) };
      const p = await plan(ref.planHash);
      const entry = p.waves.flatMap((w) => w.tables).find((t) => t.id === ref.tableId);
      const [inv] = await deps.hms.getTables(dbOf(ref.tableId), [nameOf(ref.tableId)]);
      if (inv === undefined || entry === undefined) throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `${ref.tableId} not found`, { tableId: ref.tableId });
      const digest = fingerprintOf(inv);
      if (digest !== entry.fingerprint) {
        throw new MigrationError(ErrorCode.SOURCE_CHANGED, `${ref.tableId} changed in HMS since the plan was made (fingerprint ${digest.slice(0, 12)} ≠ planned ${entry.fingerprint.slice(0, 12)}); run migrate plan again`, { tableId: ref.tableId });
      }
      await deps.state.recordStep(ref.planHash, ref.tableId, { status: 'original-saved', original: inv, originalDigest: digest }, event(A.TABLE_ORIGINAL_SAVED, `hms:${ref.tableId}`, ref.planHash, null, digest, { partitions: inv.partitions.length }));
      return { digest, view: isView(inv) };
    },

    /**
     * Steps 1-5 as one activity (one workflow task fewer per table): save the original, then, unless
     * it is a view, write the metadata. Each half is idempotent and recorded on its own, so a retry
     * after a crash in either resumes where the record says.
     */
    async saveOriginalAndWrite(ref: TableRef): Promise<{ view: true } | { view: false; metadataLocation: string; dataFiles: number; records: number }> {
      const snap = await acts.snapshotOriginal(ref);
      if (snap.view) return { view: true };
      return { view: false, ...(await acts.writeMetadata(ref)) };
    },

    async markSkipped(ref: TableRef, reason: string): Promise<void> {
      await deps.state.updateTable(ref.planHash, ref.tableId, { status: 'skipped', errorCode: reason });
    },

    /** Steps 2-5: list, footers, manifests, manifest list, metadata.json (heartbeating progress). */
    async writeMetadata(ref: TableRef): Promise<{ metadataLocation: string; dataFiles: number; records: number }> {
      const rec = await deps.state.getTable(ref.planHash, ref.tableId);
      const p = await prepared(ref, rec);
      const ctx = Context.current();
      const w = await writeIcebergMetadata(storeOf(p), p, { ...deps.write, progressEvery: 200, onProgress: (pr) => ctx.heartbeat(pr) });
      const files = w.files.map((f) => ({ path: f.path, bytes: f.bytes, outcome: f.outcome }));
      const update = { status: 'written' as const, metadataLocation: w.metadataLocation, snapshotId: w.snapshotId?.toString() ?? null, writtenFiles: files, target: `${(await plan(ref.planHash)).targetCatalog}:${formatTableIdent(target(ref.tableId))}` };
      if (reached(rec, 'written')) await deps.state.updateTable(ref.planHash, ref.tableId, { writtenFiles: files });
      else await deps.state.recordStep(ref.planHash, ref.tableId, update, event(A.TABLE_METADATA_WRITTEN, `hms:${ref.tableId}`, ref.planHash, null, digestOf(files), { metadataLocation: w.metadataLocation, dataFiles: w.dataFiles, records: w.records, files: files.length }));
      failpoint('after-write', ref.tableId);
      return { metadataLocation: w.metadataLocation, dataFiles: w.dataFiles, records: w.records };
    },

    /** Step 6: register (assert-create; a retry finds its own entry). */
    async registerTable(ref: TableRef): Promise<{ outcome: string }> {
      const rec = await deps.state.getTable(ref.planHash, ref.tableId);
      const p = await prepared(ref, rec);
      const ident = target(ref.tableId);
      const catalog = catalogOf(ref, rec);
      await catalog.createNamespace(ident.namespace);
      const { outcome } = await catalog.registerTable(ident, p.metadataLocation);
      // Recorded once: by the attempt that registered, or by the retry that found its entry after a crash.
      if (!reached(rec, 'registered')) {
        await deps.state.recordStep(ref.planHash, ref.tableId, { status: 'registered' }, event(A.TABLE_REGISTERED, `${deps.catalog.name}:${formatTableIdent(ident)}`, ref.planHash, null, digestOf(p.metadataLocation), { metadataLocation: p.metadataLocation, outcome, ...inPlaceDetails(ref, rec) }));
      }
      failpoint('after-register', ref.tableId);
      return { outcome };
    },

    /** Step 7: validation decides success; the evidence is stored either way. */
    async validateTable(ref: TableRef): Promise<{ ok: boolean; snapshotId: string | null }> {
      const rec = await deps.state.getTable(ref.planHash, ref.tableId);
      const p = await prepared(ref, rec);
      const original = rec.original as TableInventory;
      const ev = await validateConversion(storeOf(p), deps.catalog, target(ref.tableId), p, original, deps.write);
      failpoint('during-validate', ref.tableId);
      if (!reached(rec, 'migrated')) {
        await deps.state.recordStep(ref.planHash, ref.tableId, { validation: ev, ...(ev.ok ? { status: 'migrated' as const } : {}) }, event(A.TABLE_VALIDATED, `hms:${ref.tableId}`, ref.planHash, null, digestOf(ev), { ok: ev.ok, snapshotId: ev.snapshotId, rows: ev.rows.footers, files: ev.files.listed, findings: ev.findings.length }));
      }
      if (!ev.ok) {
        const first = ev.findings[0];
        throw new MigrationError((first?.code ?? ErrorCode.VALIDATION_FILES_MISMATCH) as ErrorCode, `${ref.tableId}: validation failed: ${ev.findings.map((f) => f.message).slice(0, 3).join('; ')}`, { tableId: ref.tableId }, { retryable: false });
      }
      return { ok: true, snapshotId: ev.snapshotId };
    },

    /**
     * Inverse of step 6: drop our catalog entry (never purging); absent is fine. `not-ours`: a
     * pointer catalog (REST, JDBC) holds the name with metadata this table never registered — its
     * register step failed on exactly that (CATALOG_CONFLICT: an earlier plan migrated the table,
     * or someone created it): nothing of ours to undo, and the entry is left alone.
     */
    async unregisterTable(ref: TableRef): Promise<{ outcome: string }> {
      const rec = await deps.state.getTable(ref.planHash, ref.tableId);
      if (rec.original === null) return { outcome: 'absent' };
      const p = await prepared(ref, rec);
      const ident = target(ref.tableId);
      let outcome: string;
      try {
        ({ outcome } = await catalogOf(ref, rec).unregisterTable(ident, p.metadataLocation));
      } catch (e) {
        const pointerOnly = deps.catalog.withSavedOriginal === undefined; // in place (Hive), undo also restores the original
        if (e instanceof MigrationError && e.code === ErrorCode.CATALOG_CONFLICT && pointerOnly && !reached(rec, 'registered')) return { outcome: 'not-ours' };
        throw e;
      }
      if (outcome === 'unregistered') await audit(A.TABLE_UNREGISTERED, `${deps.catalog.name}:${formatTableIdent(ident)}`, ref.planHash, digestOf(p.metadataLocation), null, { metadataLocation: p.metadataLocation });
      return { outcome };
    },

    /** Inverse of steps 2-5: delete the metadata files we wrote (never data; only under metadata/). */
    async deleteMetadata(ref: TableRef): Promise<{ deleted: number }> {
      const rec = await deps.state.getTable(ref.planHash, ref.tableId);
      if (rec.original === null) return { deleted: 0 };
      const p = await prepared(ref, rec);
      // What we wrote, or (crash before the record was saved) every name this conversion would use.
      const names = rec.writtenFiles ?? [];
      const deleted = await deleteOurMetadata(storeOf(p), p, names);
      if (deleted > 0) await audit(A.TABLE_METADATA_DELETED, `hms:${ref.tableId}`, ref.planHash, digestOf(names), null, { files: deleted });
      return { deleted };
    },

    async markFailed(ref: TableRef, code: string, message: string): Promise<void> {
      const rec = await deps.state.getTable(ref.planHash, ref.tableId);
      if (rec.status === 'failed') return;
      await deps.state.recordStep(ref.planHash, ref.tableId, { status: 'failed', errorCode: code, errorMessage: message.slice(0, 2000) }, event(A.TABLE_FAILED, `hms:${ref.tableId}`, ref.planHash, null, null, { code, message: message.slice(0, 500) }));
    },

    /**
     * Rollback of one migrated table: refuse when the Iceberg table moved on after our commit
     * (unless forced, audited), unregister without purge, delete our metadata, then verify the HMS
     * object still equals the saved original (a register-only catalog never altered it; an
     * in-place one has just put it back).
     */
    async rollbackTable(ref: TableRef, force: boolean, by: string): Promise<{ status: string }> {
      const rec = await deps.state.getTable(ref.planHash, ref.tableId);
      if (rec.status === 'rolled-back' || rec.original === null) return { status: rec.status };
      const p = await prepared(ref, rec);
      const ident = target(ref.tableId);
      const catalog = catalogOf(ref, rec);
      if (await catalog.tableExists(ident)) {
        const loaded = await catalog.loadTable(ident);
        if (loaded.metadataLocation !== p.metadataLocation) {
          if (!force) throw new MigrationError(ErrorCode.ROLLBACK_REFUSED, `${ref.tableId}: ${formatTableIdent(ident)} has commits after ours (now at ${loaded.metadataLocation}); rolling back would lose them. Use --force to drop the entry anyway (audited).`, { tableId: ref.tableId, current: loaded.metadataLocation }, { retryable: false });
          await audit(A.ROLLBACK_FORCED, `${catalog.name}:${formatTableIdent(ident)}`, ref.planHash, digestOf(loaded.metadataLocation), null, { ours: p.metadataLocation, current: loaded.metadataLocation }, by);
          // In place, dropping the entry puts the saved Hive table back under its name.
          await catalog.dropTable(ident);
        } else {
          await catalog.unregisterTable(ident, p.metadataLocation);
        }
        await audit(A.TABLE_UNREGISTERED, `${catalog.name}:${formatTableIdent(ident)}`, ref.planHash, digestOf(p.metadataLocation), null, { metadataLocation: p.metadataLocation }, by);
      } else if (catalog.inPlace === true && (await catalog.unregisterTable(ident, p.metadataLocation)).outcome === 'unregistered') {
        // No entry, yet something to undo: an in-place rollback that crashed after dropping the
        // Iceberg table put the Hive original back now.
        await audit(A.TABLE_UNREGISTERED, `${catalog.name}:${formatTableIdent(ident)}`, ref.planHash, digestOf(p.metadataLocation), null, { metadataLocation: p.metadataLocation, resumed: true }, by);
      }
      const deleted = await deleteOurMetadata(storeOf(p), p, rec.writtenFiles ?? []);
      if (deleted > 0) await audit(A.TABLE_METADATA_DELETED, `hms:${ref.tableId}`, ref.planHash, digestOf(rec.writtenFiles), null, { files: deleted }, by);
      const [now_] = await deps.hms.getTables(dbOf(ref.tableId), [nameOf(ref.tableId)]);
      const digest = now_ === undefined ? null : fingerprintOf(now_);
      if (digest !== rec.originalDigest) {
        throw new MigrationError(ErrorCode.SOURCE_CHANGED, `${ref.tableId}: the HMS object no longer equals the saved original (digest ${String(digest).slice(0, 12)} ≠ ${String(rec.originalDigest).slice(0, 12)})`, { tableId: ref.tableId }, { retryable: false });
      }
      await deps.state.recordStep(ref.planHash, ref.tableId, { status: 'rolled-back' }, event(A.TABLE_ROLLED_BACK, `hms:${ref.tableId}`, ref.planHash, digestOf(p.metadataLocation), rec.originalDigest, { verified: true, metadataFilesDeleted: deleted }, by));
      return { status: 'rolled-back' };
    },

    /** Tables a validation run covers: migrated ones of the plan, optionally limited to waves/tables. */
    async validationScope(planHash: string, waves: readonly number[] = [], tables: readonly string[] = []): Promise<{ tables: string[]; teams: string[] }> {
      const p = await plan(planHash);
      const recs = (await deps.state.listTables(planHash)).filter((t) => t.status === 'migrated' && (waves.length === 0 || waves.includes(t.wave)) && (tables.length === 0 || tables.includes(t.tableId)));
      const team = new Map(p.waves.flatMap((w) => w.tables.map((t) => [t.id, t.team ?? 'unowned'] as const)));
      return { tables: recs.map((r) => r.tableId), teams: [...new Set(recs.map((r) => team.get(r.tableId) ?? 'unowned'))].sort() };
    },

    async startValidationRun(planHash: string, runId: string): Promise<{ previousRunId: string | null }> {
      return deps.state.startValidationRun(runId, planHash);
    },

    /** One table's checks; rows go to the state store (not the history), the counts come back. */
    async checkTable(planHash: string, tableId: string, runId: string): Promise<{ tableId: string; status: 'validated' | 'drifted' | 'failed'; codes: string[] }> {
      const rec = await deps.state.getTable(planHash, tableId);
      const rows = await checkTableDrift({ ...deps, footerConcurrency: deps.write?.footerConcurrency }, await plan(planHash), rec, runId, () => deps.now?.() ?? new Date());
      await deps.state.putValidationRows(runId, tableId, rows);
      return { tableId, status: runStatus(rows), codes: [...new Set(rows.filter((r) => r.status !== 'ok').map((r) => r.code))].sort() };
    },

    /** Results file (Parquet) + Markdown report + audit event for a finished run. */
    async publishValidationRun(planHash: string, runId: string, previousRunId: string | null): Promise<{ status: string; results: string | null; report: string | null; summary: string; rows: number }> {
      const rows = (await deps.state.getValidationRows(runId)) as ValidationRow[];
      const status = runStatus(rows);
      const summary = runSummaryMarkdown(planHash.slice(0, 12), runId, rows, previousRunId);
      let results: string | null = null;
      let report: string | null = null;
      if (deps.resultsLocation !== undefined) {
        const store = deps.storeFor([]);
        results = await writeResults(store, deps.resultsLocation, planHash.slice(0, 12), runId, rows).catch(async (e: unknown) => {
          // A retried publish finds its own file: keep it (same run, same rows).
          if (e instanceof MigrationError && e.code === ErrorCode.STORAGE_PRECONDITION_FAILED) return `${deps.resultsLocation?.replace(/\/+$/, '')}/${planHash.slice(0, 12)}/${runId.replace(/[^A-Za-z0-9._-]/g, '_')}.parquet`;
          throw e;
        });
        report = results.replace(/\.parquet$/, '.md');
        await store.put(report, new TextEncoder().encode(summary), { ifNoneMatch: '*' }).catch((e: unknown) => {
          if (!(e instanceof MigrationError && e.code === ErrorCode.STORAGE_PRECONDITION_FAILED)) throw e;
        });
      }
      await deps.state.finishValidationRun(runId, status, results ?? '');
      await audit(A.VALIDATION_RUN, `plan:${planHash}`, planHash, null, digestOf(rows), { runId, status, rows: rows.length, tables: new Set(rows.map((r) => r.table)).size, results });
      return { status, results, report, summary, rows: rows.length };
    },

    async migratedTables(planHash: string, wave: number): Promise<string[]> {
      return (await deps.state.listTables(planHash, wave)).filter((t) => t.status !== 'pending' && t.status !== 'rolled-back' && t.status !== 'skipped').map((t) => t.tableId);
    },
  };
  return acts;
}

export type Activities = ReturnType<typeof createActivities>;

/** The same functions with MigrationError mapped to ApplicationFailure (what the worker registers). */
export function workerActivities(deps: ActivityDeps): Activities {
  const acts = createActivities(deps);
  return Object.fromEntries(Object.entries(acts).map(([k, fn]) => [k, wrap(fn as (...a: unknown[]) => Promise<unknown>)])) as Activities;
}
