// The per-suite timing table (dev/tools/suite-timings.ts) from a jest JSON result.
import { mergeResults, suiteTimings, timingTable } from '../../../dev/tools/suite-timings';

const suite = (name: string, start: number, end: number, tests: number, status = 'passed') => ({
  name: `/repo/${name}`,
  startTime: start,
  endTime: end,
  status,
  assertionResults: Array.from({ length: tests }, () => ({ status })),
});
const run = {
  numTotalTests: 6,
  numPassedTests: 5,
  numFailedTests: 1,
  numTotalTestSuites: 3,
  startTime: 0,
  testResults: [
    suite('test/a.test.ts', 0, 1500, 2),
    suite('test/b.test.ts', 1500, 91_500, 3, 'failed'),
    suite('test/c.test.ts', 91_500, 101_500, 1),
  ],
};

describe('suite timings', () => {
  it('orders suites by wall time, relative to the repo, with their test counts', () => {
    expect(suiteTimings(run, '/repo')).toEqual([
      { suite: 'test/b.test.ts', seconds: 90, tests: 3, status: 'failed' },
      { suite: 'test/c.test.ts', seconds: 10, tests: 1, status: 'passed' },
      { suite: 'test/a.test.ts', seconds: 1.5, tests: 2, status: 'passed' },
    ]);
  });

  it('a run from another clone is named from its test/ folder', () => {
    const other = {
      ...run,
      testResults: [suite('test/a.test.ts', 0, 1000, 1)].map((r) => ({ ...r, name: `/elsewhere/clone${r.name.slice(5)}` })),
    };
    expect(suiteTimings(other, '/repo').map((s) => s.suite)).toEqual(['test/a.test.ts']);
  });

  it('the table shows the top N and what share of the summed wall they take', () => {
    const t = timingTable(run, '/repo', 2);
    expect(t).toContain('| 1 | `test/b.test.ts` | 1 min 30 s | 3 | failed |');
    expect(t).toContain('| 2 | `test/c.test.ts` | 10.0 s | 1 | passed |');
    expect(t).not.toContain('test/a.test.ts');
    expect(t).toContain("3 suites, 6 tests (5 passed, 1 failed); suites' wall summed 1 min 42 s; the 2 slowest take 1 min 40 s (99 %).");
  });

  it('a wall just under a whole minute rounds up to it (2 min 0 s, not 1 min 60 s)', () => {
    const t = timingTable({ ...run, testResults: [suite('test/d.test.ts', 0, 119_600, 1)] }, '/repo', 1);
    expect(t).toContain('| 1 | `test/d.test.ts` | 2 min 0 s | 1 | passed |');
  });

  it('two batches of one run (parallel, then serial) count as one run', () => {
    const serial = { ...run, numTotalTests: 1, numPassedTests: 1, numFailedTests: 0, numTotalTestSuites: 1, startTime: 200_000 };
    const both = mergeResults([run, { ...serial, testResults: [suite('test/d.test.ts', 200_000, 230_000, 1)] }]);
    expect([both.numTotalTestSuites, both.numTotalTests, both.numPassedTests, both.numFailedTests, both.startTime]).toEqual([
      4, 7, 6, 1, 0,
    ]);
    expect(suiteTimings(both, '/repo').map((s) => s.suite)).toEqual([
      'test/b.test.ts',
      'test/d.test.ts',
      'test/c.test.ts',
      'test/a.test.ts',
    ]);
  });
});
