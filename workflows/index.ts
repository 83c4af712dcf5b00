// Deterministic orchestration only (docs/architecture.md): the workflow functions the worker registers
// and the names clients use. migrationWorkflow (plan.ts) runs a plan's waves in order behind an
// approval gate; waveWorkflow (wave.ts) runs its tables as child tableWorkflows (table.ts) in a
// sliding window (window.ts); rollbackWaveWorkflow (rollback.ts) undoes one wave;
// nightlyValidationWorkflow (nightly.ts) checks migrated tables for drift; syncWorkflow (sync.ts)
// commits catch-up snapshots for migrated tables whose Hive side moved on; cutoverWorkflow
// (cutover.ts) fences a wave's Hive tables and makes Iceberg their source. Plans travel by
// reference (hash); no credentials ever enter a payload.
export type { Timeouts } from './common';
export { SA, planId, planWorkflowId, waveWorkflowId, tableWorkflowId, rollbackWorkflowId, cutoverWorkflowId } from './common';
export type { TableInput } from './table';
export { tableWorkflow } from './table';
export type { WaveInput, WaveResult } from './wave-run';
export { waveWorkflow, waveStatusQuery } from './wave';
export type { ApproveResult, MigrationInput, MigrationStatus } from './plan';
export { approveUpdate, cancelSignal, migrationWorkflow, pauseSignal, resumeSignal, statusQuery } from './plan';
export type { RollbackCarry, RollbackInput, RollbackResult } from './rollback';
export { ROLLBACK_CONTINUE_AS_NEW_PATCH, ROLLBACK_TABLES_PER_RUN, rollbackWaveWorkflow } from './rollback';
export type { NotListed, PutBackEntry, Refusal, RollbackTally } from './rollback-tally';
export type { NightlyInput, NightlyResult } from './nightly';
export { nightlyValidationWorkflow, nightlyStatusQuery } from './nightly';
export type { SyncCarry, SyncInput, SyncRunResult } from './sync';
export type { SyncCounts, SyncOutcomesRef, SyncTally } from './sync-book';
export { DEFAULT_TABLES_PER_RUN, SYNC_CONTINUE_AS_NEW_PATCH, syncStatusQuery, syncWorkflow } from './sync';
export type { CutoverInput, CutoverResult, TableCutover } from './cutover';
export { cutoverStatusQuery, cutoverWorkflow } from './cutover';
export type { SyncStatus, SyncTableProgress } from './sync-book';
