// `doctor` for S3: how the process authenticates (credential source, access key id prefix, session
// expiry), where requests go (addressing style, region and where the region came from), then a
// round trip (a one-key ListObjectsV2 on storage.s3.probeBucket, else ListBuckets). Each negative case is a
// failed check with its code and remedy. Never shows a secret key or session token.
import { S3Client } from '@aws-sdk/client-s3';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, isMigrationError } from '../../core/errors';
import { REMEDIES } from '../../core/error-remedies';
import { probeS3 } from '../../adapters/storage/s3-probe';
import { S3Addressing } from '../../adapters/storage/s3-addressing';
import { RefreshingCredentials, describeCredentials } from '../../adapters/storage/s3-credentials';
import type { S3Credentials } from '../../adapters/storage/s3-credentials';
import { resolveS3Region } from '../../adapters/storage/s3-region';
import type { Outcome } from './outcome';

type S3Config = NonNullable<NonNullable<MigrateConfig['storage']>['s3']>;

function failure(check: string, e: unknown, prefix: string): Outcome {
  const code = isMigrationError(e) ? e.code : ErrorCode.STORAGE_ERROR;
  return { check, status: 'fail', code, detail: `${prefix}${(e as Error).message}`, remedy: REMEDIES[code] };
}

function expiryText(c: S3Credentials): string {
  if (c.expiration === undefined) return c.sessionToken === undefined ? 'static keys (no expiry)' : 'session token, no expiry given';
  const min = Math.round((c.expiration.getTime() - Date.now()) / 60_000);
  return `session token, expires ${c.expiration.toISOString()} (in ${min} min; refreshed 5 min before)`;
}

/** The `auth` and `reachable` checks of storage.s3. */
export async function s3DoctorOutcomes(s3: S3Config, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<Outcome[]> {
  const region = resolveS3Region(s3.region, env);
  const addressing = new S3Addressing(region.region, s3.endpoint, s3.forcePathStyle);
  const where = `${addressing.style} addressing, region ${region.region} (from ${region.source})`;
  const client = new S3Client({ endpoint: s3.endpoint, region: region.region, forcePathStyle: s3.forcePathStyle });
  let creds: S3Credentials;
  try {
    creds = await new RefreshingCredentials((o) => client.config.credentials(o)).get();
  } catch (e) {
    return [failure('auth', e, `${where}: `)];
  } finally {
    client.destroy();
  }
  const d = describeCredentials(creds);
  const auth: Outcome = {
    check: 'auth',
    detail: `credentials from ${d.source}, access key ${d.accessKeyPrefix}, ${expiryText(creds)}; ${where}`,
  };
  try {
    const p = await probeS3(
      { endpoint: s3.endpoint, region: region.region, forcePathStyle: s3.forcePathStyle, bucket: s3.probeBucket, credentials: creds },
      timeoutMs,
    );
    return [auth, { check: 'reachable', ...p }];
  } catch (e) {
    return [auth, failure('reachable', e, '')];
  }
}
