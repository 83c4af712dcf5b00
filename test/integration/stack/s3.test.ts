// Smoke: the S3 server speaks the real API to the AWS SDK: put, paginated list, ranged get, delete.
import {
  DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { testStack, uniqueName } from '../../helpers/stack-env';

describe('S3 server of the local stack', () => {
  const env = testStack();
  const s3 = new S3Client({
    endpoint: env.HIM_S3_ENDPOINT,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID as string, secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string },
  });
  const prefix = `smoke/${uniqueName('s3')}/`;
  afterAll(() => s3.destroy());

  it('put, list with pagination, ranged get, delete', async () => {
    const bodies = Array.from({ length: 7 }, (_, i) => `object-${i}-${'x'.repeat(i * 10)}`);
    await Promise.all(bodies.map((b, i) => s3.send(new PutObjectCommand({ Bucket: 'warehouse', Key: `${prefix}${i}.txt`, Body: b }))));

    // MaxKeys=3 forces three pages through ContinuationToken.
    const keys: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: 'warehouse', Prefix: prefix, MaxKeys: 3, ContinuationToken: token }));
      keys.push(...(page.Contents ?? []).map((o) => o.Key as string));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(keys.sort()).toEqual(bodies.map((_, i) => `${prefix}${i}.txt`).sort());

    const key = `${prefix}6.txt`;
    const full = bodies[6] as string;
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'warehouse', Key: key }));
    expect(head.ContentLength).toBe(full.length);
    const tail = await s3.send(new GetObjectCommand({ Bucket: 'warehouse', Key: key, Range: 'bytes=-8' }));
    expect(await tail.Body?.transformToString()).toBe(full.slice(-8));
    const mid = await s3.send(new GetObjectCommand({ Bucket: 'warehouse', Key: key, Range: 'bytes=2-5' }));
    expect(await mid.Body?.transformToString()).toBe(full.slice(2, 6));

    await Promise.all(keys.map((k) => s3.send(new DeleteObjectCommand({ Bucket: 'warehouse', Key: k }))));
    const after = await s3.send(new ListObjectsV2Command({ Bucket: 'warehouse', Prefix: prefix }));
    expect(after.KeyCount ?? 0).toBe(0);
  });
});
