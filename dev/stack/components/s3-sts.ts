// moto's server as a second, small S3: SigV4 verified against IAM users' keys and STS session
// credentials (the session token must match), STS AssumeRole, virtual-hosted buckets on a
// non-IP Host (<bucket>.s3.test). versitygw (components/s3.ts) has no STS; this one proves the
// session-token and addressing paths of the fast footer reads. Test-only; Python venv in the cache.
import { existsSync, readFileSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Component, StackContext } from '../types';
import { settings, versionOf } from '../manifest';
import { cred, installDir } from '../env';
import { assertPortsFree, cachedInstall, dataDir, run, spawnDaemon, stopPid, waitFor, which, StackError } from '../util';

const NAME = 's3-sts';
const Settings = z.object({ pip: z.array(z.string()).min(1), buckets: z.array(z.string()) });
/** The virtual-host domain tests address buckets under (resolved by the tests' own lookup, never DNS). */
export const S3_STS_DOMAIN = 's3.test';

function python(ctx: StackContext): string {
  return path.join(installDir(ctx, NAME), 'venv', 'bin', 'python');
}

/** The provisioned user's keys and role (written by s3-sts/setup.py after start). */
export function s3StsIdentityFile(ctx: StackContext): string {
  return path.join(dataDir(ctx, NAME), 'identity.json');
}

async function build(ctx: StackContext, dir: string): Promise<void> {
  const base = process.env.HIM_PYTHON ?? (await which('python3'));
  if (!base) throw new StackError('TOOL_MISSING', 'python3 is not on PATH (s3-sts needs Python >= 3.9 with venv; or set HIM_PYTHON)');
  const log = path.join(ctx.cacheDir, 'install.log');
  await run(base, ['-m', 'venv', path.join(dir, 'venv')], { logTo: log });
  const pipEnv = { PIP_CACHE_DIR: path.join(ctx.cacheDir, 'pip'), PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1' };
  await run(path.join(dir, 'venv', 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', ...settings(ctx, NAME, Settings).pip], {
    env: pipEnv,
    logTo: log,
  });
}

async function signedListBuckets(ctx: StackContext): Promise<number> {
  const { S3Client, ListBucketsCommand } = await import('@aws-sdk/client-s3');
  const id = JSON.parse(readFileSync(s3StsIdentityFile(ctx), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
  const c = new S3Client({
    endpoint: `http://127.0.0.1:${ctx.port(NAME)}`,
    region: cred(ctx, 's3Region'),
    forcePathStyle: true,
    credentials: { accessKeyId: id.accessKeyId, secretAccessKey: id.secretAccessKey },
    maxAttempts: 1,
  });
  try {
    return ((await c.send(new ListBucketsCommand({}), { abortSignal: AbortSignal.timeout(2000) })).Buckets ?? []).length;
  } finally {
    c.destroy();
  }
}

export const component: Component = {
  name: NAME,
  async install(ctx) {
    await cachedInstall(ctx, NAME, versionOf(ctx, NAME), (d) => build(ctx, d), { inPlace: true });
  },
  async start(ctx) {
    await assertPortsFree(ctx, NAME);
    await fs.rm(dataDir(ctx, NAME), { recursive: true, force: true });
    await fs.mkdir(dataDir(ctx, NAME), { recursive: true });
    const port = ctx.port(NAME);
    const endpoint = `http://127.0.0.1:${port}`;
    const pid = await spawnDaemon(ctx, NAME, python(ctx), ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
      // Path-style on the endpoint's own name, virtual-hosted on <bucket>.s3.test (moto's rule for custom endpoints).
      env: { MOTO_S3_CUSTOM_ENDPOINTS: `http://${S3_STS_DOMAIN}:${port}` },
    });
    const up = async (): Promise<boolean> => {
      const r = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
      return r?.ok === true;
    };
    await waitFor(ctx, NAME, up, 60_000, pid);
    const s = settings(ctx, NAME, Settings);
    const script = path.join(__dirname, '..', 's3-sts', 'setup.py');
    await run(python(ctx), [script, endpoint, s3StsIdentityFile(ctx), cred(ctx, 's3Region'), s.buckets.join(',')], { timeoutMs: 60_000 });
  },
  async health(ctx) {
    if (!existsSync(s3StsIdentityFile(ctx))) return { ok: false, detail: 'not provisioned (no identity.json)' };
    try {
      return { ok: true, detail: `moto S3+STS, IAM auth on, ${await signedListBuckets(ctx)} buckets` };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  },
  async stop(ctx) {
    await stopPid(ctx, NAME, 10_000);
  },
  endpoints(ctx) {
    return { s3: `http://127.0.0.1:${ctx.port(NAME)}` };
  },
};
