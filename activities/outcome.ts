// How a table of a wave ended, as its table workflow or a batch of apply returns it to the wave.

export type TableOutcome =
  | { readonly tableId: string; readonly status: 'migrated' }
  /** Views hold no data: nothing is converted; they are planned only to order what reads them. */
  | { readonly tableId: string; readonly status: 'skipped'; readonly reason: string }
  /** `ended`: the table ended without its failure recorded (its workflow was terminated or timed out, or the record could not be written): the wave records it. */
  | { readonly tableId: string; readonly status: 'failed'; readonly code: string; readonly message: string; readonly ended?: boolean };

/**
 * One table of an apply batch (activities/apply-batch.ts): its outcome, or `handoff` — it goes on
 * alone in its own table workflow, which resumes from its record (a view or a rewrite-path table,
 * whose steps are the table workflow's; or a transient failure, so Temporal's retries apply to that
 * table alone; nothing was undone) — or `not-started`: the wave was cancelled before the batch
 * reached it, and nothing was written for it.
 */
export type BatchTableOutcome =
  | TableOutcome
  | {
      readonly tableId: string;
      readonly status: 'handoff';
      readonly reason: 'view' | 'rewrite' | 'retry';
      readonly code?: string;
      readonly message?: string;
    }
  | { readonly tableId: string; readonly status: 'not-started' };
