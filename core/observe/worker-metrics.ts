// The metrics a `migrate worker` serves (docs/deploying.md "Metrics" lists them): their names,
// labels and buckets in one place, and how a table transition counts. Pure; no I/O.
import type { TransitionEvent } from './log-line';
import { outcomeOf } from './log-line';
import { MetricsRegistry } from './metrics';

/** Seconds; a step is a Temporal activity (a footer-heavy write takes minutes, a record milliseconds). */
export const STEP_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/** The outside systems whose requests the worker counts at their ports. */
export type System = 'hms' | 'catalog' | 'storage' | 'state';

export interface WorkerMetrics {
  readonly registry: MetricsRegistry;
  /** A table's status transition as recorded: one count by the status it entered and its outcome. */
  transition(e: TransitionEvent): void;
  /** One activity execution (a step) ended, ok or failed with `code`. */
  step(activity: string, seconds: number, code: string | null): void;
  /** Activities running now (+1 at start, -1 at the end). */
  inFlight(by: number): void;
  footers(n: number): void;
  /** One call to a port; `code` when it failed (a MigrationError's code, else OTHER). */
  request(system: System, op: string, code: string | null): void;
}

export function workerMetrics(o: { readonly role: string; readonly version: string; readonly startedAt: Date }): WorkerMetrics {
  const r = new MetricsRegistry();
  const info = r.gauge('him_worker_info', 'This worker process: 1, labelled with its role and version.', ['role', 'version']);
  r.gauge('him_worker_start_time_seconds', 'Unix time the worker started.').set({}, o.startedAt.getTime() / 1000);
  const tables = r.counter(
    'him_tables_total',
    'Table status transitions recorded by this worker, by the status entered and outcome (ok, failed).',
    ['status', 'outcome'],
  );
  const steps = r.histogram(
    'him_step_duration_seconds',
    'Wall time of each step (Temporal activity) this worker ran, by activity and outcome.',
    ['step', 'outcome'],
    STEP_BUCKETS,
  );
  const stepFailures = r.counter('him_step_failures_total', 'Steps (activity attempts) that failed, by activity and error code.', [
    'step',
    'code',
  ]);
  const running = r.gauge('him_steps_in_flight', 'Steps (activities) running on this worker now.');
  const footers = r.counter('him_footers_read_total', 'Data file footers read while writing Iceberg metadata.');
  const requests = r.counter(
    'him_requests_total',
    'Calls through the ports to HMS, the catalog, storage (S3 or local) and the state store, by system and operation.',
    ['system', 'op'],
  );
  const errors = r.counter('him_request_errors_total', 'Failed calls through those ports, by system, operation and error code.', [
    'system',
    'op',
    'code',
  ]);
  info.set({ role: o.role, version: o.version }, 1);
  running.set({}, 0);
  return {
    registry: r,
    transition: (e) => tables.inc({ status: e.to, outcome: outcomeOf(e.to) }),
    step: (activity, seconds, code) => {
      steps.observe({ step: activity, outcome: code === null ? 'ok' : 'failed' }, seconds);
      if (code !== null) stepFailures.inc({ step: activity, code });
    },
    inFlight: (by) => running.add({}, by),
    footers: (n) => footers.inc({}, n),
    request: (system, op, code) => {
      requests.inc({ system, op });
      if (code !== null) errors.inc({ system, op, code });
    },
  };
}
