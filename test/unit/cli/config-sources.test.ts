// Config errors name the source of the bad key: a mistyped MIGRATE__SECTION__KEY is blamed on the
// environment variable, not on the file; a directory given as --config is a coded CONFIG_INVALID.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../cli/config';
import { exitCodeOf } from '../../../cli/output';
import { errorOf } from '../../helpers/errors';

const dir = mkdtempSync(path.join(os.tmpdir(), 'him-config-src-'));
const file = path.join(dir, 'migrate.yaml');
writeFileSync(file, 'temporal:\n  address: 127.0.0.1:7233\n');

describe('config error sources', () => {
  it('a mistyped key inside a section names the environment variable', () => {
    const e = errorOf(() => loadConfig({ file, env: { MIGRATE__TEMPORAL__ADRESS: 'h:1' }, sets: [], cwd: dir }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain('temporal: unknown key "ADRESS" (from environment MIGRATE__TEMPORAL__ADRESS)');
    expect(e.message).not.toContain(`file ${file}`);
    expect(e.context.sources).toEqual(['environment MIGRATE__TEMPORAL__ADRESS']);
    expect(exitCodeOf(e)).toBe(2);
  });

  it('a mistyped section names the environment variable too', () => {
    const e = errorOf(() => loadConfig({ file, env: { MIGRATE__TEMPRAL__ADDRESS: 'h:1' }, sets: [], cwd: dir }));
    expect(e.message).toContain('(root): unknown key "TEMPRAL" (from environment MIGRATE__TEMPRAL__ADDRESS)');
  });

  it('a mistyped --set key names the flag; an unknown key in the file names the file', () => {
    expect(errorOf(() => loadConfig({ file, env: {}, sets: ['temporal.adress=x'], cwd: dir })).message).toContain(
      '(from --set temporal.adress)',
    );
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'temporal:\n  address: 127.0.0.1:7233\n  adress: x\n');
    expect(errorOf(() => loadConfig({ file: bad, env: {}, sets: [], cwd: dir })).message).toContain(
      `temporal: unknown key "adress" (from file ${bad})`,
    );
  });

  it('an empty file (or only comments) is CONFIG_INVALID: a config that configures nothing is a mistake', () => {
    for (const text of ['', '# nothing here\n']) {
      const f = path.join(dir, 'empty.yaml');
      writeFileSync(f, text);
      const e = errorOf(() => loadConfig({ file: f, env: {}, sets: [], cwd: dir }));
      expect([e.code, e.message]).toEqual(['CONFIG_INVALID', `config file ${f} is empty: it configures nothing (see migrate --help)`]);
    }
  });

  it('a directory as --config is CONFIG_INVALID (exit 2), not a crash', () => {
    const e = errorOf(() => loadConfig({ file: dir, env: {}, sets: [], cwd: dir }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain('is a directory');
    expect(e.message).toContain('(from --config)');
    expect(exitCodeOf(e)).toBe(2);
  });

  it.each(['__proto__.polluted=1', 'temporal.__proto__.polluted=1', 'constructor.prototype.polluted=1'])(
    '--set %s is CONFIG_INVALID naming the flag, and no object gains the key',
    (set) => {
      const e = errorOf(() => loadConfig({ env: {}, sets: [set], cwd: dir }));
      expect(e.code).toBe('CONFIG_INVALID');
      expect(e.message).toContain(`--set ${set.split('=')[0]}`);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );
});
