// The worker's log lines (core/observe/log-line.ts): a transition's fields and order, one line per
// record in both formats, levels, and metadata that cannot replace the record's own fields.
import { formatLine, levelEnabled, levelOfSdk, messageRecord, transitionRecord, TRANSITION_MSG } from '../../../core/observe/log-line';
import type { TransitionEvent } from '../../../core/observe/log-line';

const at = new Date('2026-12-06T10:00:00.123Z');
const ev: TransitionEvent = {
  at,
  plan: 'a1b2c3d4e5f6a1b2',
  wave: 2,
  table: 'sales.orders',
  step: 'registerTable',
  from: 'written',
  to: 'registered',
  durationMs: 41.6,
};

describe('transitionRecord', () => {
  it('carries ts, level, msg, plan, wave, table, step, from, to, durationMs and outcome, in that order, and no code when not failed', () => {
    const line = formatLine(transitionRecord(ev), 'json');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['ts', 'level', 'msg', 'plan', 'wave', 'table', 'step', 'from', 'to', 'durationMs', 'outcome']);
    expect(parsed).toEqual({
      ts: '2026-12-06T10:00:00.123Z',
      level: 'info',
      msg: TRANSITION_MSG,
      plan: 'a1b2c3d4e5f6a1b2',
      wave: 2,
      table: 'sales.orders',
      step: 'registerTable',
      from: 'written',
      to: 'registered',
      durationMs: 42,
      outcome: 'ok',
    });
  });

  it('a table that ends failed is an error line with outcome failed and its code', () => {
    const r = transitionRecord({ ...ev, step: 'markFailed', from: 'registered', to: 'failed', code: 'VALIDATION_ROW_COUNT_MISMATCH' });
    expect(r).toMatchObject({ level: 'error', outcome: 'failed', code: 'VALIDATION_ROW_COUNT_MISMATCH', from: 'registered', to: 'failed' });
    expect(transitionRecord({ ...ev, to: 'failed', code: null })).not.toHaveProperty('code');
  });

  it('never reports a negative duration (clock steps)', () => {
    expect(transitionRecord({ ...ev, durationMs: -5 }).durationMs).toBe(0);
  });
});

describe('formatLine', () => {
  it('text: one line `ts LEVEL msg key=value …`, a multi-line message folded onto it', () => {
    const line = formatLine(
      messageRecord(at, 'warn', 'Activity failed\n    at x (y.ts:1)', { attempt: 2, activityType: 'registerTable' }),
      'text',
    );
    expect(line).toBe('2026-12-06T10:00:00.123Z WARN Activity failed |     at x (y.ts:1) attempt=2 activityType=registerTable\n');
  });

  it('json: bigints as strings and Errors as name, message and code', () => {
    const err = Object.assign(new Error('boom'), { code: 'ECONNRESET' });
    const r = JSON.parse(formatLine(messageRecord(at, 'error', 'x', { n: 10n, error: err }), 'json')) as Record<string, unknown>;
    expect(r.n).toBe('10');
    expect(r.error).toEqual({ name: 'Error', message: 'boom', code: 'ECONNRESET' });
    // A Temporal ApplicationFailure carries our error code as its `type`.
    const failure = Object.assign(new Error('changed'), { name: 'ApplicationFailure', type: 'SOURCE_CHANGED' });
    expect(
      (JSON.parse(formatLine(messageRecord(at, 'warn', 'Activity failed', { error: failure }), 'json')) as { error: unknown }).error,
    ).toEqual({
      name: 'ApplicationFailure',
      message: 'changed',
      code: 'SOURCE_CHANGED',
    });
  });

  it('metadata cannot replace ts, level or msg', () => {
    const r = messageRecord(at, 'info', 'real', { ts: 'fake', level: 'error', msg: 'fake', other: 1 });
    expect(r).toEqual({ ts: at.toISOString(), level: 'info', msg: 'real', other: 1 });
  });
});

describe('levels', () => {
  it('a logger at warn passes warn and error only', () => {
    expect((['trace', 'debug', 'info', 'warn', 'error'] as const).filter((l) => levelEnabled('warn', l))).toEqual(['warn', 'error']);
    expect(levelEnabled('trace', 'trace')).toBe(true);
  });

  it("the SDK's level names map onto ours", () => {
    expect(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'].map(levelOfSdk)).toEqual(['trace', 'debug', 'info', 'warn', 'error']);
    expect(levelOfSdk('NOTICE')).toBe('info');
  });
});
