// RefreshingCredentials (adapters/storage/s3-credentials.ts): static keys resolved once; session
// credentials resolved again inside the margin before expiry (past the provider's own memo when it
// hands back the stale set); concurrent callers share one resolution; expired or missing
// credentials are coded errors. describeCredentials shows no secret.
import { CREDENTIAL_MARGIN_MS, RefreshingCredentials, describeCredentials } from '../../../adapters/storage/s3-credentials';
import type { S3Credentials } from '../../../adapters/storage/s3-credentials';
import { ErrorCode, MigrationError } from '../../../core/errors';

const T0 = Date.parse('2026-12-04T12:00:00Z');

function session(n: number, expiresInMs: number, now: number): S3Credentials {
  return { accessKeyId: `ASIA${n}`, secretAccessKey: `secret${n}`, sessionToken: `token${n}`, expiration: new Date(now + expiresInMs) };
}

describe('RefreshingCredentials', () => {
  it('static keys: one resolution, whatever the clock', async () => {
    let now = T0;
    let calls = 0;
    const c = new RefreshingCredentials(
      async () => {
        calls += 1;
        return { accessKeyId: 'AKIA1', secretAccessKey: 's' };
      },
      CREDENTIAL_MARGIN_MS,
      () => now,
    );
    await c.get();
    now += 365 * 86_400_000;
    expect((await c.get()).accessKeyId).toBe('AKIA1');
    expect(calls).toBe(1);
  });

  it('session credentials: kept until the margin, then resolved again (forceRefresh when the provider repeats the stale set)', async () => {
    let now = T0;
    const seen: (boolean | undefined)[] = [];
    let n = 0;
    let stale: S3Credentials | undefined;
    const c = new RefreshingCredentials(
      async (o) => {
        seen.push(o?.forceRefresh);
        // Like the SDK's memo: the first ask after expiry-window hands back the old set.
        if (stale !== undefined && o?.forceRefresh !== true) return stale;
        n += 1;
        return (stale = session(n, 15 * 60_000, now));
      },
      CREDENTIAL_MARGIN_MS,
      () => now,
    );
    expect((await c.get()).accessKeyId).toBe('ASIA1');
    now += 9 * 60_000; // 6 min left: still fresh
    expect((await c.get()).accessKeyId).toBe('ASIA1');
    now += 2 * 60_000; // 4 min left: inside the margin
    expect((await c.get()).accessKeyId).toBe('ASIA2');
    expect(seen).toEqual([undefined, undefined, true]);
  });

  it('concurrent callers share one resolution', async () => {
    let calls = 0;
    const c = new RefreshingCredentials(async () => {
      calls += 1;
      await new Promise((r) => setTimeout(r, 20));
      return session(calls, 3_600_000, Date.now());
    });
    const all = await Promise.all(Array.from({ length: 10 }, () => c.get()));
    expect(new Set(all.map((x) => x.accessKeyId)).size).toBe(1);
    expect(calls).toBe(1);
  });

  it('expired → STORAGE_CREDENTIALS_EXPIRED; a failing chain → STORAGE_CREDENTIALS_MISSING', async () => {
    const expired = new RefreshingCredentials(async () => session(1, -1000, Date.now()));
    await expect(expired.get()).rejects.toMatchObject({ code: ErrorCode.STORAGE_CREDENTIALS_EXPIRED });
    const none = new RefreshingCredentials(async () => {
      const e = new Error('Could not load credentials from any providers');
      e.name = 'CredentialsProviderError';
      throw e;
    });
    const err = await none.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect(err).toMatchObject({ code: ErrorCode.STORAGE_CREDENTIALS_MISSING });
  });

  it('describeCredentials: source from the SDK feature ids, key prefix, expiry; never the secret or token', () => {
    const c = { ...session(7, 60_000, T0), $source: { CREDENTIALS_HTTP: 'z' } };
    const d = describeCredentials(c);
    expect(d).toEqual({
      source: 'container credentials endpoint',
      accessKeyPrefix: 'ASIA…',
      session: true,
      expiresAt: '2026-12-04T12:01:00.000Z',
    });
    expect(JSON.stringify(d)).not.toMatch(/secret7|token7/);
  });

  it('describeCredentials without a recorded feature: the container endpoint when its variables are set, else a session is IMDS', () => {
    const s = session(8, 60_000, T0);
    expect(describeCredentials(s, { AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/creds' }).source).toBe('container credentials endpoint');
    expect(describeCredentials(s, {}).source).toBe('instance metadata (IMDS)');
    expect(describeCredentials(s, { AWS_EC2_METADATA_DISABLED: 'true' }).source).toBe('AWS SDK default chain');
    expect(describeCredentials({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'x' }, {}).source).toBe('AWS SDK default chain');
  });
});
