// `migrate doctor` against every secured endpoint of the stack at once: one
// config whose metastore is the Kerberized hms-krb (keytab), whose catalog is the OAuth2-checking
// catalog-gateway (Keycloak client credentials), whose storage is the s3-sts server with STS session
// credentials and whose Temporal is the temporal-tls API key port (mTLS + API key). Every check passes
// (no worker polls the queue: that one is a warning), each system's auth check names the method and
// the identity it established (principal, token subject and expiry, certificate subject, key prefix
// and session expiry), and no secret reaches the output. Then one thing is broken per system and
// the whole doctor run fails fast with that system's code and a remedy, the other systems still ok.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Run } from '../helpers/cli';
import { MIGRATE, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import { assumeRole, stsStack } from '../helpers/sts';
import type { SessionCredentials } from '../helpers/sts';
import type { Check } from '../../app/doctor/doctor';

const env = testStack();
const sts = stsStack();
const SECRET_ENV = 'HIM_E2E_SECURED_CLIENT_SECRET';
const OAUTH_SECRET = 'him-dev-oauth-secret-0123456789'; // the stack's dev-only client secret (temporal-dev.yml)
const KEY_ENV = 'HIM_E2E_SECURED_TEMPORAL_KEY';
const API_KEY = readFileSync(env.HIM_TEMPORAL_TLS_API_KEY_FILE as string, 'utf8').trim();
const KEYTAB = env.HIM_KRB_CLIENT_KEYTAB as string;
const CLIENT = env.HIM_KRB_CLIENT_PRINCIPAL as string;
const SERVICE = env.HIM_KRB_SERVICE_PRINCIPAL as string;
const tokenEndpoint = `${env.HIM_OAUTH_URL}/realms/him/protocol/openid-connect/token`;
const queue = `him-e2e-${uniqueName('himsec').toLowerCase()}`;
let dir = '';
let session: SessionCredentials;

interface Doctor {
  r: Run;
  checks: Check[];
  took: number;
}

interface Parts {
  keytab: string;
  clientCert: string;
  clientKey: string;
}

function config(name: string, p: Partial<Parts> = {}): string {
  const { keytab, clientCert, clientKey } = {
    keytab: KEYTAB,
    clientCert: env.HIM_TEMPORAL_TLS_CLIENT_CERT as string,
    clientKey: env.HIM_TEMPORAL_TLS_CLIENT_KEY as string,
    ...p,
  };
  const yaml = [
    'hms:',
    '  thrift:',
    `    uri: ${env.HIM_HMS_KRB_URI}`,
    '    kerberos:',
    `      servicePrincipal: hive/_HOST@${env.HIM_KRB_REALM}`,
    `      clientPrincipal: ${CLIENT}`,
    `      keytabFile: ${keytab}`,
    'catalog:',
    '  name: local-rest',
    '  type: rest',
    `  uri: ${env.HIM_CATALOG_GATEWAY_URI}`,
    '  warehouse: s3://warehouse/rest/',
    '  auth:',
    '    type: oauth2',
    `    tokenEndpoint: ${tokenEndpoint}`,
    '    clientId: him-migrator',
    `    clientSecretEnv: ${SECRET_ENV}`,
    '    scope: catalog',
    'storage:',
    '  s3:',
    `    endpoint: ${sts.endpoint}`,
    '    forcePathStyle: true',
    '    region: eu-central-1',
    '    probeBucket: sts-warehouse',
    'temporal:',
    `  address: ${env.HIM_TEMPORAL_TLS_APIKEY_ADDRESS}`,
    '  namespace: default',
    `  taskQueue: ${queue}`,
    `  apiKeyEnv: ${KEY_ENV}`,
    '  tls:',
    `    serverCaFile: ${env.HIM_TEMPORAL_TLS_CA}`,
    '    serverName: localhost',
    `    clientCertFile: ${clientCert}`,
    `    clientKeyFile: ${clientKey}`,
    'state:',
    `  url: ${env.HIM_POSTGRES_URL}`,
    '',
  ].join('\n');
  const file = path.join(dir, name);
  writeFileSync(file, yaml);
  return file;
}

/** The environment of a doctor run: no ambient AWS chain (only the STS session), the two secrets, the realm. */
function secretsEnv(over: Record<string, string> = {}): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: session.accessKeyId,
    AWS_SECRET_ACCESS_KEY: session.secretAccessKey,
    AWS_SESSION_TOKEN: session.sessionToken,
    AWS_CREDENTIAL_EXPIRATION: session.expiration.toISOString(),
    AWS_PROFILE: '',
    AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'none'),
    AWS_CONFIG_FILE: path.join(dir, 'none'),
    AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
    AWS_EC2_METADATA_DISABLED: 'true',
    TEMPORAL_ADDRESS: '',
    TEMPORAL_API_KEY: '',
    KRB5_CONFIG: env.HIM_KRB5_CONFIG as string,
    KRB5CCNAME: `FILE:${path.join(dir, 'no-ccache')}`,
    [SECRET_ENV]: OAUTH_SECRET,
    [KEY_ENV]: API_KEY,
    ...over,
  };
}

async function doctor(cfg: string, over: Record<string, string> = {}): Promise<Doctor> {
  const t0 = Date.now();
  const r = await run(MIGRATE, ['doctor', '--config', cfg, '--json', '--timeout', '8000'], 120_000, secretsEnv(over));
  let checks: Check[];
  try {
    checks = (JSON.parse(r.stdout) as { checks: Check[] }).checks;
  } catch {
    throw new Error(`doctor printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return { r, checks, took: Date.now() - t0 };
}

const find = (d: Doctor, component: string, check: string): Check | undefined =>
  d.checks.find((c) => c.component === component && c.check === check);
const notOk = (d: Doctor): string[] => d.checks.filter((c) => c.status !== 'ok').map((c) => `${c.component} ${c.check} ${c.status}`);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-doctor-secured-'));
  session = await assumeRole();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('doctor against the secured stack: Kerberos HMS, OAuth2 catalog, S3 session credentials, Temporal mTLS + API key', () => {
  it('every check passes; each auth check names the method and the identity; no secret in the output', async () => {
    const d = await doctor(config('secured.yaml'));
    expect(notOk(d)).toEqual([`temporal workers warn`]);
    expect(d.r.code).toBe(0);
    const hms = find(d, 'hms', 'auth')?.detail ?? '';
    expect(hms).toContain(`kerberos (SASL/GSSAPI): ${CLIENT} → ${SERVICE}, ticket expires `);
    expect(hms).toContain(`from keytab ${KEYTAB}`);
    expect(find(d, 'catalog', 'auth')?.detail).toMatch(
      new RegExp(
        `^oauth2 client credentials at ${tokenEndpoint}: client him-migrator, subject [0-9a-f-]{36}, scope catalog; token expires in \\d+ s`,
      ),
    );
    const s3 = find(d, 'storage', 'auth')?.detail ?? '';
    expect(s3).toContain(`access key ${session.accessKeyId.slice(0, 4)}…`);
    expect(s3).toContain(`session token, expires ${session.expiration.toISOString()}`);
    const temporal = find(d, 'temporal', 'auth')?.detail ?? '';
    expect(temporal).toMatch(/mTLS client certificate O=hms-iceberg-migrator dev, CN=him-dev-worker \(issuer .*CN=him-dev-ca; valid /);
    expect(temporal).toContain(`API key from env ${KEY_ENV}`);
    expect(find(d, 'temporal', 'tls')?.detail).toMatch(/^TLSv1\.[23], ALPN h2, server certificate /);
    const out = d.r.stdout + d.r.stderr;
    for (const secret of [OAUTH_SECRET, API_KEY, session.secretAccessKey, session.sessionToken, session.accessKeyId]) {
      expect(out).not.toContain(secret);
    }
    const keytab = readFileSync(KEYTAB);
    expect(out).not.toContain(keytab.toString('base64').slice(-48));
  }, 180_000);

  // One thing broken per system: that system fails with its code and a remedy, fast; the others stay ok.
  const cases: {
    name: string;
    component: string;
    check: string;
    code: string;
    cfg: () => Partial<Parts>;
    env: () => Record<string, string>;
  }[] = [
    {
      name: 'no Kerberos ticket (keytab without the principal)',
      component: 'hms',
      check: 'auth',
      code: 'HMS_KERBEROS_NO_TICKET',
      cfg: () => ({ keytab: path.join(dir, 'empty.keytab') }),
      env: () => ({}),
    },
    {
      name: 'a wrong OAuth2 client secret',
      component: 'catalog',
      check: 'auth',
      code: 'CATALOG_AUTH_FAILED',
      cfg: () => ({}),
      env: () => ({ [SECRET_ENV]: 'wrong-secret-secured' }),
    },
    {
      name: 'an expired S3 session',
      component: 'storage',
      check: 'auth',
      code: 'STORAGE_CREDENTIALS_EXPIRED',
      cfg: () => ({}),
      env: () => ({ AWS_CREDENTIAL_EXPIRATION: new Date(Date.now() - 60_000).toISOString() }),
    },
    {
      name: 'an expired Temporal client certificate',
      component: 'temporal',
      check: 'tls',
      code: 'TEMPORAL_TLS_CLIENT_CERT_EXPIRED',
      cfg: () => ({ clientCert: env.HIM_TEMPORAL_TLS_EXPIRED_CERT as string, clientKey: env.HIM_TEMPORAL_TLS_EXPIRED_KEY as string }),
      env: () => ({}),
    },
    {
      name: 'a wrong Temporal API key',
      component: 'temporal',
      check: 'reachable',
      code: 'TEMPORAL_AUTH_FAILED',
      cfg: () => ({}),
      env: () => ({ [KEY_ENV]: 'wrong-key-secured' }),
    },
  ];
  it.each(cases)(
    '$name: $component $check fails with $code and a remedy, the other systems ok',
    async (c) => {
      writeFileSync(path.join(dir, 'empty.keytab'), Buffer.from([0x05, 0x02]));
      const d = await doctor(config(`${c.code}.yaml`, c.cfg()), c.env());
      expect(d.r.code).toBe(1);
      const failed = d.checks.filter((x) => x.status === 'fail');
      expect(failed[0]).toMatchObject({ component: c.component, check: c.check, code: c.code });
      expect(failed[0]?.remedy ?? '').not.toBe('');
      for (const other of ['hms', 'catalog', 'storage', 'state'].filter((x) => x !== c.component)) {
        expect(d.checks.filter((x) => x.component === other && x.status !== 'ok')).toEqual([]);
      }
      expect(d.took).toBeLessThan(30_000);
    },
    180_000,
  );
});
