// Private PostgreSQL instance (Debian package) for the HMS backing DB and the migrator state store.
// Runs as the `postgres` OS user (initdb/postgres refuse root) with its data in the state dir.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { z } from 'zod';
import type { Component, StackContext } from '../types';
import { settings } from '../manifest';
import { aptEnsure } from '../installers';
import { assertPortsFree, dataDir, logFile, run, spawnDaemon, stopPid, waitFor } from '../util';

const NAME = 'postgres';
const Settings = z.object({ aptPackages: z.array(z.string()), databases: z.array(z.string()) });

function binDir(ctx: StackContext): string {
  return `/usr/lib/postgresql/${ctx.manifest.components[NAME]?.version ?? '15'}/bin`;
}

/** setpriv execs in place, so the pid we record is the postmaster's own. */
function asPostgres(cmd: string, args: readonly string[]): [string, string[]] {
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--reset-env', cmd, ...args]];
}

async function canAccess(dir: string): Promise<boolean> {
  const [cmd, args] = asPostgres('test', ['-w', dir, '-a', '-x', dir]);
  return run(cmd, args).then(
    () => true,
    () => false,
  );
}

/**
 * The cluster lives in <state>/data/postgres when the postgres user can reach it; a state dir
 * under a private home (mode 700) cannot be, so then it lives in a per-state-dir folder under
 * /var/tmp, recorded in <state>/data/postgres.location.
 */
async function clusterDir(ctx: StackContext): Promise<string> {
  const pointer = `${dataDir(ctx, NAME)}.location`;
  if (existsSync(pointer)) return (await fs.readFile(pointer, 'utf8')).trim();
  const preferred = dataDir(ctx, NAME);
  await fs.mkdir(preferred, { recursive: true });
  await run('chown', ['postgres:postgres', preferred]);
  let dir = preferred;
  if (!(await canAccess(preferred))) {
    const tag = Buffer.from(ctx.stateDir).toString('base64url').slice(-24);
    dir = path.join('/var/tmp', 'hms-iceberg-migrator-pg', tag);
    await fs.mkdir(dir, { recursive: true });
    await run('chown', ['-R', 'postgres:postgres', path.dirname(dir)]);
  }
  await fs.writeFile(pointer, `${dir}\n`);
  return dir;
}

async function query<T>(ctx: StackContext, db: string, sql: string): Promise<T[]> {
  const c = new Client({ host: '127.0.0.1', port: ctx.port(NAME), user: 'postgres', database: db, connectionTimeoutMillis: 2000 });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

export const component: Component = {
  name: NAME,
  async install(ctx) {
    await aptEnsure(ctx, path.join(binDir(ctx), 'initdb'), settings(ctx, NAME, Settings).aptPackages);
  },
  async start(ctx) {
    await assertPortsFree(ctx, NAME);
    const root = await clusterDir(ctx);
    const pgdata = path.join(root, 'pgdata');
    const sock = path.join(root, 'sock');
    if (!existsSync(path.join(pgdata, 'PG_VERSION'))) {
      const [cmd, args] = asPostgres(path.join(binDir(ctx), 'initdb'), [
        '-D',
        pgdata,
        '-U',
        'postgres',
        '--auth=trust',
        '-E',
        'UTF8',
        '--locale=C.UTF-8',
      ]);
      await run(cmd, args, { logTo: logFile(ctx, NAME) });
    }
    await fs.mkdir(sock, { recursive: true });
    await run('chown', ['postgres:postgres', sock]);
    const [cmd, args] = asPostgres(path.join(binDir(ctx), 'postgres'), [
      '-D',
      pgdata,
      '-p',
      String(ctx.port(NAME)),
      '-k',
      sock,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      '-c',
      'fsync=off',
    ]);
    const pid = await spawnDaemon(ctx, NAME, cmd, args);
    await waitFor(ctx, NAME, async () => (await this.health(ctx)).ok, 60_000, pid);
    const existing = new Set((await query<{ datname: string }>(ctx, 'postgres', 'SELECT datname FROM pg_database')).map((r) => r.datname));
    for (const db of settings(ctx, NAME, Settings).databases) {
      if (!existing.has(db)) await query(ctx, 'postgres', `CREATE DATABASE "${db}"`);
    }
  },
  async health(ctx) {
    try {
      const rows = await query<{ v: string }>(ctx, 'postgres', "SELECT current_setting('server_version') AS v");
      const v = rows[0]?.v ?? '?';
      return { ok: true, detail: `PostgreSQL ${v}`, serverVersion: v };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  },
  async stop(ctx) {
    // SIGINT = "fast" shutdown: disconnects clients instead of waiting for them (SIGTERM is "smart").
    await stopPid(ctx, NAME, 30_000, 'SIGINT');
  },
  endpoints(ctx) {
    return { url: `postgres://postgres@127.0.0.1:${ctx.port(NAME)}/` };
  },
};
