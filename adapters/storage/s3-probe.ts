// Reachability probe for S3 or an S3-compatible server: ListBuckets, or a one-key listing of the
// configured bucket. Credentials come from the standard AWS environment, never from config.
import { ListBucketsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { fromS3Error } from './errors';

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
      // A one-key listing rather than HeadBucket: the same permission (s3:ListBucket), and an error
      // answer with a body, so a refused token says InvalidToken rather than a bare 400.
      await s3.send(new ListObjectsV2Command({ Bucket: opts.bucket, MaxKeys: 1 }), { abortSignal });
      return { latencyMs: Math.round(performance.now() - t0), detail: `bucket ${opts.bucket} reachable` };
    }
    const out = await s3.send(new ListBucketsCommand({}), { abortSignal });
    return { latencyMs: Math.round(performance.now() - t0), detail: `${out.Buckets?.length ?? 0} buckets visible` };
  } catch (e) {
    // The same translation as every other S3 call (errors.ts): ExpiredToken, InvalidToken, a
    // wrong secret, no credentials each get their own code.
    throw fromS3Error(e, 'list', opts.bucket ? `s3://${opts.bucket}/` : 's3://', opts.endpoint ?? 'AWS');
  } finally {
    s3.destroy();
  }
}
