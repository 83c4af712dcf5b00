// Reachability probe for S3 or an S3-compatible server: ListBuckets, or HeadBucket on the
// configured bucket. Credentials come from the standard AWS environment, never from config.
import { HeadBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { ErrorCode, MigrationError } from '../../core/errors';

export interface S3ProbeOptions {
  readonly endpoint?: string;
  readonly region: string;
  readonly forcePathStyle: boolean;
  readonly bucket?: string;
  /** Credentials already resolved (doctor); default: the SDK's chain. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
}

export async function probeS3(opts: S3ProbeOptions, timeoutMs: number): Promise<{ latencyMs: number; detail: string }> {
  const s3 = new S3Client({
    endpoint: opts.endpoint,
    region: opts.region,
    forcePathStyle: opts.forcePathStyle,
    maxAttempts: 1,
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
  });
  const t0 = performance.now();
  try {
    const abortSignal = AbortSignal.timeout(timeoutMs);
    if (opts.bucket) {
      await s3.send(new HeadBucketCommand({ Bucket: opts.bucket }), { abortSignal });
      return { latencyMs: Math.round(performance.now() - t0), detail: `bucket ${opts.bucket} reachable` };
    }
    const out = await s3.send(new ListBucketsCommand({}), { abortSignal });
    return { latencyMs: Math.round(performance.now() - t0), detail: `${out.Buckets?.length ?? 0} buckets visible` };
  } catch (e) {
    const err = e as Error & { $metadata?: { httpStatusCode?: number } };
    const status = err.$metadata?.httpStatusCode;
    if (err.name === 'CredentialsProviderError') {
      throw new MigrationError(
        ErrorCode.STORAGE_CREDENTIALS_MISSING,
        `S3 ${opts.endpoint ?? 'AWS'}: no AWS credentials found in the environment (${err.message})`,
        {},
        { cause: e },
      );
    }
    if (err.name === 'ExpiredToken') {
      throw new MigrationError(
        ErrorCode.STORAGE_CREDENTIALS_EXPIRED,
        `S3 ${opts.endpoint ?? 'AWS'}: ${err.name}: ${err.message}`,
        { status },
        { cause: e },
      );
    }
    if (status === 403 || err.name === 'InvalidAccessKeyId' || err.name === 'SignatureDoesNotMatch') {
      throw new MigrationError(
        ErrorCode.STORAGE_ACCESS_DENIED,
        `S3 ${opts.endpoint ?? 'AWS'}: ${err.name}: ${err.message}`,
        { status },
        { cause: e },
      );
    }
    throw new MigrationError(
      ErrorCode.STORAGE_UNREACHABLE,
      `S3 ${opts.endpoint ?? 'AWS'}: ${err.name}: ${err.message}`,
      { status },
      { cause: e },
    );
  } finally {
    s3.destroy();
  }
}
