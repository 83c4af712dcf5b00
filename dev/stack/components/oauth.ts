// A real OAuth2 token endpoint for the catalog-auth proofs: Keycloak (the keycloak-quarkus-dist zip
// from Maven Central) in dev mode on an in-memory H2 database, with one realm imported at every
// start: a confidential client with the client-credentials grant and a short access-token life
// (settings.tokenLifespanSeconds), so refresh before expiry happens within one wave. Dev tooling;
// the product only ever POSTs to its token endpoint.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Component, Health, StackContext } from '../types';
import { settings, versionOf } from '../manifest';
import { cred } from '../env';
import { aptEnsure, mavenCopy } from '../installers';
import {
  assertPortsFree,
  cachedInstall,
  dataDir,
  freePort,
  httpGet,
  run,
  sleep,
  spawnDaemon,
  stopPid,
  waitFor,
  LEAN_JIT,
  StackError,
} from '../util';
import { realmJson } from '../oauth/realm';

const NAME = 'oauth';
const Settings = z
  .object({
    maven: z.string(),
    realm: z.string().regex(/^[a-z][a-z0-9-]*$/),
    clientId: z.string().min(1),
    /** A second client for the workers (tests tell the worker's token refreshes from the CLI's). */
    workerClientId: z.string().min(1),
    scope: z.string().min(1),
    tokenLifespanSeconds: z.number().int().min(5).max(3600),
    heap: z.string().regex(/^\d+[mg]$/),
  })
  .strict();

export const oauthSettings = (ctx: StackContext): z.infer<typeof Settings> => settings(ctx, NAME, Settings);

/** The token endpoint and JWKS of the stack's realm. */
export function oauthUrls(ctx: StackContext): { issuer: string; token: string; jwks: string } {
  const issuer = `http://127.0.0.1:${ctx.port(NAME)}/realms/${oauthSettings(ctx).realm}`;
  return { issuer, token: `${issuer}/protocol/openid-connect/token`, jwks: `${issuer}/protocol/openid-connect/certs` };
}

/** Keycloak's build-time options (the dev-mode build made at install must be made with these). */
const BUILD_OPTIONS = ['--db=dev-mem'];
/** Its environment: the same at install and at every start. */
const kcEnv = (heap: string): NodeJS.ProcessEnv => ({
  JAVA_OPTS_KC_HEAP: `-Xms64m -Xmx${heap}`,
  // C1 only (kc.sh's default JAVA_OPTS already choose G1, and a second GC flag is refused).
  JAVA_OPTS_APPEND: LEAN_JIT,
  KC_LOG_LEVEL: 'warn,org.keycloak.services:info',
  KC_HTTP_MANAGEMENT_PORT: '0',
});

/**
 * `start-dev` first runs Keycloak's build (the Quarkus re-augmentation: a JVM of its own, about half
 * of a first start, 35-40 s on two cores) whenever its home holds no build made with the same
 * build-time options. Done once here, in the distribution being installed: one `start-dev` on a
 * free port until the server answers, then stopped and its data removed; every stack's copy
 * (homeFor) then starts without the build.
 */
async function devBuild(ctx: StackContext, home: string, heap: string): Promise<void> {
  const port = await freePort();
  const started = Date.now() - 1000;
  const log = path.join(ctx.cacheDir, 'install.log');
  const out = await fs.open(log, 'a');
  const child = spawn(path.join(home, 'bin', 'kc.sh'), ['start-dev', ...BUILD_OPTIONS, '--http-host=127.0.0.1', `--http-port=${port}`], {
    cwd: home,
    env: { ...process.env, ...kcEnv(heap) },
    detached: true,
    stdio: ['ignore', out.fd, out.fd],
  });
  await out.close();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    for (const until = Date.now() + 300_000; ; await sleep(1000)) {
      if (child.exitCode !== null)
        throw new StackError('INSTALL_FAILED', `${NAME}: Keycloak's first start (its build) exited ${child.exitCode}; see ${log}`);
      if (Date.now() > until)
        throw new StackError('INSTALL_FAILED', `${NAME}: Keycloak's first start (its build) not up after 300 s; see ${log}`);
      if (
        (await httpGet(`http://127.0.0.1:${port}/realms/master/.well-known/openid-configuration`, 2000).catch(() => undefined))?.status ===
        200
      )
        break;
    }
  } finally {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  await fs.rm(path.join(home, 'data'), { recursive: true, force: true });
  // The build rewrites lib/quarkus (the distribution ships a production build there).
  const built = await fs.stat(path.join(home, 'lib', 'quarkus', 'generated-bytecode.jar')).catch(() => undefined);
  if (built === undefined || built.mtimeMs < started)
    throw new StackError('INSTALL_FAILED', `${NAME}: Keycloak's first start made no build in lib/quarkus; see ${log}`);
}

/**
 * The unpacked distribution in the cache, with its dev-mode build made (read-only once installed:
 * every start copies it). The cache directory's name says so (`-dev-built`): a cache from before
 * holds no build and is installed again.
 */
async function installDist(ctx: StackContext): Promise<string> {
  const s = oauthSettings(ctx);
  return cachedInstall(ctx, NAME, `${versionOf(ctx, NAME)}-dev-built`, async (tmp) => {
    await aptEnsure(ctx, '/usr/bin/unzip', ['unzip']);
    await mavenCopy(ctx, [`${s.maven}:zip`], tmp);
    const [, artifact, version] = s.maven.split(':');
    const zip = path.join(tmp, `${artifact}-${version}.zip`);
    await run('unzip', ['-q', zip, '-d', tmp], { logTo: path.join(ctx.cacheDir, 'install.log') });
    await fs.rm(zip);
    const top = (await fs.readdir(tmp)).find((d) => d.startsWith('keycloak-'));
    if (top === undefined) throw new StackError('INSTALL_FAILED', `${NAME}: the zip held no keycloak-* directory`);
    await fs.rename(path.join(tmp, top), path.join(tmp, 'dist'));
    await devBuild(ctx, path.join(tmp, 'dist'), s.heap);
  });
}

/**
 * Keycloak writes into its home (data/, the dev-mode build in lib/quarkus): each stack runs its own
 * copy under the state dir, keyed by the version, so the shared cache is never written after install.
 */
async function homeFor(ctx: StackContext, dist: string): Promise<string> {
  const home = path.join(dataDir(ctx, NAME), `keycloak-${versionOf(ctx, NAME)}`);
  if (!existsSync(path.join(home, '.copied'))) {
    await fs.rm(home, { recursive: true, force: true });
    await fs.mkdir(path.dirname(home), { recursive: true });
    await run('cp', ['-a', path.join(dist, 'dist'), home]);
    await fs.writeFile(path.join(home, '.copied'), `${new Date().toISOString()}\n`);
  }
  return home;
}

async function start(ctx: StackContext): Promise<void> {
  await assertPortsFree(ctx, NAME);
  const home = await homeFor(ctx, await installDist(ctx));
  const s = oauthSettings(ctx);
  const realm = realmJson({ ...s, clientIds: [s.clientId, s.workerClientId], clientSecret: cred(ctx, 'oauthClientSecret') });
  const importDir = path.join(home, 'data', 'import');
  await fs.rm(importDir, { recursive: true, force: true });
  await fs.mkdir(importDir, { recursive: true });
  await fs.writeFile(path.join(importDir, `${s.realm}-realm.json`), realm, { mode: 0o600 });
  const key = createHash('sha256').update(realm).digest('hex').slice(0, 12);
  ctx.log(`${NAME}: realm ${s.realm} (${key}), access tokens live ${s.tokenLifespanSeconds} s`);
  const args = ['start-dev', ...BUILD_OPTIONS, '--http-host=127.0.0.1', `--http-port=${ctx.port(NAME)}`, '--import-realm'];
  const pid = await spawnDaemon(ctx, NAME, path.join(home, 'bin', 'kc.sh'), args, { cwd: home, env: kcEnv(s.heap) });
  await waitFor(ctx, NAME, async () => (await health(ctx)).ok, 180_000, pid);
}

async function health(ctx: StackContext): Promise<Health> {
  try {
    const res = await httpGet(`${oauthUrls(ctx).issuer}/.well-known/openid-configuration`, 2000);
    if (res.status !== 200) return { ok: false, detail: `openid-configuration answered HTTP ${res.status}` };
    const body = JSON.parse(res.body) as { token_endpoint?: unknown };
    if (typeof body.token_endpoint !== 'string') return { ok: false, detail: 'openid-configuration has no token_endpoint' };
    return { ok: true, detail: `Keycloak realm ${oauthSettings(ctx).realm}, token endpoint ${body.token_endpoint}` };
  } catch (e) {
    return { ok: false, detail: (e as Error).message.split('\n')[0] ?? 'unknown error' };
  }
}

export const component: Component = {
  name: NAME,
  install: async (ctx) => {
    await installDist(ctx);
  },
  start,
  health,
  stop: (ctx) => stopPid(ctx, NAME, 20_000),
  endpoints: (ctx) => ({ token: oauthUrls(ctx).token, jwks: oauthUrls(ctx).jwks }),
};
