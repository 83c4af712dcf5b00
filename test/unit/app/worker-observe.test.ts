// app/worker/observe.ts over in-memory fakes: one report per status change recorded (from the
// step's own read, or one read of its own), none for bookkeeping or a repeated status, the step's
// name and duration from the activity interceptor; ports counted with their error codes; footers
// counted from the engine's progress.
import type { ActivityExecuteInput } from '@temporalio/worker';
import type { Context } from '@temporalio/activity';
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { TransitionEvent } from '../../../core/observe/log-line';
import { workerMetrics } from '../../../core/observe/worker-metrics';
import type { StateStore, TableRecord, TableStatus } from '../../../core/state/store';
import type { ConversionEngine } from '../../../core/engine-port/conversion-engine';
import { countedPort, observedEngine, observedState, stepInterceptor } from '../../../app/worker/observe';

/** A state store holding status and wave per table; counts its reads. */
function fakeState(initial: Record<string, TableStatus>): { store: StateStore; reads: () => number } {
  const status = new Map(Object.entries(initial));
  let reads = 0;
  const rec = (planHash: string, tableId: string): TableRecord => {
    const s = status.get(tableId);
    if (s === undefined) throw new MigrationError(ErrorCode.PLAN_UNKNOWN_TABLE, tableId);
    return { planHash, tableId, wave: 3, status: s } as TableRecord;
  };
  const store = {
    getTable: async (p: string, t: string) => (reads++, rec(p, t)),
    recordStep: async (_p: string, t: string, u: { status?: TableStatus }) => {
      if (u.status !== undefined) status.set(t, u.status);
      return {} as never;
    },
    updateTable: async (_p: string, t: string, u: { status?: TableStatus }) => {
      if (u.status !== undefined) status.set(t, u.status);
    },
    anchor: undefined,
  } as unknown as StateStore;
  return { store, reads: () => reads };
}

const metrics = () => workerMetrics({ role: 'all', version: 'test', startedAt: new Date(0) });
const ev = () =>
  ({ at: '', actor: 'a', action: 'x', object: 'o', planHash: 'p', beforeDigest: null, afterDigest: null, details: {} }) as never;

/** Run `body` as activity `type` through the interceptor, on a clock the test moves. */
async function asActivity<R>(m: ReturnType<typeof metrics>, clock: { t: number }, type: string, body: () => Promise<R>): Promise<R> {
  const factory = stepInterceptor(m, () => clock.t);
  const inbound = factory({ info: { activityType: type } } as unknown as Context).inbound;
  const input = { args: [], headers: {} } as ActivityExecuteInput;
  return inbound?.execute?.(input, () => body()) as Promise<R>;
}

describe('observedState', () => {
  it('reports each status change once, with the step, the previous status read by the step, its wave and the time since the step began', async () => {
    const { store, reads } = fakeState({ 'd.t': 'written' });
    const got: TransitionEvent[] = [];
    const clock = { t: 1000 };
    const state = observedState(
      store,
      (e) => got.push(e),
      () => clock.t,
    );
    const m = metrics();
    await asActivity(m, clock, 'registerTable', async () => {
      await state.getTable('p', 'd.t');
      clock.t += 250;
      await state.recordStep('p', 'd.t', { status: 'registered' }, ev());
      clock.t += 100;
      // Bookkeeping (no status) and the same status again are not transitions.
      await state.updateTable('p', 'd.t', { writtenFiles: [] });
      await state.recordStep('p', 'd.t', { status: 'registered' }, ev());
    });
    expect(reads()).toBe(1);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      plan: 'p',
      table: 'd.t',
      wave: 3,
      step: 'registerTable',
      from: 'written',
      to: 'registered',
      durationMs: 250,
    });
    expect(m.registry.expose()).toContain('him_step_duration_seconds_count{step="registerTable",outcome="ok"} 1');
  });

  it('two transitions in one step: the second measured from the first; a step that never read the record reads it once', async () => {
    const { store, reads } = fakeState({ 'd.t': 'pending' });
    const got: TransitionEvent[] = [];
    const clock = { t: 0 };
    const state = observedState(
      store,
      (e) => got.push(e),
      () => clock.t,
    );
    await asActivity(metrics(), clock, 'saveOriginalAndWrite', async () => {
      clock.t = 30;
      await state.recordStep('p', 'd.t', { status: 'original-saved' }, ev());
      clock.t = 530;
      await state.recordStep('p', 'd.t', { status: 'written' }, ev());
    });
    expect(reads()).toBe(1);
    expect(got.map((e) => [e.from, e.to, e.durationMs])).toEqual([
      ['pending', 'original-saved', 30],
      ['original-saved', 'written', 500],
    ]);
  });

  it("a table ending failed carries the recorded code; updateTable's status (skipped) is a transition too", async () => {
    const { store } = fakeState({ 'd.t': 'registered', 'd.v': 'pending' });
    const got: TransitionEvent[] = [];
    const state = observedState(store, (e) => got.push(e));
    await state.recordStep('p', 'd.t', { status: 'failed', errorCode: 'VALIDATION_ROW_COUNT_MISMATCH' }, ev());
    await state.updateTable('p', 'd.v', { status: 'skipped', errorCode: 'VIEW' });
    expect(got.map((e) => [e.table, e.step, e.from, e.to, e.code])).toEqual([
      ['d.t', 'direct', 'registered', 'failed', 'VALIDATION_ROW_COUNT_MISMATCH'],
      ['d.v', 'direct', 'pending', 'skipped', undefined],
    ]);
  });

  it('a write that fails reports nothing', async () => {
    const { store } = fakeState({ 'd.t': 'written' });
    const failing = {
      ...store,
      getTable: store.getTable,
      recordStep: () => Promise.reject(new MigrationError(ErrorCode.TABLE_RUN_FENCED, 'fenced')),
    } as StateStore;
    const got: TransitionEvent[] = [];
    const state = observedState(failing, (e) => got.push(e));
    await expect(state.recordStep('p', 'd.t', { status: 'registered' }, ev())).rejects.toThrow('fenced');
    expect(got).toEqual([]);
  });
});

describe('stepInterceptor', () => {
  it('a failed step counts under outcome failed with its code', async () => {
    const m = metrics();
    const clock = { t: 0 };
    await expect(
      asActivity(m, clock, 'validateTable', async () => {
        clock.t = 3000;
        throw new MigrationError(ErrorCode.VALIDATION_ROW_COUNT_MISMATCH, 'rows');
      }),
    ).rejects.toThrow('rows');
    const text = m.registry.expose();
    expect(text).toContain('him_step_duration_seconds_bucket{step="validateTable",outcome="failed",le="5"} 1');
    expect(text).toContain('him_step_duration_seconds_bucket{step="validateTable",outcome="failed",le="2.5"} 0');
    expect(text).toContain('him_step_failures_total{step="validateTable",code="VALIDATION_ROW_COUNT_MISMATCH"} 1');
    expect(text).toContain('him_steps_in_flight 0');
  });
});

describe('countedPort', () => {
  it('counts calls, promise failures by code, and an async iterable when read', async () => {
    const m = metrics();
    const port = {
      ok: async () => 1,
      bad: async () => {
        throw new MigrationError(ErrorCode.HMS_TIMEOUT, 't');
      },
      async *list() {
        yield 1;
        throw new Error('x');
      },
      close: async () => undefined,
      localFile: (p: string) => `/data/${p}`,
      name: 'n',
    };
    const c = countedPort(port, 'hms', m);
    expect(await c.ok()).toBe(1);
    await expect(c.bad()).rejects.toThrow('t');
    await expect(
      (async () => {
        for await (const _ of c.list()) void _;
      })(),
    ).rejects.toThrow('x');
    await c.close();
    expect(c.localFile('x')).toBe('/data/x');
    expect(c.name).toBe('n');
    const text = m.registry.expose();
    expect(text).toContain('him_requests_total{system="hms",op="ok"} 1');
    expect(text).toContain('him_requests_total{system="hms",op="bad"} 1');
    expect(text).toContain('him_request_errors_total{system="hms",op="bad",code="HMS_TIMEOUT"} 1');
    expect(text).toContain('him_request_errors_total{system="hms",op="list",code="OTHER"} 1');
    expect(text).not.toContain('op="close"');
    expect(text).not.toContain('op="localFile"');
  });
});

describe('observedEngine', () => {
  it("counts the footers from the engine's progress reports and still calls the caller's", async () => {
    const m = metrics();
    const seen: number[] = [];
    const engine = {
      writeIcebergMetadata: async (_s: unknown, _p: unknown, o?: { onProgress?: (p: { footersRead: number }) => void }) => {
        for (const f of [200, 400, 437]) o?.onProgress?.({ footersRead: f });
        return { dataFiles: 437 };
      },
    } as unknown as ConversionEngine;
    await observedEngine(engine, m).writeIcebergMetadata({} as never, {} as never, { onProgress: (p) => seen.push(p.footersRead) });
    expect(seen).toEqual([200, 400, 437]);
    expect(m.registry.expose()).toContain('him_footers_read_total 437');
  });
});
