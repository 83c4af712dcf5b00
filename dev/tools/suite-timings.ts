// Per-suite wall times of a jest run (measure before speeding a run up). Reads the JSON jest writes with
// `--json --outputFile=<file>` (dev/test.sh writes it to $HIM_STATE_DIR/jest-results.json) and prints
// a markdown table of the slowest suites with their test counts, the totals and the share of the
// run the slowest take; `--write <title>` puts it into docs/timings.md (newest first, under the
// heading line) instead of printing it. Dev tooling.
// Several files (dev/test.sh's parallel and serial batches) count as one run.
//   npx tsx dev/tools/suite-timings.ts <jest-results.json>... [--top 25] [--write "<title>"]
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

interface SuiteResult {
  readonly name: string;
  readonly startTime: number;
  readonly endTime: number;
  readonly status: string;
  readonly assertionResults: readonly { readonly status: string }[];
}
interface JestJson {
  readonly numTotalTests: number;
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly numTotalTestSuites: number;
  readonly startTime: number;
  readonly testResults: readonly SuiteResult[];
}

export interface SuiteTiming {
  readonly suite: string;
  readonly seconds: number;
  readonly tests: number;
  readonly status: string;
}

/** A suite's path in the repo: relative to `root`, or from its `test/` folder when it ran in another clone. */
function suiteName(file: string, root: string): string {
  const rel = path.relative(root, file);
  if (!rel.startsWith('..')) return rel;
  const i = file.indexOf(`${path.sep}test${path.sep}`);
  return i < 0 ? rel : file.slice(i + 1);
}

/** Every suite's wall time (its end minus its start, as jest recorded them), slowest first. */
export function suiteTimings(j: JestJson, root: string): SuiteTiming[] {
  return j.testResults
    .map((r) => ({
      suite: suiteName(r.name, root),
      seconds: Math.max(0, (r.endTime - r.startTime) / 1000),
      tests: r.assertionResults.length,
      status: r.status,
    }))
    .sort((a, b) => b.seconds - a.seconds || a.suite.localeCompare(b.suite));
}

const fmt = (s: number): string => {
  if (s < 60) return `${s.toFixed(1)} s`;
  const whole = Math.round(s); // 119.6 s is "2 min 0 s", not "1 min 60 s"
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
};

/** The markdown table of the `top` slowest suites and a line of totals. */
export function timingTable(j: JestJson, root: string, top: number): string {
  const all = suiteTimings(j, root);
  const total = all.reduce((n, s) => n + s.seconds, 0);
  const shown = all.slice(0, top);
  const shownTotal = shown.reduce((n, s) => n + s.seconds, 0);
  const rows = shown.map((s, i) => `| ${i + 1} | \`${s.suite}\` | ${fmt(s.seconds)} | ${s.tests} | ${s.status} |`);
  return [
    '| # | suite | wall | tests | status |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `${j.numTotalTestSuites} suites, ${j.numTotalTests} tests (${j.numPassedTests} passed, ${j.numFailedTests} failed); ` +
      `suites' wall summed ${fmt(total)}; the ${shown.length} slowest take ${fmt(shownTotal)} ` +
      `(${total > 0 ? Math.round((100 * shownTotal) / total) : 0} %).`,
  ].join('\n');
}

/** Several jest JSON results (batches of one run) as one. */
export function mergeResults(runs: readonly JestJson[]): JestJson {
  const sum = (k: 'numTotalTests' | 'numPassedTests' | 'numFailedTests' | 'numTotalTestSuites'): number =>
    runs.reduce((n, r) => n + r[k], 0);
  return {
    numTotalTests: sum('numTotalTests'),
    numPassedTests: sum('numPassedTests'),
    numFailedTests: sum('numFailedTests'),
    numTotalTestSuites: sum('numTotalTestSuites'),
    startTime: Math.min(...runs.map((r) => r.startTime)),
    testResults: runs.flatMap((r) => r.testResults),
  };
}

function main(argv: readonly string[]): number {
  const firstOpt = argv.findIndex((a) => a.startsWith('--'));
  const files = argv.slice(0, firstOpt < 0 ? argv.length : firstOpt);
  if (files.length === 0) {
    process.stderr.write('usage: npx tsx dev/tools/suite-timings.ts <jest-results.json>... [--top 25] [--write "<title>"]\n');
    return 2;
  }
  const opt = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i > 0 ? argv[i + 1] : undefined;
  };
  const root = path.resolve(__dirname, '..', '..');
  const runs = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as JestJson);
  const table = timingTable(mergeResults(runs), root, Number(opt('top') ?? '25'));
  const title = opt('write');
  if (title === undefined) {
    process.stdout.write(`${table}\n`);
    return 0;
  }
  const doc = path.join(root, 'docs', 'timings.md');
  const text = readFileSync(doc, 'utf8');
  const at = text.indexOf('\n## ');
  const section = `\n## ${title}\n${table}\n`;
  writeFileSync(doc, at < 0 ? `${text}${section}` : `${text.slice(0, at)}\n${section}${text.slice(at)}`);
  process.stdout.write(`wrote docs/timings.md (${title})\n`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
