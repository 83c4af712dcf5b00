// catalog-gateway: the stack's authenticating front of iceberg-rest (dev/stack/gateway/server.ts,
// run with tsx): port `main` wants OAuth2 bearer JWTs from the `oauth` component, port `sigv4`
// wants SigV4 signatures with the stack's dev-only AWS keys (the S3 ones). Nothing to install. Dev tooling.
import path from 'node:path';
import { z } from 'zod';
import type { Component, Health, StackContext } from '../types';
import { settings } from '../manifest';
import { cred } from '../env';
import { assertPortsFree, httpGet, spawnDaemon, stopPid, waitFor } from '../util';
import { oauthUrls } from './oauth';

const NAME = 'catalog-gateway';
const Settings = z.object({ sigv4Service: z.string().min(1), sigv4Region: z.string().min(1) }).strict();

const url = (ctx: StackContext, port: 'main' | 'sigv4'): string => `http://127.0.0.1:${ctx.port(NAME, port)}`;

async function health(ctx: StackContext): Promise<Health> {
  try {
    const [a, b] = await Promise.all([
      httpGet(`${url(ctx, 'main')}/__gateway/stats`, 2000),
      httpGet(`${url(ctx, 'sigv4')}/__gateway/stats`, 2000),
    ]);
    if (a.status !== 200 || b.status !== 200) return { ok: false, detail: `stats answered HTTP ${a.status}/${b.status}` };
    return { ok: true, detail: `oauth2 ${url(ctx, 'main')}, sigv4 ${url(ctx, 'sigv4')} → iceberg-rest` };
  } catch (e) {
    return { ok: false, detail: (e as Error).message.split('\n')[0] ?? 'unknown error' };
  }
}

async function start(ctx: StackContext): Promise<void> {
  await assertPortsFree(ctx, NAME);
  const s = settings(ctx, NAME, Settings);
  const o = oauthUrls(ctx);
  const tsx = path.join(ctx.repoRoot, 'node_modules', '.bin', 'tsx');
  const pid = await spawnDaemon(ctx, NAME, tsx, [path.join(ctx.repoRoot, 'dev', 'stack', 'gateway', 'server.ts')], {
    env: {
      HIM_GW_UPSTREAM: `http://127.0.0.1:${ctx.port('iceberg-rest')}`,
      HIM_GW_JWKS: o.jwks,
      HIM_GW_ISSUER: o.issuer,
      HIM_GW_OAUTH2_PORT: String(ctx.port(NAME, 'main')),
      HIM_GW_SIGV4_PORT: String(ctx.port(NAME, 'sigv4')),
      HIM_GW_SIGV4_SERVICE: s.sigv4Service,
      HIM_GW_SIGV4_REGION: s.sigv4Region,
      // The stack's one AWS identity (its S3 keys): as on AWS, storage and catalog share the chain.
      HIM_GW_SIGV4_KEY: cred(ctx, 's3AccessKey'),
      HIM_GW_SIGV4_SECRET: cred(ctx, 's3SecretKey'),
    },
    cwd: ctx.repoRoot,
  });
  await waitFor(ctx, NAME, async () => (await health(ctx)).ok, 30_000, pid);
}

export const component: Component = {
  name: NAME,
  install: async () => undefined,
  start,
  health,
  stop: (ctx) => stopPid(ctx, NAME, 5000),
  endpoints: (ctx) => ({ oauth2: url(ctx, 'main'), sigv4: url(ctx, 'sigv4') }),
};
