// Config resolution: file < environment < flags, one strict schema, errors naming the exact path
// and where the bad value came from.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../cli/config';
import { errorOf } from '../../helpers/errors';

const dir = mkdtempSync(path.join(os.tmpdir(), 'him-config-'));
const write = (name: string, text: string): string => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};

describe('loadConfig', () => {
  const base = write('base.yaml', 'temporal:\n  address: 127.0.0.1:7233\nhms:\n  thrift:\n    uri: thrift://h:9083\n');

  it('reads the file and applies defaults', () => {
    const { config } = loadConfig({ file: base, env: {}, sets: [], cwd: dir });
    // namespace has no schema default: unset, it comes from TEMPORAL_NAMESPACE or a profile, else `default` (app/runtime/temporal-connect.ts).
    expect(config.temporal).toEqual({ address: '127.0.0.1:7233', taskQueue: 'hms-iceberg-migrator' });
    expect(config.hms?.thrift).toEqual({ uri: 'thrift://h:9083', connectTimeoutMs: 10_000, callTimeoutMs: 60_000 });
  });

  it('environment overrides the file (upper-case names map onto camelCase keys), flags override both', () => {
    const { config } = loadConfig({
      file: base,
      env: {
        MIGRATE__TEMPORAL__ADDRESS: 'env-host:1',
        MIGRATE__HMS__THRIFT__CALLTIMEOUTMS: '5000',
        MIGRATE__TEMPORAL__NAMESPACE: 'env-ns',
      },
      sets: ['temporal.address=flag-host:2'],
      cwd: dir,
    });
    expect(config.temporal?.address).toBe('flag-host:2');
    expect(config.temporal?.namespace).toBe('env-ns');
    expect(config.hms?.thrift.callTimeoutMs).toBe(5000); // typed like YAML, not a string
  });

  it('names the exact path and the source of a bad value', () => {
    const e = errorOf(() => loadConfig({ file: base, env: { MIGRATE__HMS__THRIFT__URI: 'http://wrong' }, sets: [], cwd: dir }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain('hms.thrift.uri: expected thrift://host:port (from environment MIGRATE__HMS__THRIFT__URI)');
    const f = errorOf(() => loadConfig({ file: base, env: {}, sets: ['temporal.taskQueue='], cwd: dir }));
    expect(f.message).toMatch(/temporal\.taskQueue: .*\(from --set temporal\.taskQueue\)/);
  });

  it('hms.db: connections defaults to 2 and is bounded', () => {
    const withDb = write('db.yaml', 'hms:\n  thrift:\n    uri: thrift://h:9083\n  db:\n    url: postgres://ro@db:5432/metastore\n');
    expect(loadConfig({ file: withDb, env: {}, sets: [], cwd: dir }).config.hms?.db).toEqual({
      url: 'postgres://ro@db:5432/metastore',
      connections: 2,
    });
    expect(loadConfig({ file: withDb, env: {}, sets: ['hms.db.connections=4'], cwd: dir }).config.hms?.db?.connections).toBe(4);
    const e = errorOf(() => loadConfig({ file: withDb, env: {}, sets: ['hms.db.connections=0'], cwd: dir }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain('hms.db.connections');
  });

  it('rejects unknown keys (strict) with their path', () => {
    const f = write('typo.yaml', 'temporal:\n  adress: x:1\n');
    const e = errorOf(() => loadConfig({ file: f, env: {}, sets: [], cwd: dir }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toMatch(/temporal(\.adress)?: .*(adress|Unrecognized)/i);
  });

  it('checks that the catalog uri fits its type', () => {
    const f = write('cat.yaml', 'catalog:\n  name: prod\n  type: rest\n  uri: thrift://h:9083\n');
    const e = errorOf(() => loadConfig({ file: f, env: {}, sets: [], cwd: dir }));
    expect(e.message).toContain('catalog.uri: a rest catalog needs an http(s):// uri');
  });

  it('catalog.mode: in-place only for a hive catalog that is the source HMS, without a namespacePrefix', () => {
    const hms = 'hms:\n  thrift:\n    uri: thrift://meta:9083\n';
    const ok = write('inplace.yaml', `${hms}catalog:\n  name: prod\n  type: hive\n  uri: thrift://meta:9083\n  mode: in-place\n`);
    expect(loadConfig({ file: ok, env: {}, sets: [], cwd: dir }).config.catalog?.mode).toBe('in-place');
    const cases: [string, string][] = [
      [
        `${hms}catalog:\n  name: prod\n  type: rest\n  uri: http://r:8181\n  mode: in-place\n`,
        'catalog.mode: mode applies to a hive catalog only',
      ],
      [
        `${hms}catalog:\n  name: prod\n  type: hive\n  uri: thrift://meta:9083\n  mode: in-place\n  namespacePrefix: lake_\n`,
        'catalog.namespacePrefix: an in-place catalog converts each table under its own name',
      ],
      [
        `${hms}catalog:\n  name: prod\n  type: hive\n  uri: thrift://other:9083\n  mode: in-place\n`,
        'catalog.uri: an in-place hive catalog must be the source HMS (hms.thrift.uri thrift://meta:9083)',
      ],
      [`${hms}catalog:\n  name: prod\n  type: hive\n  uri: thrift://meta:9083\n  mode: sideways\n`, 'catalog.mode'],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      const e = errorOf(() => loadConfig({ file: write(`inplace-${i}.yaml`, text), env: {}, sets: [], cwd: dir }));
      expect({ i, code: e.code, has: e.message.includes(message) ? message : e.message }).toEqual({
        i,
        code: 'CONFIG_INVALID',
        has: message,
      });
    }
  });

  it('reports malformed YAML with line and column', () => {
    const f = write('bad.yaml', 'temporal:\n  address: [unclosed\n');
    const e = errorOf(() => loadConfig({ file: f, env: {}, sets: [], cwd: dir }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toMatch(/bad\.yaml:\d+:\d+: not valid YAML/);
  });

  it('a missing file is CONFIG_NOT_FOUND; a malformed --set is USAGE', () => {
    expect(errorOf(() => loadConfig({ file: 'nope.yaml', env: {}, sets: [], cwd: dir })).code).toBe('CONFIG_NOT_FOUND');
    expect(errorOf(() => loadConfig({ env: {}, sets: ['novalue'], cwd: dir })).code).toBe('USAGE');
  });

  it('with no file and no overrides the config is empty, not an error', () => {
    expect(loadConfig({ env: {}, sets: [], cwd: dir }).config).toEqual({});
  });
});
