// Hostile corpus, flags: every bad flag value, unknown flag, missing argument and
// unusable `-c` is a coded usage error (exit 2) found before any connection. The config points every
// endpoint at a dead port, so a command that connected first would fail with another code (or time
// out) instead of USAGE. No stack component is needed.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serializePlan } from '../../../core/plan/plan-file';
import type { Run } from '../../helpers/cli';
import { deadConfigYaml, migrate, outcome, prefetch, syntheticPlan, writeFile } from '../../helpers/hostile';

let dir = '';
let cfg = '';
let planFile = '';
let runs: Record<string, Promise<Run>> = {};

/** [name, argv builder]; every case must end exit 2 with code USAGE, within the short CLI timeout. */
const USAGE_CASES: readonly [string, () => string[]][] = [
  ['apply --concurrency abc', () => ['apply', planFile, '--concurrency', 'abc', '--json', '-c', cfg]],
  ['apply --concurrency 0', () => ['apply', planFile, '--concurrency', '0', '--json', '-c', cfg]],
  ['apply --concurrency -1', () => ['apply', planFile, '--concurrency', '-1', '--json', '-c', cfg]],
  ['apply --step-timeout abc', () => ['apply', planFile, '--step-timeout', 'abc', '--json', '-c', cfg]],
  ['apply --step-timeout 0', () => ['apply', planFile, '--step-timeout', '0', '--json', '-c', cfg]],
  ['apply --heartbeat-timeout -1', () => ['apply', planFile, '--heartbeat-timeout', '-1', '--json', '-c', cfg]],
  ['apply --max-failed -1', () => ['apply', planFile, '--max-failed', '-1', '--json', '-c', cfg]],
  ['apply --max-failed abc', () => ['apply', planFile, '--max-failed', 'abc', '--json', '-c', cfg]],
  ['worker --concurrency abc', () => ['worker', '--concurrency', 'abc', '-c', cfg]],
  ['worker --concurrency 0', () => ['worker', '--concurrency', '0', '-c', cfg]],
  ['worker --concurrency -1', () => ['worker', '--concurrency', '-1', '-c', cfg]],
  ['rollback --wave abc', () => ['rollback', '0123456789ab', '--wave', 'abc', '--json', '-c', cfg]],
  ['rollback --wave 0', () => ['rollback', '0123456789ab', '--wave', '0', '--json', '-c', cfg]],
  ['approve --wave abc', () => ['approve', '0123456789ab', '--wave', 'abc', '-c', cfg]],
  ['doctor --timeout abc', () => ['doctor', '--timeout', 'abc', '--json', '-c', cfg]],
  ['an unknown flag (status --bogus)', () => ['status', '0123456789ab', '--bogus', '--json', '-c', cfg]],
  ['a missing argument (apply without a plan file)', () => ['apply', '--json', '-c', cfg]],
];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-flags-'));
  cfg = writeFile(dir, 'dead.yaml', deadConfigYaml());
  planFile = writeFile(dir, 'plan.json', serializePlan(syntheticPlan()));
  mkdirSync(path.join(dir, 'a-directory'), { recursive: true });
  runs = prefetch({
    ...Object.fromEntries(USAGE_CASES.map(([name, argv]) => [name, () => migrate(argv())])),
    'config-dir': () => migrate(['doctor', '--json', '-c', path.join(dir, 'a-directory')]),
    'config-missing': () => migrate(['doctor', '--json', '-c', path.join(dir, 'no-such.yaml')]),
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hostile flags: coded usage errors before any connection', () => {
  it.each(USAGE_CASES)('%s → exit 2, USAGE', async (name) => {
    const r = await (runs[name] as Promise<Run>);
    expect(outcome(r)).toEqual({ exit: 2, code: 'USAGE' });
  });

  it('-c pointing to a directory → exit 2, CONFIG_NOT_FOUND or CONFIG_INVALID (not an internal error)', async () => {
    const r = await (runs['config-dir'] as Promise<Run>);
    expect(r.code).toBe(2);
    expect(['CONFIG_NOT_FOUND', 'CONFIG_INVALID']).toContain(outcome(r).code);
  });

  it('-c pointing to a missing file → exit 2, CONFIG_NOT_FOUND', async () => {
    const r = await (runs['config-missing'] as Promise<Run>);
    expect(outcome(r)).toEqual({ exit: 2, code: 'CONFIG_NOT_FOUND' });
  });
});
