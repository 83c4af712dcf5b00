// The rewrite job's modules (jobs/rewrite_checksum.py, jobs/rewrite_read.py) in a real local Spark,
// through the stack's spark-submit command line (the verifier component): rewrite_job_check.py runs
// them and prints the job's answers beside the references.
// - content checksum: equals canonical.py's checksum over the same rows as pyarrow gives them (the
//   verifiers' way) for a table of specials (NULLs, unicode, control characters, 2^53+ integers,
//   NaN/±Infinity/-0.0, decimals, dates, timestamps with and without zone, binary, nested structs,
//   lists, maps), with duplicates, over 7 input partitions, sorted in many tiny range partitions and
//   streamed in tiny chunks; one row; no rows; one row 5,000 times (all in one sort partition).
// - canonical lines in Spark SQL (flat tables): the same lines as the Python path, line for line,
//   over every control character, quotes and backslashes before "u00..", astral unicode, U+2028,
//   integers at and past ±(2^53-1), dates from year 1, odd column names.
// - text reader: Spark's text source + header anti-join gives the same rows as the earlier per-row
//   Python reader (Hadoop's TextInputFormat keyed by offset), and the rows Hive would give.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../helpers/cli';
import { stackRewriteCommand } from '../../helpers/rewrite';
import { testStack } from '../../helpers/stack-env';

type Sum = { rows: number; checksum: string };
interface Out {
  specials: { job: Sum; reference: Sum };
  one: { job: Sum; reference: Sum };
  empty: { job: Sum; reference: Sum };
  skew: { job: Sum; reference: Sum };
  sample: { specials: Sum; one: Sum; empty: Sum; skew: Sum };
  flat: {
    native: Sum;
    python: Sum;
    reference: Sum;
    nativePlanned: boolean;
    specialsNative: boolean;
    linesEqual: boolean;
    differ: [string, string][];
  };
  text: { native: Record<string, unknown>[]; pickled: Record<string, unknown>[] };
  text0: Record<string, unknown>[];
}

let out: Out;
let scratch = '';

beforeAll(async () => {
  const env = { ...process.env, ...testStack() };
  // Its own spark-submit (not the run's shared driver): the job modules proven in a JVM of their own.
  const c = stackRewriteCommand(env, { shared: false });
  scratch = mkdtempSync(path.join(os.tmpdir(), 'him-rewrite-job-'));
  const [bin, ...args] = c.command;
  const script = path.join(ROOT, 'test', 'integration', 'rewrite', 'rewrite_job_check.py');
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      bin as string,
      [...args, script, path.join(ROOT, 'jobs'), scratch],
      { env: { ...env, ...c.env }, maxBuffer: 64 << 20, timeout: 1_500_000 },
      (err, so, se) => (err ? reject(new Error(`${err.message}\n${se.slice(-4000)}`)) : resolve(so)),
    );
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (line === undefined) throw new Error(`no RESULT line in:\n${stdout.slice(-2000)}`);
  out = JSON.parse(line.slice('RESULT '.length)) as Out;
}, 1_600_000);

afterAll(() => {
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

describe('the rewrite job content checksum (jobs/rewrite_checksum.py)', () => {
  it('equals canonical.py over a table of specials with duplicates, sorted in many range partitions', () => {
    expect(out.specials.reference.rows).toBe(490);
    expect(out.specials.job).toEqual(out.specials.reference);
    expect(out.specials.job.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('equals canonical.py for one row, no rows, and one row repeated 5,000 times', () => {
    expect(out.one.job).toEqual(out.one.reference);
    expect(out.one.job.rows).toBe(1);
    expect(out.empty.job).toEqual({ rows: 0, checksum: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' });
    expect(out.empty.reference).toEqual(out.empty.job);
    expect(out.skew.job).toEqual(out.skew.reference);
    expect(out.skew.job.rows).toBe(5000);
  });

  it('the read-back job’s small-sample path (jobs/readback.py sample_checksum) gives the same rows and checksums', () => {
    expect(out.sample).toEqual({ specials: out.specials.job, one: out.one.job, empty: out.empty.job, skew: out.skew.job });
  });
});

describe('the rewrite job canonical lines in Spark SQL (flat tables)', () => {
  it('are taken for integer/string/boolean/date columns only', () => {
    expect(out.flat.nativePlanned).toBe(true);
    expect(out.flat.specialsNative).toBe(false); // doubles, decimals, timestamps, binary, nested: Python
  });

  it('equal the Python lines line for line (controls, escapes, astral unicode, ±2^53 edges, year 1 dates)', () => {
    expect(out.flat.differ).toEqual([]);
    expect(out.flat.linesEqual).toBe(true);
    expect(out.flat.reference.rows).toBe(240);
    expect(out.flat.native).toEqual(out.flat.reference);
    expect(out.flat.python).toEqual(out.flat.reference);
  });
});

describe('the rewrite job text reader (jobs/rewrite_read.py)', () => {
  it('drops exactly each file header line, keeps a later line equal to it, reads sub-directories, skips _files', () => {
    expect(out.text.native).toEqual([
      { id: 1, name: 'one', n: 10 },
      { id: 2, name: '', n: null },
      { id: 3, name: 'three', n: null },
      { id: 4, name: 'four', n: 40 },
      { id: 5, name: 'fünf', n: null },
      { id: 6, name: 'six', n: 60 },
      { id: null, name: 'name', n: null }, // "id|name|n" further down a.txt is data
      { id: null, name: null, n: null }, // the empty line
    ]);
    expect(out.text.pickled).toEqual(out.text.native);
  });

  it('reads a table without a header, the delimiter given as a byte number, no quoting', () => {
    expect(out.text0).toEqual([
      { id: 7, name: 'seven', n: 70 },
      { id: 8, name: 'eight|x', n: null },
    ]);
  });
});
