// The stack's Kerberos pieces: the MIT KDC (component kdc, realm HIM.TEST) issues a ticket to the
// client principal from its keytab and service tickets for the metastore's principal and the "other"
// one the wrong-principal tests use; keytabs are private (0600); the KDC and the Kerberized HMS
// (hms-krb) listen on 127.0.0.1 only; `stack env` names paths and principals, never key material.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { testStack } from '../../helpers/stack-env';

const env = testStack();
const krb5 = { ...process.env, KRB5_CONFIG: env.HIM_KRB5_CONFIG };

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(2000, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

describe('kdc and hms-krb (stack components)', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-kdc-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a ticket for the client from its keytab, then service tickets for both service principals', () => {
    const cache = `FILE:${path.join(dir, 'cc')}`;
    execFileSync('kinit', ['-kt', env.HIM_KRB_CLIENT_KEYTAB as string, '-c', cache, env.HIM_KRB_CLIENT_PRINCIPAL as string], { env: krb5 });
    const out = execFileSync(
      'kvno',
      ['-c', cache, env.HIM_KRB_SERVICE_PRINCIPAL as string, env.HIM_KRB_OTHER_SERVICE_PRINCIPAL as string],
      {
        env: krb5,
      },
    ).toString();
    expect(out).toContain(`${env.HIM_KRB_SERVICE_PRINCIPAL}: kvno = `);
    expect(out).toContain(`${env.HIM_KRB_OTHER_SERVICE_PRINCIPAL}: kvno = `);
    const list = execFileSync('klist', ['-c', cache], { env: krb5 }).toString();
    expect(list).toContain(`Default principal: ${env.HIM_KRB_CLIENT_PRINCIPAL}`);
  });

  it('keytabs are readable by their owner only; stack env holds their paths, not their bytes', () => {
    const keytab = env.HIM_KRB_CLIENT_KEYTAB as string;
    expect(statSync(keytab).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(keytab).toString('base64');
    expect(JSON.stringify(env)).not.toContain(bytes.slice(-40));
    expect(env.HIM_KRB_REALM).toBe('HIM.TEST');
  });

  it('the KDC and the Kerberized HMS listen on 127.0.0.1 only', async () => {
    const kdcPort = Number(/kdc = 127\.0\.0\.1:(\d+)/.exec(readFileSync(env.HIM_KRB5_CONFIG as string, 'utf8'))?.[1]);
    const hmsPort = Number(/:(\d+)$/.exec(env.HIM_HMS_KRB_URI as string)?.[1]);
    for (const port of [kdcPort, hmsPort]) {
      expect(await connects('127.0.0.1', port)).toBe(true);
      expect(await connects('127.0.0.2', port)).toBe(false);
    }
  });
});
