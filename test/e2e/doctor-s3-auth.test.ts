// `migrate doctor` on S3 authentication, against the stack's s3-sts server (moto: SigV4 and session
// tokens verified): it reports the credential source, the access key id prefix, the session
// expiry, the addressing style and the region with its source — never the secret or the token —
// and fails fast with the code and remedy on no credentials, expired ones, and a token the server refuses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Run } from '../helpers/cli';
import { MIGRATE, run } from '../helpers/cli';
import { assumeRole, stsStack } from '../helpers/sts';
import type { SessionCredentials } from '../helpers/sts';
import type { Check } from '../../app/doctor/doctor';

const sts = stsStack();
let dir: string;
let cfg: string;

/** Nothing of the stack's own S3 keys, profile files or metadata: only what a case sets. */
const NO_CHAIN = {
  AWS_ACCESS_KEY_ID: '',
  AWS_SECRET_ACCESS_KEY: '',
  AWS_SESSION_TOKEN: '',
  AWS_CREDENTIAL_EXPIRATION: '',
  AWS_PROFILE: '',
  AWS_REGION: '',
  AWS_DEFAULT_REGION: 'eu-central-1',
  AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
  AWS_EC2_METADATA_DISABLED: 'true',
};

function sessionEnv(c: SessionCredentials, expiration = c.expiration): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: c.accessKeyId,
    AWS_SECRET_ACCESS_KEY: c.secretAccessKey,
    AWS_SESSION_TOKEN: c.sessionToken,
    AWS_CREDENTIAL_EXPIRATION: expiration.toISOString(),
  };
}

async function doctor(env: Record<string, string>): Promise<{ r: Run; checks: Check[] }> {
  const files = { AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'none'), AWS_CONFIG_FILE: path.join(dir, 'none') };
  const r = await run(MIGRATE, ['doctor', '--config', cfg, '--json'], 60_000, { ...NO_CHAIN, ...files, ...env });
  return { r, checks: (JSON.parse(r.stdout) as { checks: Check[] }).checks.filter((c) => c.component === 'storage') };
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-doctor-s3-'));
  cfg = path.join(dir, 'migrate.yaml');
  // No region in config: it comes from AWS_DEFAULT_REGION (moto accepts any signing region).
  writeFileSync(cfg, `storage:\n  s3:\n    endpoint: ${sts.endpoint}\n    forcePathStyle: true\n    probeBucket: sts-warehouse\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('doctor: S3 authentication', () => {
  it('session credentials from the environment: source, key prefix, expiry, addressing, region; no secrets printed', async () => {
    const s = await assumeRole();
    const { r, checks } = await doctor(sessionEnv(s));
    expect(r.code).toBe(0);
    const auth = checks.find((c) => c.check === 'auth');
    expect(auth?.status).toBe('ok');
    expect(auth?.detail).toContain('credentials from environment (AWS_ACCESS_KEY_ID)');
    expect(auth?.detail).toContain(`access key ${s.accessKeyId.slice(0, 4)}…`);
    expect(auth?.detail).toContain(`session token, expires ${s.expiration.toISOString()}`);
    expect(auth?.detail).toContain('path addressing, region eu-central-1 (from AWS_DEFAULT_REGION)');
    expect(checks.find((c) => c.check === 'reachable')).toMatchObject({ status: 'ok', detail: 'bucket sts-warehouse reachable' });
    for (const secret of [s.secretAccessKey, s.sessionToken, s.accessKeyId]) expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('no credentials: auth fails fast with STORAGE_CREDENTIALS_MISSING and the chain in the remedy', async () => {
    const t0 = Date.now();
    const { r, checks } = await doctor({});
    expect(r.code).not.toBe(0);
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ check: 'auth', status: 'fail', code: 'STORAGE_CREDENTIALS_MISSING' });
    expect(checks[0]?.remedy).toContain('AWS_PROFILE');
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it('expired session credentials: STORAGE_CREDENTIALS_EXPIRED, nothing sent', async () => {
    const s = await assumeRole();
    const { r, checks } = await doctor(sessionEnv(s, new Date(Date.now() - 60_000)));
    expect(r.code).not.toBe(0);
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ check: 'auth', status: 'fail', code: 'STORAGE_CREDENTIALS_EXPIRED' });
    expect(checks[0]?.remedy).toContain('Renew');
    expect(r.stdout).not.toContain(s.sessionToken);
  });

  it('a session token the server refuses: reachable fails with STORAGE_ACCESS_DENIED', async () => {
    const s = await assumeRole();
    const { r, checks } = await doctor(sessionEnv({ ...s, sessionToken: `${s.sessionToken.slice(0, -4)}XXXX` }));
    expect(r.code).not.toBe(0);
    expect(checks.find((c) => c.check === 'auth')?.status).toBe('ok');
    expect(checks.find((c) => c.check === 'reachable')).toMatchObject({ status: 'fail', code: 'STORAGE_ACCESS_DENIED' });
  });
});
