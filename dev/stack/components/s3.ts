// versitygw: a real S3 HTTP API (SigV4, ListObjectsV2 pagination, ranged GET, multipart) over a
// posix directory in the state dir. Built from Go modules into the cache.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import type { Component, StackContext } from '../types';
import { settings, versionOf } from '../manifest';
import { cred, installDir } from '../env';
import { goInstall } from '../installers';
import { assertPortsFree, cachedInstall, dataDir, spawnDaemon, stopPid, waitFor } from '../util';

const NAME = 's3';
const Settings = z.object({ goModule: z.string(), buckets: z.array(z.string()) });

function client(ctx: StackContext): S3Client {
  return new S3Client({
    endpoint: `http://127.0.0.1:${ctx.port(NAME)}`,
    region: cred(ctx, 's3Region'),
    forcePathStyle: true,
    credentials: { accessKeyId: cred(ctx, 's3AccessKey'), secretAccessKey: cred(ctx, 's3SecretKey') },
    maxAttempts: 1,
  });
}

export const component: Component = {
  name: NAME,
  async install(ctx) {
    const s = settings(ctx, NAME, Settings);
    await cachedInstall(ctx, NAME, versionOf(ctx, NAME), (tmp) =>
      goInstall(ctx, path.join(tmp, 'bin'), [`${s.goModule}@v${versionOf(ctx, NAME)}`]),
    );
  },
  async start(ctx) {
    await assertPortsFree(ctx, NAME);
    const root = dataDir(ctx, NAME);
    await fs.mkdir(root, { recursive: true });
    const bin = path.join(installDir(ctx, NAME), 'bin', 'versitygw');
    // --keep-alive: without it versitygw answers every request with Connection: close, i.e. one TCP
    // connect per ranged footer GET (bench/convert: 1,300-1,872 files/s closing vs 2,200-3,000 kept
    // alive). It is safe only because every client the stack runs sends checksums only when required
    // (S3_CHECKSUM_ENV in ../env.ts says what breaks otherwise).
    const pid = await spawnDaemon(ctx, NAME, bin, ['--port', `127.0.0.1:${ctx.port(NAME)}`, '--quiet', '--keep-alive', 'posix', root], {
      env: { ROOT_ACCESS_KEY: cred(ctx, 's3AccessKey'), ROOT_SECRET_KEY: cred(ctx, 's3SecretKey') },
    });
    await waitFor(ctx, NAME, async () => (await this.health(ctx)).ok, 30_000, pid);
    const c = client(ctx);
    try {
      const have = new Set(((await c.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name));
      for (const b of settings(ctx, NAME, Settings).buckets) {
        if (!have.has(b)) await c.send(new CreateBucketCommand({ Bucket: b }));
      }
    } finally {
      c.destroy();
    }
  },
  async health(ctx) {
    const c = client(ctx);
    try {
      const out = await c.send(new ListBucketsCommand({}), { abortSignal: AbortSignal.timeout(2000) });
      return { ok: true, detail: `S3 API, ${out.Buckets?.length ?? 0} buckets` };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    } finally {
      c.destroy();
    }
  },
  async stop(ctx) {
    await stopPid(ctx, NAME, 10_000);
  },
  endpoints(ctx) {
    return { s3: `http://127.0.0.1:${ctx.port(NAME)}` };
  },
};
