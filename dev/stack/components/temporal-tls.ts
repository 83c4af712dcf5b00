// The stack's secured Temporal endpoint: a TLS-terminating proxy that requires and verifies client
// certificates (../tls-proxy/main.go: Go's crypto/tls, built from the repo with the standard library
// only into the install cache) in front of the dev server's plain gRPC port, with
// certificates made by openssl at every start (../temporal-tls-certs.ts: CA, server, client, a
// client of another CA, an expired client). Proves that workers and the CLI connect over mTLS and
// fail with a coded error on a bad certificate. Dev tooling.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Component, Health, StackContext } from '../types';
import { versionOf } from '../manifest';
import { exclusive, goEnv } from '../installers';
import { installDir } from '../env';
import { assertPortsFree, cachedInstall, run, spawnDaemon, stopPid, StackError, waitFor, which } from '../util';
import { makeCertificates, TLS_COMPONENT, tlsFiles } from '../temporal-tls-certs';

const NAME = TLS_COMPONENT;
const PROBE_TIMEOUT_MS = 3_000;
const address = (ctx: StackContext): string => `127.0.0.1:${ctx.port(NAME)}`;
const apiKeyAddress = (ctx: StackContext): string => `127.0.0.1:${ctx.port(NAME, 'apikey')}`;

const binary = (ctx: StackContext): string => path.join(installDir(ctx, NAME), 'bin', 'tls-proxy');

/** `go build` of ../tls-proxy (no module downloads). Bump the version in temporal-dev.yml when main.go changes. */
async function install(ctx: StackContext): Promise<void> {
  for (const tool of ['openssl', 'go'])
    if ((await which(tool)) === undefined) throw new StackError('TOOL_MISSING', `${NAME}: needs ${tool} on PATH`);
  await cachedInstall(ctx, NAME, versionOf(ctx, NAME), async (tmp) => {
    const src = path.join(ctx.repoRoot, 'dev', 'stack', 'tls-proxy');
    await exclusive('go', () =>
      run('go', ['build', '-ldflags=-s -w', '-o', path.join(tmp, 'bin', 'tls-proxy'), '.'], {
        cwd: src,
        env: goEnv(ctx),
        logTo: path.join(ctx.cacheDir, 'install.log'),
      }),
    );
  });
}

async function start(ctx: StackContext): Promise<void> {
  await assertPortsFree(ctx, NAME);
  await makeCertificates(ctx);
  const f = tlsFiles(ctx);
  const args = [
    '-listen',
    address(ctx),
    '-upstream',
    `127.0.0.1:${ctx.port('temporal')}`,
    '-ca',
    f.ca,
    '-cert',
    f.serverCert,
    '-key',
    f.serverKey,
    '-listen-apikey',
    apiKeyAddress(ctx),
    '-api-key-file',
    f.apiKey,
  ];
  const pid = await spawnDaemon(ctx, NAME, binary(ctx), args);
  await waitFor(ctx, NAME, async () => (await health(ctx)).ok, 30_000, pid);
}

/** GetSystemInfo through `addr` with the good client certificate (and the API key); the server version. */
async function roundTrip(ctx: StackContext, addr: string, apiKey?: string): Promise<string> {
  const f = tlsFiles(ctx);
  const tls = {
    serverNameOverride: 'localhost',
    serverRootCACertificate: readFileSync(f.ca),
    clientCertPair: { crt: readFileSync(f.clientCert), key: readFileSync(f.clientKey) },
  };
  const conn = Connection.lazy({ address: addr, tls, connectTimeout: PROBE_TIMEOUT_MS, ...(apiKey !== undefined ? { apiKey } : {}) });
  try {
    const info = await conn.withDeadline(Date.now() + PROBE_TIMEOUT_MS, () => conn.workflowService.getSystemInfo({}));
    return info.serverVersion ?? '?';
  } finally {
    await conn.close().catch(() => undefined);
  }
}

/** Real round trips through both ports: mTLS, and mTLS + the API key. */
async function health(ctx: StackContext): Promise<Health> {
  try {
    const serverVersion = await roundTrip(ctx, address(ctx));
    await roundTrip(ctx, apiKeyAddress(ctx), readFileSync(tlsFiles(ctx).apiKey, 'utf8').trim());
    return {
      ok: true,
      detail: `mTLS ${address(ctx)}, mTLS + API key ${apiKeyAddress(ctx)} -> temporal (server ${serverVersion})`,
      serverVersion,
    };
  } catch (e) {
    return { ok: false, detail: (e as Error).message.split('\n')[0] ?? 'unknown error' };
  }
}

export const component: Component = {
  name: NAME,
  install,
  start,
  health,
  stop: (ctx) => stopPid(ctx, NAME, 5_000),
  endpoints: (ctx) => ({ grpc: address(ctx), apikey: apiKeyAddress(ctx), ca: tlsFiles(ctx).ca }),
};
