// Independent readers for tests: a Python venv with PyIceberg + pyarrow and PySpark, plus the Iceberg
// Spark runtime and AWS bundle jars and the Postgres JDBC driver (for Spark's Iceberg JdbcCatalog).
// Its one process is a fork server (dev/verifier/pyfork_server.py): the venv's interpreter with pyarrow
// and PyIceberg imported, which runs the scripts the tests and the seed send through
// dev/verifier/pyfork.py in forked children (the long-lived Spark over this venv is the
// `spark-verifier` component).
// Dev tooling; used by dev/verifier/*.py, never by the product.
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import type { Component, Health, StackContext } from '../types';
import { settings, versionOf } from '../manifest';
import { installDir, pyforkSocket } from '../env';
import { mavenCopy } from '../installers';
import { cachedInstall, dataDir, run, spawnDaemon, stopPid, waitFor, which, StackError } from '../util';

const NAME = 'verifier';
const Settings = z.object({ pip: z.array(z.string()).min(1), jars: z.array(z.string()), rewriteJars: z.array(z.string()).default([]) });

/** `g:a:v` → the file name `mavenCopy` writes (no classifier in our coordinates). */
function jarFile(coordinates: string): string {
  const [, artifact, version, , classifier] = coordinates.split(':');
  if (!artifact || !version) throw new StackError('MANIFEST_INVALID', `${NAME}: jar '${coordinates}' is not g:a:v`);
  return `${artifact}-${version}${classifier ? `-${classifier}` : ''}.jar`;
}

function python(dir: string): string {
  return path.join(dir, 'venv', 'bin', 'python');
}

async function build(ctx: StackContext, dir: string): Promise<void> {
  const s = settings(ctx, NAME, Settings);
  const base = process.env.HIM_PYTHON ?? (await which('python3'));
  if (!base) throw new StackError('TOOL_MISSING', 'python3 is not on PATH (the verifier needs Python >= 3.9 with venv; or set HIM_PYTHON)');
  const log = path.join(ctx.cacheDir, 'install.log');
  // Built in its final directory (cachedInstall inPlace): a venv records absolute paths in its
  // scripts, so it must not be renamed after creation.
  await run(base, ['-m', 'venv', path.join(dir, 'venv')], { logTo: log });
  // The pip cache sits in our cache dir: pyspark is an sdist built locally (~1 min); its wheel is
  // reused on the next install.
  const pipEnv = { PIP_CACHE_DIR: path.join(ctx.cacheDir, 'pip'), PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1' };
  await run(python(dir), ['-m', 'pip', 'install', '--quiet', ...s.pip], { env: pipEnv, logTo: log });
  await mavenCopy(ctx, s.jars, path.join(dir, 'jars'));
}

const IMPORT_PROBE =
  'import json, pyiceberg, pyarrow, pyspark; ' +
  'print(json.dumps({"pyiceberg": pyiceberg.__version__, "pyarrow": pyarrow.__version__, "pyspark": pyspark.__version__}))';

export const component: Component = {
  name: NAME,
  async install(ctx) {
    const dir = await cachedInstall(ctx, NAME, versionOf(ctx, NAME), (d) => build(ctx, d), { inPlace: true });
    // A jar added to the manifest later is fetched into the existing install (the venv is kept):
    // only the missing ones, so a second `up` fetches nothing.
    const s = settings(ctx, NAME, Settings);
    for (const [sub, jars] of [
      ['jars', s.jars],
      ['rewrite-jars', s.rewriteJars],
    ] as const) {
      const missing = jars.filter((j) => !existsSync(path.join(dir, sub, jarFile(j))));
      if (missing.length === 0) continue;
      ctx.log(`${NAME}: fetching ${missing.join(', ')} into ${path.join(dir, sub)}`);
      await mavenCopy(ctx, missing, path.join(dir, sub));
    }
  },
  async start(ctx) {
    const h = await installed(ctx);
    if (!h.ok) throw new StackError('START_FAILED', `${NAME}: ${h.detail}`);
    const socket = pyforkSocket(ctx);
    if (socket === undefined) return; // a state dir too deep for a socket path: scripts run in processes of their own
    await mkdir(dataDir(ctx, NAME), { recursive: true });
    await rm(socket, { force: true });
    const server = path.join(ctx.repoRoot, 'dev', 'verifier', 'pyfork_server.py');
    const pid = await spawnDaemon(ctx, NAME, python(installDir(ctx, NAME)), [server, '--socket', socket]);
    await waitFor(ctx, NAME, () => answers(socket), 60_000, pid);
  },
  async health(ctx) {
    const h = await installed(ctx);
    const socket = pyforkSocket(ctx);
    if (!h.ok || socket === undefined) return h;
    return (await answers(socket))
      ? { ok: true, detail: `${h.detail}, fork server on ${socket}` }
      : { ok: false, detail: `fork server not answering on ${socket}` };
  },
  stop: (ctx) => stopPid(ctx, NAME),
  endpoints(ctx) {
    const dir = installDir(ctx, NAME);
    return {
      python: python(dir),
      jars: path.join(dir, 'jars'),
      rewriteJars: path.join(dir, 'rewrite-jars'),
      pyfork: pyforkSocket(ctx) ?? '',
    };
  },
};

/** The fork server's socket takes a connection (an empty one: the server drops it unlogged). */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ path: socket });
    c.once('connect', () => {
      c.end();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/** Installed: the venv imports its readers and every jar is there. */
async function installed(ctx: StackContext): Promise<Health> {
  const dir = installDir(ctx, NAME);
  if (!existsSync(path.join(dir, '.complete'))) return { ok: false, detail: `not installed (${dir})` };
  const s = settings(ctx, NAME, Settings);
  const missing = [
    ...s.jars.map(jarFile).filter((f) => !existsSync(path.join(dir, 'jars', f))),
    ...s.rewriteJars.map(jarFile).filter((f) => !existsSync(path.join(dir, 'rewrite-jars', f))),
  ];
  if (missing.length > 0) return { ok: false, detail: `missing jars: ${missing.join(', ')}` };
  try {
    const out = JSON.parse(await run(python(dir), ['-c', IMPORT_PROBE], { timeoutMs: 30_000 })) as Record<string, string>;
    const versions = Object.entries(out).map(([k, v]) => `${k} ${v}`);
    return { ok: true, detail: `${versions.join(', ')}, ${s.jars.length} jars` };
  } catch (e) {
    return { ok: false, detail: `venv imports failed: ${(e as Error).message.split('\n')[0] ?? ''}` };
  }
}
