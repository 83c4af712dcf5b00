// The sync workflow's per-table outcomes in Postgres (him_sync_outcomes, created with the rest of
// the schema in schema.ts): written by the recordSyncOutcomes activity, read back page by page by
// `migrate sync` (docs/migrating.md "Keeping migrated tables in sync"). `json`, not `jsonb`: an
// outcome reads back as it was written, keys in their order.
import type pg from 'pg';
import type { SyncOutcomeRow } from '../../core/state/store';

/** Rows read per page when no limit is given. */
export const SYNC_OUTCOME_PAGE = 1_000;

/** Keyed by (workflow id, table): one row per table of a sync, whichever run of it wrote the row. */
export const SYNC_OUTCOMES_SCHEMA = `
CREATE TABLE IF NOT EXISTS him_sync_outcomes (
  workflow_id text NOT NULL,
  table_id text NOT NULL,
  plan_hash text NOT NULL,
  seq int NOT NULL,
  at timestamptz NOT NULL,
  outcome json NOT NULL,
  PRIMARY KEY (workflow_id, table_id)
);`;

/** Inside the schema's DO block: the paging index, created only when missing (schema.ts: no lock on a current schema). */
export const SYNC_OUTCOMES_INDEX = `
  IF to_regclass('him_sync_outcomes_seq') IS NULL THEN
    CREATE INDEX him_sync_outcomes_seq ON him_sync_outcomes (workflow_id, seq);
  END IF;`;

type Queryable = Pick<pg.Pool, 'query'>;

/** One statement for all rows; a row already there (a retried activity) is overwritten with the same values. */
export async function putSyncOutcomes(db: Queryable, workflowId: string, planHash: string, rows: readonly SyncOutcomeRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO him_sync_outcomes (workflow_id, plan_hash, table_id, seq, at, outcome)
     SELECT $1, $2, t, s, a, o FROM unnest($3::text[], $4::int[], $5::timestamptz[], $6::json[]) AS u(t, s, a, o)
     ON CONFLICT (workflow_id, table_id) DO UPDATE SET plan_hash = EXCLUDED.plan_hash, seq = EXCLUDED.seq, at = EXCLUDED.at, outcome = EXCLUDED.outcome`,
    [
      workflowId,
      planHash,
      rows.map((r) => r.tableId),
      rows.map((r) => r.seq),
      rows.map((r) => r.at),
      rows.map((r) => JSON.stringify(r.outcome)),
    ],
  );
}

export async function readSyncOutcomes(
  db: Queryable,
  workflowId: string,
  page: { readonly afterSeq?: number; readonly limit?: number } = {},
): Promise<SyncOutcomeRow[]> {
  const r = await db.query<{ table_id: string; seq: number; at: Date; outcome: unknown }>(
    'SELECT table_id, seq, at, outcome FROM him_sync_outcomes WHERE workflow_id = $1 AND seq > $2 ORDER BY seq, table_id LIMIT $3',
    [workflowId, page.afterSeq ?? -1, page.limit ?? SYNC_OUTCOME_PAGE],
  );
  return r.rows.map((x) => ({ tableId: x.table_id, seq: x.seq, at: x.at.toISOString(), outcome: x.outcome }));
}
