// Where the fast footer path sends a GET (s3-addressing.ts) and which region it signs for
// (s3-region.ts): AWS virtual-hosted by default, path-style when forced or for buckets with dots,
// custom endpoints both ways; region from config, AWS_REGION, AWS_DEFAULT_REGION, the profile.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { S3Addressing } from '../../../adapters/storage/s3-addressing';
import { profileRegion, resolveS3Region } from '../../../adapters/storage/s3-region';

describe('S3Addressing', () => {
  it('AWS, no endpoint: virtual-hosted https://<bucket>.s3.<region>.amazonaws.com/<key>', () => {
    const a = new S3Addressing('eu-west-1', undefined, false);
    expect(a.target('lake', 'db/t/part 0.parquet')).toEqual({
      origin: 'https://lake.s3.eu-west-1.amazonaws.com',
      host: 'lake.s3.eu-west-1.amazonaws.com',
      path: '/db/t/part%200.parquet',
      style: 'virtual-hosted',
    });
    expect(a.aws).toBe(true);
  });

  it('AWS path-style when forced, and for buckets that cannot be a host label (dots, capitals)', () => {
    expect(new S3Addressing('us-east-1', undefined, true).target('lake', 'k')).toMatchObject({
      origin: 'https://s3.us-east-1.amazonaws.com',
      path: '/lake/k',
      style: 'path',
    });
    const a = new S3Addressing('us-east-1', undefined, false);
    expect(a.target('my.bucket', 'k')).toMatchObject({ host: 's3.us-east-1.amazonaws.com', path: '/my.bucket/k', style: 'path' });
    expect(a.styleFor('Legacy_Bucket')).toBe('path');
    expect(new S3Addressing('cn-north-1', undefined, false).target('b1b', 'k').host).toBe('b1b.s3.cn-north-1.amazonaws.com.cn');
  });

  it('a custom endpoint: virtual-hosted <bucket>.<endpoint host>, or path-style', () => {
    expect(new S3Addressing('us-east-1', 'https://minio.internal:9000', false).target('lake', 'k')).toEqual({
      origin: 'https://lake.minio.internal:9000',
      host: 'lake.minio.internal:9000',
      path: '/k',
      style: 'virtual-hosted',
    });
    expect(new S3Addressing('us-east-1', 'http://127.0.0.1:9000', true).target('lake', 'k')).toMatchObject({
      origin: 'http://127.0.0.1:9000',
      host: '127.0.0.1:9000',
      path: '/lake/k',
    });
  });
});

describe('resolveS3Region', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'him-region-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('config, then AWS_REGION, then AWS_DEFAULT_REGION, then the profile, then us-east-1', () => {
    const config = path.join(dir, 'config');
    writeFileSync(config, '[default]\nregion = ap-south-1\n\n[profile prod]\n# comment\nregion=eu-north-1\n');
    const none = { AWS_CONFIG_FILE: path.join(dir, 'missing') };
    expect(resolveS3Region('eu-west-3', { AWS_REGION: 'x' })).toEqual({ region: 'eu-west-3', source: 'storage.s3.region' });
    expect(resolveS3Region(undefined, { AWS_REGION: 'us-west-2', AWS_DEFAULT_REGION: 'x' }).source).toBe('AWS_REGION');
    expect(resolveS3Region(undefined, { AWS_DEFAULT_REGION: 'eu-central-1' })).toMatchObject({ region: 'eu-central-1' });
    expect(resolveS3Region(undefined, { AWS_CONFIG_FILE: config }).region).toBe('ap-south-1');
    expect(resolveS3Region(undefined, { AWS_CONFIG_FILE: config, AWS_PROFILE: 'prod' })).toMatchObject({ region: 'eu-north-1' });
    expect(resolveS3Region(undefined, none)).toEqual({ region: 'us-east-1', source: 'default (no region configured)' });
    expect(profileRegion('[profile a]\nregion = r1\n[b]\nregion = r2\n', 'b')).toBeUndefined();
  });
});
