// Hostile corpus, unknown plan ids: approve, pause, resume, cancel, status and
// rollback of a plan id that was never applied are each a coded usage-class error (exit 2), not an
// internal error and not a silent success. The stack's Temporal and state DB, no worker.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auditIntact, migrate, outcome, stackConfigYaml, writeFile } from '../../helpers/hostile';
import { uniqueName } from '../../helpers/stack-env';

const prefix = uniqueName('himu').toLowerCase();
/** 12 hex digits no plan has (a fresh random value per run). */
const unknown = Array.from({ length: 12 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
let dir = '';
let cfg = '';

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-ids-'));
  cfg = writeFile(dir, 'migrate.yaml', stackConfigYaml(`him-hostile-${prefix}`, `${prefix}_`));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CASES: readonly [string, () => string[]][] = [
  ['approve', () => ['approve', unknown, '--wave', '1', '-c', cfg]],
  ['pause', () => ['pause', unknown, '-c', cfg]],
  ['resume', () => ['resume', unknown, '-c', cfg]],
  ['cancel', () => ['cancel', unknown, '-c', cfg]],
  ['status', () => ['status', unknown, '--json', '-c', cfg]],
  ['rollback', () => ['rollback', unknown, '--wave', '1', '--json', '-c', cfg]],
];

describe('hostile ids: an unknown plan id is a coded usage error', () => {
  it.each(CASES)('%s of an unknown plan id → exit 2, coded (not INTERNAL), audit untouched', async (_name, argv) => {
    const r = await migrate(argv());
    expect({ exit: r.code, internal: /internal error/.test(r.stderr) }).toEqual({ exit: 2, internal: false });
    expect(outcome(r).code).toMatch(/^[A-Z][A-Z0-9_]+$/);
    expect(outcome(r).code).not.toBe('INTERNAL');
    expect(await auditIntact(cfg)).toEqual({ exit: 0, ok: true, code: undefined });
  });
});
