// S3 side of the seeder: upload files under bounded concurrency, delete one key prefix (only the
// seeder's own). Dev tooling.
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

export interface S3Settings {
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export function s3Client(s: S3Settings): S3Client {
  return new S3Client({
    endpoint: s.endpoint,
    region: s.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
    maxAttempts: 5,
  });
}

/** Run `fn` over `items` with at most `limit` in flight; rejects with the first failure. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export async function putObject(s3: S3Client, bucket: string, key: string, body: Uint8Array): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

/** Delete every object under `prefix` (which must end with '/'); returns how many. */
export async function deletePrefix(s3: S3Client, bucket: string, prefix: string): Promise<number> {
  if (!prefix.endsWith('/') || prefix.length < 3) throw new Error(`refusing to delete S3 prefix '${prefix}'`);
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key !== undefined) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  // Deepest keys first: versitygw (posix) refuses to delete a directory marker ("dir/") while its
  // directory still holds objects.
  keys.sort((a, b) => b.split('/').length - a.split('/').length || (a < b ? 1 : a > b ? -1 : 0));
  const chunks: string[][] = [];
  for (let i = 0; i < keys.length; i += 500) chunks.push(keys.slice(i, i + 500));
  const failed: string[] = [];
  for (const chunk of chunks) {
    const r = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } }));
    for (const e of r.Errors ?? []) if (e.Key !== undefined) failed.push(e.Key);
  }
  // Markers whose children sat in a later chunk: one more pass.
  if (failed.length > 0) {
    const r = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: failed.map((Key) => ({ Key })), Quiet: true } }));
    if ((r.Errors ?? []).length > 0)
      throw new Error(
        `could not delete ${(r.Errors ?? []).length} object(s) under s3://${bucket}/${prefix}: ${r.Errors?.[0]?.Key ?? ''} ${r.Errors?.[0]?.Message ?? ''}`,
      );
  }
  return keys.length;
}
