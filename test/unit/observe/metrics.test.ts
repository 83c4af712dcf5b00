// The Prometheus text exposition of core/observe/metrics.ts and the worker's catalogue
// (core/observe/worker-metrics.ts): exact lines, cumulative buckets, escaping, refusals.
import { MetricsRegistry, escapeLabelValue } from '../../../core/observe/metrics';
import { workerMetrics } from '../../../core/observe/worker-metrics';

/** Every sample line as name{labels} → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of text.split('\n')) {
    if (l === '' || l.startsWith('#')) continue;
    const i = l.lastIndexOf(' ');
    out.set(l.slice(0, i), Number(l.slice(i + 1).replace('+Inf', 'Infinity')));
  }
  return out;
}

describe('MetricsRegistry exposition', () => {
  it('writes HELP and TYPE, then each series, counters summed per label set', () => {
    const r = new MetricsRegistry();
    const c = r.counter('him_x_total', 'Things.', ['kind']);
    c.inc({ kind: 'a' });
    c.inc({ kind: 'a' }, 2);
    c.inc({ kind: 'b' });
    expect(r.expose()).toBe('# HELP him_x_total Things.\n# TYPE him_x_total counter\nhim_x_total{kind="a"} 3\nhim_x_total{kind="b"} 1\n');
  });

  it('a histogram writes cumulative buckets, +Inf, _sum and _count', () => {
    const r = new MetricsRegistry();
    const h = r.histogram('him_d_seconds', 'Durations.', ['step'], [1, 0.1, 10]);
    for (const v of [0.05, 0.5, 0.5, 20]) h.observe({ step: 's' }, v);
    const s = samples(r.expose());
    expect(s.get('him_d_seconds_bucket{step="s",le="0.1"}')).toBe(1);
    expect(s.get('him_d_seconds_bucket{step="s",le="1"}')).toBe(3);
    expect(s.get('him_d_seconds_bucket{step="s",le="10"}')).toBe(3);
    expect(s.get('him_d_seconds_bucket{step="s",le="+Inf"}')).toBe(4);
    expect(s.get('him_d_seconds_count{step="s"}')).toBe(4);
    expect(s.get('him_d_seconds_sum{step="s"}')).toBeCloseTo(21.05);
    expect(r.expose()).toContain('# TYPE him_d_seconds histogram\n');
  });

  it('escapes label values (backslash, quote, newline) and help text', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    const r = new MetricsRegistry();
    r.gauge('g', 'line one\nline two', ['v']).set({ v: 'x"y' }, 1.5);
    expect(r.expose()).toBe('# HELP g line one\\nline two\n# TYPE g gauge\ng{v="x\\"y"} 1.5\n');
  });

  it('refuses a bad name, a reserved label, a second registration and a counter going down', () => {
    const r = new MetricsRegistry();
    expect(() => r.counter('bad-name', 'x')).toThrow(TypeError);
    expect(() => r.histogram('h', 'x', ['le'], [1])).toThrow(TypeError);
    r.counter('c', 'x');
    expect(() => r.counter('c', 'x')).toThrow(/registered twice/);
    expect(() => new MetricsRegistry().counter('d', 'x').inc({}, -1)).toThrow(RangeError);
  });
});

describe('workerMetrics', () => {
  it('counts transitions by status and outcome, steps by outcome, failures by code, footers and requests', () => {
    const m = workerMetrics({ role: 'all', version: '0.1.0', startedAt: new Date(1_000_000) });
    const t = { at: new Date(), plan: 'p', wave: 1, table: 'd.t', step: 'validateTable', from: 'registered', durationMs: 5 };
    m.transition({ ...t, to: 'migrated' });
    m.transition({ ...t, to: 'migrated', table: 'd.u' });
    m.transition({ ...t, to: 'failed', code: 'X' });
    m.step('validateTable', 0.3, null);
    m.step('validateTable', 2, 'VALIDATION_ROW_COUNT_MISMATCH');
    m.footers(7);
    m.footers(3);
    m.request('hms', 'getTables', null);
    m.request('storage', 'head', 'STORAGE_NOT_FOUND');
    const s = samples(m.registry.expose());
    expect(s.get('him_tables_total{status="migrated",outcome="ok"}')).toBe(2);
    expect(s.get('him_tables_total{status="failed",outcome="failed"}')).toBe(1);
    expect(s.get('him_step_duration_seconds_count{step="validateTable",outcome="ok"}')).toBe(1);
    expect(s.get('him_step_duration_seconds_bucket{step="validateTable",outcome="failed",le="2.5"}')).toBe(1);
    expect(s.get('him_step_duration_seconds_bucket{step="validateTable",outcome="failed",le="1"}')).toBe(0);
    expect(s.get('him_step_failures_total{step="validateTable",code="VALIDATION_ROW_COUNT_MISMATCH"}')).toBe(1);
    expect(s.get('him_footers_read_total')).toBe(10);
    expect(s.get('him_requests_total{system="hms",op="getTables"}')).toBe(1);
    expect(s.get('him_requests_total{system="storage",op="head"}')).toBe(1);
    expect(s.get('him_request_errors_total{system="storage",op="head",code="STORAGE_NOT_FOUND"}')).toBe(1);
    expect(s.get('him_worker_info{role="all",version="0.1.0"}')).toBe(1);
    expect(s.get('him_worker_start_time_seconds')).toBe(1000);
    expect(s.get('him_steps_in_flight')).toBe(0);
  });
});
