// The state store (docs/architecture.md "Plans travel by reference", "Originals are saved before
// mutation"): plans, per-table migration records and the append-only, hash-chained audit log, in
// Postgres. The audit table refuses UPDATE, DELETE and TRUNCATE (triggers); appends are serialised
// with an advisory lock so the chain has no forks, keyed when a chain key is given, and each new
// head is anchored outside the database when an anchor is given (docs/audit.md). Every failure is
// a coded MigrationError.
import pg from 'pg';
import type { AuditAnchor } from '../../core/audit/anchor';
import type { AuditEvent, AuditEventInput } from '../../core/audit/chain';
import type { ChainKey } from '../../core/audit/keyed';
import { selfAndAncestors } from '../../core/assess/shared-locations';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { PlanFile } from '../../core/plan/plan-file';
import type {
  LocationClaim,
  StateStore,
  StoredPlan,
  SyncOutcomeRow,
  TableRecord,
  TableStatus,
  TableSummary,
  TableUpdate,
} from '../../core/state/store';
import { appendChained, eventByKey, headEvent, rowToEvent } from './audit-append';
import { refused, SESSION_LIMITS, unreachable } from './pg-errors';
import { COLUMNS, JSON_COLUMNS, rowToRecord, rowToSummary, SCHEMA, SUMMARY_COLUMNS } from './schema';
import { putSyncOutcomes, readSyncOutcomes } from './sync-outcomes';

// The record types are the port's (core/state/store.ts); re-exported for the adapter's callers.
export type { TableRecord, TableStatus, TableUpdate };

export interface StateStoreOptions {
  readonly max?: number;
  /** Where each new chain head is anchored (written after the event commits). */
  readonly anchor?: AuditAnchor;
  /** The chain key: new events are HMAC-SHA256 (format 2, alg hmac-sha256). */
  readonly key?: ChainKey;
  /**
   * Called when an anchor could not be written. The event is committed by then, so the append
   * does not fail (a retry would record it twice); the next anchor covers it, `audit verify`
   * reports events newer than the newest anchor.
   */
  readonly onAnchorError?: (e: unknown, seq: number) => void;
}

export class PostgresStateStore implements StateStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly opts: StateStoreOptions,
  ) {}

  static async open(url: string, opts: StateStoreOptions = {}): Promise<PostgresStateStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.max ?? 4,
      connectionTimeoutMillis: 10_000,
      query_timeout: 60_000,
      ...SESSION_LIMITS,
    });
    pool.on('error', () => undefined);
    const s = new PostgresStateStore(pool, opts);
    try {
      await pool.query(SCHEMA);
    } catch (e) {
      await pool.end().catch(() => undefined);
      opts.anchor?.close?.();
      throw refused(e, url) ?? unreachable(e);
    }
    return s;
  }

  /** The anchor this store writes (for `audit verify`), if any. */
  get anchor(): AuditAnchor | undefined {
    return this.opts.anchor;
  }

  async close(): Promise<void> {
    this.opts.anchor?.close?.();
    await this.pool.end();
  }

  private async q<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<T>> {
    try {
      return await this.pool.query<T>(sql, params);
    } catch (e) {
      throw unreachable(e);
    }
  }

  /** Store the plan and one pending record per table; a plan already stored is kept as it was. */
  async submitPlan(plan: PlanFile): Promise<{ created: boolean }> {
    const client = await this.pool.connect().catch((e: unknown) => Promise.reject(unreachable(e)));
    try {
      await client.query('BEGIN');
      const ins = await client.query('INSERT INTO him_plans (plan_hash, plan) VALUES ($1, $2) ON CONFLICT (plan_hash) DO NOTHING', [
        plan.hash,
        JSON.stringify(plan),
      ]);
      for (const w of plan.waves) {
        for (const t of w.tables) {
          await client.query(
            "INSERT INTO him_tables (plan_hash, table_id, wave, status) VALUES ($1, $2, $3, 'pending') ON CONFLICT DO NOTHING",
            [plan.hash, t.id, w.number],
          );
        }
      }
      await client.query('COMMIT');
      return { created: (ins.rowCount ?? 0) > 0 };
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw unreachable(e);
    } finally {
      client.release();
    }
  }

  async getPlan(planHash: string): Promise<PlanFile> {
    const r = await this.q<{ plan: PlanFile }>('SELECT plan FROM him_plans WHERE plan_hash = $1', [planHash]);
    const row = r.rows[0];
    if (row === undefined)
      throw new MigrationError(ErrorCode.PLAN_INVALID, `plan ${planHash} was never submitted (run migrate apply with its plan file)`, {
        planHash,
      });
    return row.plan;
  }

  /** Resolve a unique prefix of a plan hash (users type the first 12 characters). */
  async resolvePlan(prefix: string): Promise<string> {
    const r = await this.q<{ plan_hash: string }>('SELECT plan_hash FROM him_plans WHERE plan_hash LIKE $1 ORDER BY plan_hash LIMIT 2', [
      `${prefix.replace(/[%_]/g, '')}%`,
    ]);
    if (r.rows.length === 0) throw new MigrationError(ErrorCode.PLAN_INVALID, `no submitted plan starts with '${prefix}'`, { prefix });
    if (r.rows.length > 1)
      throw new MigrationError(ErrorCode.USAGE, `'${prefix}' matches more than one plan; give more characters`, { prefix });
    return (r.rows[0] as { plan_hash: string }).plan_hash;
  }

  async listPlans(): Promise<StoredPlan[]> {
    const r = await this.q(
      `SELECT p.plan_hash, p.plan->>'createdAt' AS created_at, p.submitted_at, jsonb_array_length(p.plan->'waves') AS waves,
              COALESCE((SELECT jsonb_object_agg(s.status, s.n) FROM (SELECT status, count(*)::int AS n FROM him_tables t
                        WHERE t.plan_hash = p.plan_hash GROUP BY status) s), '{}'::jsonb) AS statuses
         FROM him_plans p ORDER BY p.submitted_at DESC, p.plan_hash`,
    );
    return r.rows.map((row: Record<string, unknown>) => {
      const statuses = row.statuses as Record<string, number>;
      return {
        planHash: row.plan_hash as string,
        createdAt: row.created_at as string,
        submittedAt: (row.submitted_at as Date).toISOString(),
        waves: row.waves as number,
        tables: Object.values(statuses).reduce((n, c) => n + c, 0),
        statuses,
      };
    });
  }

  async getTable(planHash: string, tableId: string): Promise<TableRecord> {
    const r = await this.q('SELECT * FROM him_tables WHERE plan_hash = $1 AND table_id = $2', [planHash, tableId]);
    const row = r.rows[0];
    if (row === undefined)
      throw new MigrationError(ErrorCode.PLAN_UNKNOWN_TABLE, `${tableId} is not in plan ${planHash.slice(0, 12)}`, { planHash, tableId });
    return rowToRecord(row);
  }

  async listTables(planHash: string, wave?: number): Promise<TableRecord[]> {
    const r =
      wave === undefined
        ? await this.q('SELECT * FROM him_tables WHERE plan_hash = $1 ORDER BY wave, table_id', [planHash])
        : await this.q('SELECT * FROM him_tables WHERE plan_hash = $1 AND wave = $2 ORDER BY table_id', [planHash, wave]);
    return r.rows.map(rowToRecord);
  }

  async listTableSummaries(planHash: string): Promise<TableSummary[]> {
    const r = await this.q(`SELECT ${SUMMARY_COLUMNS} FROM him_tables WHERE plan_hash = $1 ORDER BY wave, table_id`, [planHash]);
    return r.rows.map(rowToSummary);
  }

  /**
   * Other tables (any plan) whose location equals, contains or lies inside `locationKey` and that
   * hold something of this tool's (a saved original onwards, or a failed undo): two tables sharing
   * a location must never be converted (LOCATION_SHARED). The same table in another plan is not
   * "another table" (its register step reports CATALOG_CONFLICT).
   */
  async tablesSharingLocation(locationKey: string, self: { planHash: string; tableId: string }): Promise<LocationClaim[]> {
    // Each arm is a range or equality on the location_key index (text_pattern_ops compares bytes):
    // inside = the keys from `key/` up to `key0` ('0' is the byte after '/'); containing = the key's
    // ancestors, listed here. A "starts_with(key, location_key || '/')" arm instead scanned every
    // record of every plan once per table applied.
    const r = await this.q(
      `SELECT plan_hash, table_id, status FROM him_tables
        WHERE table_id <> $2
          AND (location_key = $1 OR (location_key ~>=~ ($1 || '/') AND location_key ~<~ ($1 || '0')) OR location_key = ANY($3::text[]))
          AND (status IN ('original-saved', 'written', 'registered', 'migrated', 'fenced', 'cutover') OR (status = 'failed' AND error_code = 'COMPENSATION_INCOMPLETE'))
        ORDER BY table_id LIMIT 10`,
      [locationKey, self.tableId, selfAndAncestors(locationKey).slice(1)],
    );
    return r.rows.map((x: Record<string, unknown>) => ({
      planHash: x.plan_hash as string,
      tableId: x.table_id as string,
      status: x.status as string,
    }));
  }

  async updateTable(planHash: string, tableId: string, u: TableUpdate): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [planHash, tableId];
    for (const [k, v] of Object.entries(u) as [keyof TableUpdate, unknown][]) {
      if (v === undefined) continue;
      params.push(JSON_COLUMNS.has(k) && v !== null ? JSON.stringify(v) : v);
      sets.push(`${COLUMNS[k]} = $${params.length}`);
    }
    if (sets.length === 0) return;
    const r = await this.q(`UPDATE him_tables SET ${sets.join(', ')}, updated_at = now() WHERE plan_hash = $1 AND table_id = $2`, params);
    if (r.rowCount === 0)
      throw new MigrationError(ErrorCode.PLAN_UNKNOWN_TABLE, `${tableId} is not in plan ${planHash.slice(0, 12)}`, { planHash, tableId });
  }

  /** Register a validation run (idempotent); returns the previous run of the same plan, if any. */
  async startValidationRun(runId: string, planHash: string): Promise<{ previousRunId: string | null }> {
    await this.q('INSERT INTO him_validation_runs (run_id, plan_hash) VALUES ($1, $2) ON CONFLICT (run_id) DO NOTHING', [runId, planHash]);
    const r = await this.q<{ run_id: string }>(
      'SELECT run_id FROM him_validation_runs WHERE plan_hash = $1 AND run_id <> $2 AND started_at <= (SELECT started_at FROM him_validation_runs WHERE run_id = $2) ORDER BY started_at DESC LIMIT 1',
      [planHash, runId],
    );
    return { previousRunId: r.rows[0]?.run_id ?? null };
  }

  /** One table's result rows for a run (a retried check replaces its rows). */
  async putValidationRows(runId: string, tableId: string, rows: readonly unknown[]): Promise<void> {
    await this.q(
      'INSERT INTO him_validation_rows (run_id, table_id, rows) VALUES ($1, $2, $3) ON CONFLICT (run_id, table_id) DO UPDATE SET rows = EXCLUDED.rows',
      [runId, tableId, JSON.stringify(rows)],
    );
  }

  async getValidationRows(runId: string): Promise<unknown[]> {
    const r = await this.q<{ rows: unknown[] }>('SELECT rows FROM him_validation_rows WHERE run_id = $1 ORDER BY table_id', [runId]);
    return r.rows.flatMap((x) => x.rows);
  }

  async finishValidationRun(runId: string, status: string, resultsLocation: string): Promise<void> {
    await this.q('UPDATE him_validation_runs SET finished_at = now(), status = $2, results_location = $3 WHERE run_id = $1', [
      runId,
      status,
      resultsLocation,
    ]);
  }

  /** A sync workflow's finished outcomes (sync-outcomes.ts): idempotent per (workflow id, table). */
  async putSyncOutcomes(workflowId: string, planHash: string, rows: readonly SyncOutcomeRow[]): Promise<void> {
    await putSyncOutcomes(this.pool, workflowId, planHash, rows).catch((x: unknown) => Promise.reject(unreachable(x)));
  }

  async readSyncOutcomes(workflowId: string, page?: { readonly afterSeq?: number; readonly limit?: number }): Promise<SyncOutcomeRow[]> {
    return readSyncOutcomes(this.pool, workflowId, page).catch((x: unknown) => Promise.reject(unreachable(x)));
  }

  /** Append one event to the chain (serialised: one writer at a time). */
  appendAudit(e: AuditEventInput): Promise<AuditEvent> {
    return this.record(null, e);
  }

  /**
   * A table's state change and its audit event in one transaction: both or neither, so a crash can
   * never leave a recorded mutation without its event (or an event twice after a retry). With
   * `run`, only while that workflow run owns the record (else TABLE_RUN_FENCED, nothing recorded).
   */
  async recordStep(
    planHash: string,
    tableId: string,
    u: TableUpdate,
    e: AuditEventInput,
    opts: { run?: string; snapshotId?: string | null } = {},
  ): Promise<AuditEvent> {
    return this.record({ planHash, tableId, u, run: opts.run, snapshotId: opts.snapshotId }, e);
  }

  private async record(
    step: { planHash: string; tableId: string; u: TableUpdate; run?: string; snapshotId?: string | null } | null,
    e: AuditEventInput,
  ): Promise<AuditEvent> {
    const client = await this.pool.connect().catch((x: unknown) => Promise.reject(unreachable(x)));
    try {
      // Recorded by an earlier attempt of this step: its event back, the record left as it is now
      // (checked again under the append lock, which decides; this only spares a stale attempt its fences).
      const prior = await eventByKey(client, e.idempotencyKey);
      if (prior !== null) return prior;
      await client.query('BEGIN');
      if (step !== null) {
        const sets: string[] = [];
        const params: unknown[] = [step.planHash, step.tableId];
        for (const [k, v] of Object.entries(step.u) as [keyof TableUpdate, unknown][]) {
          if (v === undefined) continue;
          params.push(JSON_COLUMNS.has(k) && v !== null ? JSON.stringify(v) : v);
          sets.push(`${COLUMNS[k]} = $${params.length}`);
        }
        let fence = '';
        if (step.run !== undefined) {
          params.push(step.run);
          fence = ` AND owner_run IS NOT DISTINCT FROM $${params.length}`;
        }
        if (step.snapshotId !== undefined) {
          params.push(step.snapshotId);
          fence += ` AND ${COLUMNS.snapshotId} IS NOT DISTINCT FROM $${params.length}`;
        }
        const r =
          sets.length > 0
            ? await client.query(
                `UPDATE him_tables SET ${sets.join(', ')}, updated_at = now() WHERE plan_hash = $1 AND table_id = $2${fence}`,
                params,
              )
            : null;
        if (r !== null && step.run !== undefined && r.rowCount === 0) {
          await client.query('ROLLBACK');
          throw new MigrationError(
            ErrorCode.TABLE_RUN_FENCED,
            `${step.tableId}: this step belongs to workflow run ${step.run}, which no longer owns the table's record (the table ended, or another run took it over); nothing recorded`,
            { tableId: step.tableId, run: step.run },
            { retryable: false },
          );
        }
        if (r !== null && step.snapshotId !== undefined && r.rowCount === 0) {
          await client.query('ROLLBACK');
          throw new MigrationError(
            ErrorCode.SYNC_RECORD_MOVED,
            `${step.tableId}: the table's record is no longer at snapshot ${String(step.snapshotId)} (another attempt of this sync recorded first); nothing recorded`,
            { tableId: step.tableId, snapshotId: step.snapshotId },
            { retryable: false },
          );
        }
      }
      const { event: ev, existing } = await appendChained(client, e, this.opts.key);
      if (existing) {
        // An earlier attempt of this step recorded it (its key is in the chain): nothing more, its event back.
        await client.query('ROLLBACK');
        return ev;
      }
      await client.query('COMMIT');
      await this.anchorHead(ev);
      return ev;
    } catch (x) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw unreachable(x);
    } finally {
      client.release();
    }
  }

  /** After commit, outside the append lock: anchors are per-seq objects, so their order does not matter. */
  private async anchorHead(ev: AuditEvent): Promise<void> {
    const anchor = this.opts.anchor;
    if (anchor === undefined) return;
    try {
      await anchor.write({ seq: ev.seq, hash: ev.hash, prevHash: ev.prevHash, at: ev.at });
    } catch (x) {
      this.opts.onAnchorError?.(x, ev.seq);
    }
  }

  /** The chain's newest event, or null when it is empty (the worker's start-up key check). */
  async auditHead(): Promise<AuditEvent | null> {
    return headEvent(this.pool).catch((x: unknown) => Promise.reject(unreachable(x)));
  }

  /** The whole chain in seq order (paged, so it streams for long logs). A missing audit table is AUDIT_ANCHOR_MISMATCH. */
  async *readAudit(pageSize = 5_000): AsyncGenerator<AuditEvent> {
    let after = 0;
    for (;;) {
      const r = await this.q('SELECT * FROM him_audit WHERE seq > $1 ORDER BY seq LIMIT $2', [after, pageSize]).catch(
        (x: MigrationError) => {
          // 42P01 undefined_table: dropped while this store was open (opening creates it again, empty).
          if (x.context.pgCode !== '42P01') throw x;
          throw new MigrationError(
            ErrorCode.AUDIT_ANCHOR_MISMATCH,
            'the audit table him_audit does not exist: it was dropped',
            { pgCode: '42P01' },
            { cause: x },
          );
        },
      );
      for (const row of r.rows) {
        yield rowToEvent(row);
        after = Number(row.seq);
      }
      if (r.rows.length < pageSize) return;
    }
  }
}
