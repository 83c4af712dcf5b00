// Toxiproxy fault-injection proxy (server + cli built from Go modules). Proxies live in memory:
// tests create what they need through the HTTP API (test/helpers/toxiproxy.ts). Dev tooling;
// recipe in docs/design/stack-components.md §2.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Component, Health, StackContext } from '../types';
import { settings, versionOf } from '../manifest';
import { goInstall } from '../installers';
import { installDir } from '../env';
import { assertPortsFree, cachedInstall, httpGet, spawnDaemon, stopPid, waitFor } from '../util';

const NAME = 'toxiproxy';

const settingsSchema = z.object({ goModule: z.string() }).strict();

const apiUrl = (ctx: StackContext): string => `http://127.0.0.1:${ctx.port(NAME)}`;
export const toxiproxyBin = (ctx: StackContext, which: 'server' | 'cli'): string =>
  path.join(installDir(ctx, NAME), 'bin', `toxiproxy-${which}`);

async function install(ctx: StackContext): Promise<void> {
  const version = versionOf(ctx, NAME);
  const { goModule } = settings(ctx, NAME, settingsSchema);
  await cachedInstall(ctx, NAME, version, async (tmp) => {
    const bin = path.join(tmp, 'bin');
    // The packages are cmd/server and cmd/cli (there is no cmd/toxiproxy-server); `@latest`
    // resolves to the old v2.5.0, so the version is always pinned.
    await goInstall(
      ctx,
      bin,
      [`${goModule}/cmd/server@v${version}`, `${goModule}/cmd/cli@v${version}`],
      `-s -w -X ${goModule}.Version=${version}`,
    );
    await fs.rename(path.join(bin, 'server'), path.join(bin, 'toxiproxy-server'));
    await fs.rename(path.join(bin, 'cli'), path.join(bin, 'toxiproxy-cli'));
  });
}

async function start(ctx: StackContext): Promise<void> {
  await assertPortsFree(ctx, NAME);
  const pid = await spawnDaemon(ctx, NAME, toxiproxyBin(ctx, 'server'), ['-host', '127.0.0.1', '-port', String(ctx.port(NAME))]);
  await waitFor(ctx, NAME, async () => (await health(ctx)).ok, 15_000, pid);
}

async function health(ctx: StackContext): Promise<Health> {
  try {
    const res = await httpGet(`${apiUrl(ctx)}/version`, 2000);
    if (res.status !== 200) return { ok: false, detail: `GET /version answered HTTP ${res.status}` };
    // 2.12 answers {"version": "..."}; older servers answered the bare string.
    let serverVersion = res.body.trim();
    try {
      serverVersion = String((JSON.parse(res.body) as { version?: unknown }).version ?? serverVersion);
    } catch {
      /* plain-text answer */
    }
    return { ok: true, detail: `toxiproxy ${serverVersion}, API ${apiUrl(ctx)}`, serverVersion };
  } catch (e) {
    return { ok: false, detail: (e as Error).message.split('\n')[0] ?? 'unknown error' };
  }
}

export const component: Component = {
  name: NAME,
  install,
  start,
  health,
  stop: (ctx) => stopPid(ctx, NAME),
  endpoints: (ctx) => ({ api: apiUrl(ctx) }),
};
