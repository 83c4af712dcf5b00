// The state store's tables in Postgres (created idempotently under an advisory lock, upgraded in
// place) and the mapping between a table record and its row.
import type { TableInventory } from '../../core/hive/model';
import type { TableRecord, TableStatus, TableSummary, TableUpdate } from '../../core/state/store';
import type { SyncMark } from '../../core/sync/lag';
import { SYNC_OUTCOMES_INDEX, SYNC_OUTCOMES_SCHEMA } from './sync-outcomes';

/**
 * Every change below is guarded by a catalog check, so opening a current schema takes no lock on a
 * him_* table: ALTER TABLE … IF NOT EXISTS and CREATE INDEX IF NOT EXISTS lock the table even when
 * there is nothing to do, and a process stalled mid-transaction holding a row of him_tables made
 * every later open wait (a worker's start-up failed with "Query read timeout" in CI).
 *
 * Held while the schema is created: CREATE TABLE IF NOT EXISTS is not safe against itself in
 * Postgres (two processes opening a fresh state database at once — apply and a worker — fail with
 * 23505 on pg_type_typname_nsp_index). The schema text runs as one simple query, i.e. one implicit
 * transaction, so the xact lock covers every statement in it.
 */
const SCHEMA_LOCK = 0x68696d73; // 'hims'

export const SCHEMA = `
SELECT pg_advisory_xact_lock(${SCHEMA_LOCK});
CREATE TABLE IF NOT EXISTS him_plans (
  plan_hash text PRIMARY KEY,
  plan jsonb NOT NULL,
  submitted_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS him_tables (
  plan_hash text NOT NULL REFERENCES him_plans(plan_hash),
  table_id text NOT NULL,
  wave int NOT NULL,
  status text NOT NULL,
  original jsonb,
  original_digest text,
  target text,
  metadata_location text,
  snapshot_id text,
  written_files jsonb,
  validation jsonb,
  error_code text,
  error_message text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (plan_hash, table_id)
);
CREATE TABLE IF NOT EXISTS him_audit (
  seq bigint PRIMARY KEY,
  at timestamptz NOT NULL,
  actor text NOT NULL,
  action text NOT NULL,
  object text NOT NULL,
  plan_hash text,
  before_digest text,
  after_digest text,
  details jsonb NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS him_validation_runs (
  run_id text PRIMARY KEY,
  plan_hash text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  status text,
  results_location text
);
CREATE TABLE IF NOT EXISTS him_validation_rows (
  run_id text NOT NULL,
  table_id text NOT NULL,
  rows jsonb NOT NULL,
  PRIMARY KEY (run_id, table_id)
);${SYNC_OUTCOMES_SCHEMA}
CREATE OR REPLACE FUNCTION him_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'him_audit is append-only'; END $$;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'him_audit_no_change') THEN
    CREATE TRIGGER him_audit_no_change BEFORE UPDATE OR DELETE ON him_audit FOR EACH ROW EXECUTE FUNCTION him_audit_append_only();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'him_audit_no_truncate' AND tgrelid = 'him_audit'::regclass) THEN
    CREATE TRIGGER him_audit_no_truncate BEFORE TRUNCATE ON him_audit FOR EACH STATEMENT EXECUTE FUNCTION him_audit_append_only();
  END IF;
  -- Apply's location claims (ops/table.ts): the comparable key of a table's location.
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'him_tables' AND column_name = 'location_key') THEN
    ALTER TABLE him_tables ADD COLUMN location_key text;
  END IF;
  -- The table workflow run that owns the record's forward steps (ops/table.ts).
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'him_tables' AND column_name = 'owner_run') THEN
    ALTER TABLE him_tables ADD COLUMN owner_run text;
  END IF;
  -- The last sync's mark (core/sync/lag.ts SyncMark), shown by migrate status.
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'him_tables' AND column_name = 'sync') THEN
    ALTER TABLE him_tables ADD COLUMN sync jsonb;
  END IF;
  IF to_regclass('him_tables_location_key') IS NULL THEN
    CREATE INDEX him_tables_location_key ON him_tables (location_key text_pattern_ops);
  END IF;
  -- Event format 2 (core/audit/chain.ts): rows written before it keep v = 1 and verify as before.
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'him_audit' AND column_name = 'v') THEN
    ALTER TABLE him_audit ADD COLUMN v smallint NOT NULL DEFAULT 1, ADD COLUMN actor_source text,
      ADD COLUMN alg text NOT NULL DEFAULT 'sha256', ADD COLUMN key_id text;
  END IF;
  -- Idempotent appends (docs/audit.md): one event per step key; older rows have none (NULLs never collide).
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'him_audit' AND column_name = 'idempotency_key') THEN
    ALTER TABLE him_audit ADD COLUMN idempotency_key text;
  END IF;
  IF to_regclass('him_audit_idempotency_key') IS NULL THEN
    CREATE UNIQUE INDEX him_audit_idempotency_key ON him_audit (idempotency_key);
  END IF;
  -- The sync workflow's outcomes, paged by workflow id (sync-outcomes.ts).${SYNC_OUTCOMES_INDEX}
END $$;
`;

export const COLUMNS: Record<keyof TableUpdate, string> = {
  status: 'status',
  original: 'original',
  originalDigest: 'original_digest',
  target: 'target',
  metadataLocation: 'metadata_location',
  snapshotId: 'snapshot_id',
  writtenFiles: 'written_files',
  validation: 'validation',
  errorCode: 'error_code',
  errorMessage: 'error_message',
  locationKey: 'location_key',
  ownerRun: 'owner_run',
  sync: 'sync',
};
export const JSON_COLUMNS = new Set(['original', 'writtenFiles', 'validation', 'sync']);

export function rowToRecord(r: Record<string, unknown>): TableRecord {
  return {
    planHash: r.plan_hash as string,
    tableId: r.table_id as string,
    wave: r.wave as number,
    status: r.status as TableStatus,
    original: (r.original as TableInventory | null) ?? null,
    originalDigest: (r.original_digest as string | null) ?? null,
    target: (r.target as string | null) ?? null,
    metadataLocation: (r.metadata_location as string | null) ?? null,
    snapshotId: (r.snapshot_id as string | null) ?? null,
    writtenFiles: (r.written_files as TableRecord['writtenFiles']) ?? null,
    validation: r.validation ?? null,
    errorCode: (r.error_code as string | null) ?? null,
    errorMessage: (r.error_message as string | null) ?? null,
    locationKey: (r.location_key as string | null) ?? null,
    ownerRun: (r.owner_run as string | null) ?? null,
    sync: (r.sync as SyncMark | null) ?? null,
  };
}

/** The columns of a TableSummary (listTableSummaries). */
export const SUMMARY_COLUMNS =
  'plan_hash, table_id, wave, status, snapshot_id, error_code, error_message, sync, target, metadata_location, updated_at';

export function rowToSummary(r: Record<string, unknown>): TableSummary {
  return {
    planHash: r.plan_hash as string,
    tableId: r.table_id as string,
    wave: r.wave as number,
    status: r.status as TableStatus,
    snapshotId: (r.snapshot_id as string | null) ?? null,
    errorCode: (r.error_code as string | null) ?? null,
    errorMessage: (r.error_message as string | null) ?? null,
    sync: (r.sync as SyncMark | null) ?? null,
    target: (r.target as string | null) ?? null,
    metadataLocation: (r.metadata_location as string | null) ?? null,
    ...(r.updated_at instanceof Date ? { updatedAt: r.updated_at.toISOString() } : {}),
  };
}
