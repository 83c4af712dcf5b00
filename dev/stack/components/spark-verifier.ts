// The long-lived Spark verifier (dev/verifier/spark_server.py): one Python process holding ONE
// SparkSession (local[2]) that runs the verifier scripts' Spark reads on request, one at a time,
// instead of a JVM start (10–30 s on two cores) per call. The scripts send their command line to it
// when HIM_SPARK_VERIFIER_URL is set (dev/verifier/spark_client.py) and run in their own process
// whenever it cannot answer for sure. Nothing to install beyond `verifier`. Dev tooling, never the
// product; recipe in docs/design/stack-components.md §5.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Component, Health, StackContext } from '../types';
import { settings } from '../manifest';
import { installDir, stackEnv } from '../env';
import { assertPortsFree, dataDir, httpGet, spawnDaemon, stopPid, waitFor } from '../util';

const NAME = 'spark-verifier';
const Settings = z.object({ driverMemory: z.string().regex(/^\d+[mg]$/), startTimeoutSeconds: z.number().int().positive() }).strict();

const url = (ctx: StackContext): string => `http://127.0.0.1:${ctx.port(NAME)}`;

/**
 * The environment the scripts run in, which the worker compares a request's with: the stack's, and
 * KRB5_CONFIG as the test run sets it (test/helpers/global-setup.ts).
 */
function serverEnv(ctx: StackContext): NodeJS.ProcessEnv {
  const e = stackEnv(ctx);
  return { ...e, KRB5_CONFIG: process.env.KRB5_CONFIG ?? e.HIM_KRB5_CONFIG };
}

async function start(ctx: StackContext): Promise<void> {
  await assertPortsFree(ctx, NAME);
  const s = settings(ctx, NAME, Settings);
  const verifier = installDir(ctx, 'verifier');
  const scratch = dataDir(ctx, NAME);
  mkdirSync(scratch, { recursive: true });
  const pid = await spawnDaemon(
    ctx,
    NAME,
    path.join(verifier, 'venv', 'bin', 'python'),
    [
      path.join(ctx.repoRoot, 'dev', 'verifier', 'spark_server.py'),
      ...['--port', String(ctx.port(NAME)), '--jars-dir', path.join(verifier, 'jars')],
      ...['--driver-memory', s.driverMemory, '--scratch', scratch],
    ],
    { env: serverEnv(ctx) },
  );
  await waitFor(ctx, NAME, async () => (await health(ctx)).ok, s.startTimeoutSeconds * 1000, pid);
}

async function health(ctx: StackContext): Promise<Health> {
  try {
    const res = await httpGet(`${url(ctx)}/health`, 3000);
    const h = JSON.parse(res.body) as { ok?: boolean; jvm?: number; requests?: number; restarts?: number; startSeconds?: number };
    if (res.status !== 200 || h.ok !== true) return { ok: false, detail: `Spark starting (HTTP ${res.status})` };
    return {
      ok: true,
      detail: `Spark up (JVM ${h.jvm}, started in ${h.startSeconds} s), ${h.requests} request(s), ${h.restarts} restart(s), ${url(ctx)}`,
    };
  } catch (e) {
    return { ok: false, detail: (e as Error).message.split('\n')[0] ?? 'unknown error' };
  }
}

export const component: Component = {
  name: NAME,
  async install() {
    // The venv and jars are the `verifier` component's (a dependency).
  },
  start,
  health,
  // SIGTERM to the group: the server kills its worker's group (the worker and its JVM) and exits.
  stop: (ctx) => stopPid(ctx, NAME),
  endpoints: (ctx) => ({ url: url(ctx) }),
};
