// What the worker observes, from the composition root and never from workflow code: each step
// (activity) timed by an activity interceptor, each table status change logged and counted once,
// where the state store records it (`observedState`), and the calls through the ports counted.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { isMigrationError } from '../../core/errors';
import type { TableRecord, StateStore, TableUpdate } from '../../core/state/store';
import type { TransitionEvent } from '../../core/observe/log-line';
import { transitionRecord } from '../../core/observe/log-line';
import type { System, WorkerMetrics } from '../../core/observe/worker-metrics';
import type { ConversionEngine } from '../../core/engine-port/conversion-engine';
import type { WorkerLog } from './log';

/** One running step: its activity and, per table, when its previous mark was and where it stood. */
interface StepScope {
  readonly step: string;
  readonly startedMs: number;
  readonly tables: Map<string, { status?: string; wave?: number; markMs: number }>;
}

const scopes = new AsyncLocalStorage<StepScope>();

/** A property of `target`, a method bound to it (a class's private fields need the real `this`). */
function bound(target: object, prop: string | symbol): unknown {
  const v = Reflect.get(target, prop) as unknown;
  return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
}

const errorCode = (e: unknown): string => {
  if (isMigrationError(e)) return e.code;
  const t = (e as { type?: unknown } | null)?.type;
  return typeof t === 'string' ? t : 'OTHER';
};

/** Times every activity (him_step_duration_seconds) and opens the scope the state wrapper reads. */
export function stepInterceptor(metrics: WorkerMetrics, now: () => number = Date.now): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      execute: async (input, next) => {
        const scope: StepScope = { step: ctx.info.activityType, startedMs: now(), tables: new Map() };
        metrics.inFlight(1);
        let code: string | null = null;
        try {
          return await scopes.run(scope, () => next(input));
        } catch (e) {
          code = errorCode(e);
          throw e;
        } finally {
          metrics.inFlight(-1);
          metrics.step(scope.step, (now() - scope.startedMs) / 1000, code);
        }
      },
    },
  });
}

/**
 * The state store with every status change it records reported once (a log line and a count),
 * after the write committed: `recordStep` and `updateTable` with a `status` that differs from the
 * record's. The record's previous status comes from the step's own read of it (`getTable`), else
 * from one read before the write.
 */
export function observedState(inner: StateStore, report: (e: TransitionEvent) => void, now: () => number = Date.now): StateStore {
  const key = (plan: string, table: string): string => `${plan}\u0000${table}`;
  const scopeOf = (): StepScope => scopes.getStore() ?? { step: 'direct', startedMs: now(), tables: new Map() };
  const remember = (scope: StepScope, rec: Pick<TableRecord, 'planHash' | 'tableId' | 'status' | 'wave'>): void => {
    const k = key(rec.planHash, rec.tableId);
    const t = scope.tables.get(k);
    scope.tables.set(k, { status: rec.status, wave: rec.wave, markMs: t?.markMs ?? scope.startedMs });
  };
  const changed = async <R>(plan: string, table: string, u: TableUpdate, write: () => Promise<R>): Promise<R> => {
    if (u.status === undefined) return write();
    const scope = scopeOf();
    const k = key(plan, table);
    if (scope.tables.get(k)?.status === undefined) {
      // A record that cannot be read now reports its previous status as `unknown` (the write decides).
      const rec = await inner.getTable(plan, table).catch(() => ({ planHash: plan, tableId: table, status: 'unknown', wave: -1 }) as const);
      remember(scope, rec as Pick<TableRecord, 'planHash' | 'tableId' | 'status' | 'wave'>);
    }
    const before = scope.tables.get(k) as { status: string; wave: number; markMs: number };
    const r = await write();
    const at = now();
    scope.tables.set(k, { status: u.status, wave: before.wave, markMs: at });
    if (before.status !== u.status)
      report({
        at: new Date(at),
        plan,
        wave: before.wave,
        table,
        step: scope.step,
        from: before.status,
        to: u.status,
        durationMs: at - before.markMs,
        ...(u.status === 'failed' ? { code: u.errorCode ?? null } : {}),
      });
    return r;
  };
  const wrapped: Partial<StateStore> = {
    getTable: async (plan, table) => {
      const rec = await inner.getTable(plan, table);
      const scope = scopes.getStore();
      if (scope !== undefined) remember(scope, rec);
      return rec;
    },
    recordStep: (plan, table, u, e, opts) => changed(plan, table, u, () => inner.recordStep(plan, table, u, e, opts)),
    updateTable: (plan, table, u) => changed(plan, table, u, () => inner.updateTable(plan, table, u)),
  };
  return new Proxy(inner, { get: (target, prop) => (prop in wrapped ? wrapped[prop as keyof StateStore] : bound(target, prop)) });
}

/** A transition's log line and count. */
export function transitionReporter(log: WorkerLog, metrics: WorkerMetrics): (e: TransitionEvent) => void {
  return (e) => {
    metrics.transition(e);
    log.write(transitionRecord(e));
  };
}

/** The same port with each asynchronous call counted (him_requests_total) and each failure by its code; an async iterable counts when it has been read. */
export function countedPort<T extends object>(port: T, system: System, metrics: WorkerMetrics): T {
  return new Proxy(port, {
    get: (target, prop, receiver) => {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string' || prop === 'close') return v;
      return (...args: unknown[]) => {
        let r: unknown;
        try {
          r = (v as (...a: unknown[]) => unknown).apply(target, args);
        } catch (e) {
          metrics.request(system, prop, errorCode(e));
          throw e;
        }
        if (r instanceof Promise)
          return r.then(
            (x) => (metrics.request(system, prop, null), x),
            (e: unknown) => {
              metrics.request(system, prop, errorCode(e));
              throw e;
            },
          );
        if (r !== null && typeof r === 'object' && Symbol.asyncIterator in r)
          return countedIterable(r as AsyncIterable<unknown>, system, prop, metrics);
        // A synchronous answer (a local path, a name) is no request.
        return r;
      };
    },
  });
}

async function* countedIterable<E>(it: AsyncIterable<E>, system: System, op: string, metrics: WorkerMetrics): AsyncGenerator<E> {
  try {
    yield* it;
  } catch (e) {
    metrics.request(system, op, errorCode(e));
    throw e;
  }
  metrics.request(system, op, null);
}

/** The engine with the footers its metadata writes read counted as they go (from its progress reports). */
export function observedEngine(engine: ConversionEngine, metrics: WorkerMetrics): ConversionEngine {
  const writeIcebergMetadata: ConversionEngine['writeIcebergMetadata'] = (store, p, opts) => {
    let seen = 0;
    return engine.writeIcebergMetadata(store, p, {
      ...opts,
      onProgress: (pr) => {
        if (pr.footersRead > seen) metrics.footers(pr.footersRead - seen);
        seen = Math.max(seen, pr.footersRead);
        opts?.onProgress?.(pr);
      },
    });
  };
  return new Proxy(engine, { get: (target, prop) => (prop === 'writeIcebergMetadata' ? writeIcebergMetadata : bound(target, prop)) });
}
