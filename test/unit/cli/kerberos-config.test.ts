// hms.thrift.kerberos: principal names and a keytab path, from the file, the environment or --set,
// and the SASL protection list (YAML); a malformed principal, an unknown key or protection name is
// CONFIG_INVALID naming the path.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../cli/config';
import { errorOf } from '../../helpers/errors';

const dir = mkdtempSync(path.join(os.tmpdir(), 'him-krb-config-'));
const file = path.join(dir, 'migrate.yaml');
writeFileSync(
  file,
  'hms:\n  thrift:\n    uri: thrift://hms.example.com:9083\n    kerberos:\n      servicePrincipal: hive/_HOST@EXAMPLE.COM\n',
);

describe('hms.thrift.kerberos', () => {
  it('file, environment and --set fill it; only names and paths', () => {
    const { config } = loadConfig({
      file,
      env: { MIGRATE__HMS__THRIFT__KERBEROS__CLIENTPRINCIPAL: 'migrator@EXAMPLE.COM' },
      sets: ['hms.thrift.kerberos.keytabFile=/etc/migrate/migrator.keytab'],
      cwd: dir,
    });
    expect(config.hms?.thrift.kerberos).toEqual({
      servicePrincipal: 'hive/_HOST@EXAMPLE.COM',
      clientPrincipal: 'migrator@EXAMPLE.COM',
      keytabFile: '/etc/migrate/migrator.keytab',
      protection: ['authentication', 'integrity', 'privacy'],
    });
  });

  it('protection: a YAML list of Hadoop names in order of preference; an unknown name, an empty or repeated list is CONFIG_INVALID', () => {
    const withList = (list: string): string => {
      const f = path.join(dir, `protection-${list.replace(/\W/g, '')}.yaml`);
      writeFileSync(
        f,
        `hms:\n  thrift:\n    uri: thrift://hms.example.com:9083\n    kerberos:\n      servicePrincipal: hive/_HOST@EXAMPLE.COM\n      protection: ${list}\n`,
      );
      return f;
    };
    const { config } = loadConfig({ file: withList('[privacy, integrity]'), env: {}, sets: [], cwd: dir });
    expect(config.hms?.thrift.kerberos?.protection).toEqual(['privacy', 'integrity']);
    const unknown = errorOf(() => loadConfig({ file: withList('[privacy, auth-conf]'), env: {}, sets: [], cwd: dir }));
    expect(unknown.code).toBe('CONFIG_INVALID');
    // The second item, named by its index, and the values that are accepted.
    expect(unknown.message).toContain(
      'hms.thrift.kerberos.protection.1: Invalid option: expected one of "authentication"|"integrity"|"privacy"',
    );
    for (const bad of ['[]', '[privacy, privacy]']) {
      const e = errorOf(() => loadConfig({ file: withList(bad), env: {}, sets: [], cwd: dir }));
      expect(e.code).toBe('CONFIG_INVALID');
      expect(e.message).toContain('hms.thrift.kerberos.protection');
    }
  });

  it('a service principal without service/host, or an unknown key, is CONFIG_INVALID naming the path', () => {
    const bad = errorOf(() => loadConfig({ file, env: {}, sets: ['hms.thrift.kerberos.servicePrincipal=hive@EXAMPLE.COM'], cwd: dir }));
    expect(bad.code).toBe('CONFIG_INVALID');
    expect(bad.message).toContain('hms.thrift.kerberos.servicePrincipal: expected service/host@REALM');
    const unknown = errorOf(() => loadConfig({ file, env: {}, sets: ['hms.thrift.kerberos.password=x'], cwd: dir }));
    expect(unknown.code).toBe('CONFIG_INVALID');
    expect(unknown.message).toContain('password');
  });
});
