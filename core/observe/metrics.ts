// A small metrics registry and its Prometheus text exposition (format 0.0.4): counters, gauges and
// histograms with labels, no dependency. Pure; no I/O (app/worker/metrics-server.ts serves `expose()`).

type Labels = Readonly<Record<string, string>>;

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly labelNames: readonly string[];
}

/** Prometheus's escaping of a label value: backslash, double quote and newline. */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

const escapeHelp = (h: string): string => h.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function labelText(names: readonly string[], values: readonly string[], extra?: readonly [string, string]): string {
  const pairs = names.map((n, i) => `${n}="${escapeLabelValue(values[i] ?? '')}"`);
  if (extra !== undefined) pairs.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

const num = (n: number): string => (n === Infinity ? '+Inf' : n === -Infinity ? '-Inf' : Number.isNaN(n) ? 'NaN' : String(n));

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

abstract class Metric<S> implements Family {
  protected readonly series = new Map<string, { values: string[]; s: S }>();
  abstract readonly type: Family['type'];
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    if (!NAME.test(name)) throw new TypeError(`metric name ${name}`);
    for (const l of labelNames) if (!LABEL.test(l) || l === 'le') throw new TypeError(`label name ${l}`);
  }
  protected at(labels: Labels, fresh: () => S): S {
    const values = this.labelNames.map((n) => labels[n] ?? '');
    const key = JSON.stringify(values);
    let e = this.series.get(key);
    if (e === undefined) {
      e = { values, s: fresh() };
      this.series.set(key, e);
    }
    return e.s;
  }
  abstract samples(): string[];
}

export class Counter extends Metric<{ v: number }> {
  readonly type = 'counter' as const;
  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) throw new RangeError(`${this.name}: a counter only goes up (by ${by})`);
    this.at(labels, () => ({ v: 0 })).v += by;
  }
  get(labels: Labels = {}): number {
    return this.at(labels, () => ({ v: 0 })).v;
  }
  samples(): string[] {
    return [...this.series.values()].map(({ values, s }) => `${this.name}${labelText(this.labelNames, values)} ${num(s.v)}`);
  }
}

export class Gauge extends Metric<{ v: number }> {
  readonly type = 'gauge' as const;
  set(labels: Labels, v: number): void {
    this.at(labels, () => ({ v: 0 })).v = v;
  }
  add(labels: Labels, by: number): void {
    this.at(labels, () => ({ v: 0 })).v += by;
  }
  samples(): string[] {
    return [...this.series.values()].map(({ values, s }) => `${this.name}${labelText(this.labelNames, values)} ${num(s.v)}`);
  }
}

export class Histogram extends Metric<{ counts: number[]; sum: number; count: number }> {
  readonly type = 'histogram' as const;
  readonly buckets: readonly number[];
  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    const sorted = [...new Set(buckets.filter((b) => Number.isFinite(b)))].sort((a, b) => a - b);
    if (sorted.length === 0) throw new TypeError(`${name}: no buckets`);
    this.buckets = sorted;
  }
  observe(labels: Labels, v: number): void {
    const s = this.at(labels, () => ({ counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    this.buckets.forEach((b, i) => {
      if (v <= b) s.counts[i] = (s.counts[i] ?? 0) + 1;
    });
    s.sum += v;
    s.count += 1;
  }
  samples(): string[] {
    const out: string[] = [];
    for (const { values, s } of this.series.values()) {
      this.buckets.forEach((b, i) =>
        out.push(`${this.name}_bucket${labelText(this.labelNames, values, ['le', num(b)])} ${s.counts[i] ?? 0}`),
      );
      out.push(`${this.name}_bucket${labelText(this.labelNames, values, ['le', '+Inf'])} ${s.count}`);
      out.push(`${this.name}_sum${labelText(this.labelNames, values)} ${num(s.sum)}`);
      out.push(`${this.name}_count${labelText(this.labelNames, values)} ${s.count}`);
    }
    return out;
  }
}

/** The metrics of one process, in registration order. */
export class MetricsRegistry {
  private readonly metrics = new Map<string, Counter | Gauge | Histogram>();
  private add<M extends Counter | Gauge | Histogram>(m: M): M {
    if (this.metrics.has(m.name)) throw new TypeError(`metric ${m.name} registered twice`);
    this.metrics.set(m.name, m);
    return m;
  }
  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labelNames));
  }
  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.add(new Gauge(name, help, labelNames));
  }
  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, labelNames, buckets));
  }
  /** The text exposition: `# HELP` and `# TYPE` for every family, then its samples. */
  expose(): string {
    const lines: string[] = [];
    for (const m of this.metrics.values()) {
      lines.push(`# HELP ${m.name} ${escapeHelp(m.help)}`, `# TYPE ${m.name} ${m.type}`, ...m.samples());
    }
    return `${lines.join('\n')}\n`;
  }
}

/** The content type of the text exposition. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
