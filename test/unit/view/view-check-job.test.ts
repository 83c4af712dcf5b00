// engine/view-check-job.ts over the rewrite job's process runner, with node standing in for
// spark-submit: the command gets `<job> --spec F --result F`, the spec file holds the spec, progress
// lines reach onEvent, the result file comes back; a job that exits without a result is VIEW_CHECK_FAILED.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../core/errors';
import type { ViewCheckSpec } from '../../../core/view/check-spec';
import { runViewCheckJob, viewCheckJobPath } from '../../../engine/view-check-job';

const spec = {
  version: 1,
  jobId: 'j1',
  view: { namespace: 'ice_lb', name: 'v' },
  hiveSql: 'SELECT 1',
  columns: ['x'],
  inputs: [],
  catalog: { name: 'lake', properties: {} },
} as ViewCheckSpec;

describe('runViewCheckJob', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'him-vcj-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the job with the spec and returns its result; progress lines reach onEvent', async () => {
    const job = path.join(dir, 'job.js');
    writeFileSync(
      job,
      `const fs = require('fs'); const a = process.argv; const spec = JSON.parse(fs.readFileSync(a[a.indexOf('--spec') + 1], 'utf8'));
       console.log(JSON.stringify({ event: 'started', view: spec.view.name }));
       fs.writeFileSync(a[a.indexOf('--result') + 1], JSON.stringify({ status: 'checked', iceberg: { rows: 1, checksum: 'c' }, hive: { rows: 1, checksum: 'c' }, equal: true }));`,
    );
    const events: Record<string, unknown>[] = [];
    const r = await runViewCheckJob(spec, 'lb.v', {
      command: [process.execPath],
      env: {},
      workDir: dir,
      timeoutMs: 60_000,
      job,
      onEvent: (e) => events.push(e),
    });
    expect(r).toMatchObject({ status: 'checked', equal: true, hive: { rows: 1, checksum: 'c' } });
    expect(events).toEqual([{ event: 'started', view: 'v' }]);
    expect(JSON.parse(readFileSync(path.join(dir, 'j1.spec.json'), 'utf8'))).toEqual(spec);
  });

  it('a job that exits without a result is VIEW_CHECK_FAILED naming its log', async () => {
    const job = path.join(dir, 'fail.js');
    writeFileSync(job, 'process.exit(3)');
    await expect(
      runViewCheckJob(spec, 'lb.v', { command: [process.execPath], env: {}, workDir: dir, timeoutMs: 60_000, job }),
    ).rejects.toMatchObject({
      code: ErrorCode.VIEW_CHECK_FAILED,
      message: expect.stringMatching(/^lb\.v: view check job j1 exited 3 without a result \(log: .*j1\.log\)$/),
    });
  });

  it('the shipped job is found in the source tree', () => {
    expect(viewCheckJobPath()).toMatch(/jobs\/view_check\.py$/);
  });
});
