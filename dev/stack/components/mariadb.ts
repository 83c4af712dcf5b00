// Private MariaDB instance (Debian package): the second HMS backing database. Data in the state dir.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { createConnection } from 'mysql2/promise';
import { z } from 'zod';
import type { Component, StackContext } from '../types';
import { settings } from '../manifest';
import { aptEnsure } from '../installers';
import { assertPortsFree, dataDir, logFile, run, spawnDaemon, stopPid, waitFor } from '../util';

const NAME = 'mariadb';
const Settings = z.object({ aptPackages: z.array(z.string()), databases: z.array(z.string()) });

const paths = (ctx: StackContext): { data: string; sock: string; pidf: string } => {
  const root = dataDir(ctx, NAME);
  return { data: path.join(root, 'db'), sock: path.join(root, 'mariadb.sock'), pidf: path.join(root, 'mariadbd.pid') };
};

export const component: Component = {
  name: NAME,
  async install(ctx) {
    await aptEnsure(ctx, '/usr/sbin/mariadbd', settings(ctx, NAME, Settings).aptPackages);
  },
  async start(ctx) {
    await assertPortsFree(ctx, NAME);
    const p = paths(ctx);
    const fresh = !existsSync(path.join(p.data, 'mysql'));
    if (fresh) {
      await fs.mkdir(p.data, { recursive: true });
      await run(
        'mariadb-install-db',
        ['--no-defaults', `--datadir=${p.data}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db'],
        {
          logTo: logFile(ctx, NAME),
        },
      );
    }
    // A socket left by a server that died uncleanly (host reboot) would pass the wait below while
    // nothing listens on it; the port is free (checked above), so no server owns it.
    await fs.rm(p.sock, { force: true });
    const pid = await spawnDaemon(ctx, NAME, '/usr/sbin/mariadbd', [
      '--no-defaults',
      `--datadir=${p.data}`,
      `--port=${ctx.port(NAME)}`,
      '--bind-address=127.0.0.1',
      `--socket=${p.sock}`,
      `--pid-file=${p.pidf}`,
      '--user=root',
      '--skip-name-resolve',
      '--innodb-flush-log-at-trx-commit=2',
      '--character-set-server=utf8mb4',
    ]);
    await waitFor(ctx, NAME, async () => existsSync(p.sock), 60_000, pid);
    // root@localhost exists (socket); grant root@127.0.0.1 so TCP clients (HMS, tests) get in.
    const dbs = settings(ctx, NAME, Settings)
      .databases.map((d) => `CREATE DATABASE IF NOT EXISTS \`${d}\`;`)
      .join(' ');
    await run('mariadb', [
      '--no-defaults',
      '-S',
      p.sock,
      '-u',
      'root',
      '-e',
      `CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; ${dbs}`,
    ]);
    await waitFor(ctx, NAME, async () => (await this.health(ctx)).ok, 30_000, pid);
  },
  async health(ctx) {
    try {
      const c = await createConnection({ host: '127.0.0.1', port: ctx.port(NAME), user: 'root', connectTimeout: 2000 });
      try {
        const [rows] = await c.query('SELECT VERSION() AS v');
        const v = (rows as Array<{ v: string }>)[0]?.v ?? '?';
        return { ok: true, detail: `MariaDB ${v}`, serverVersion: v };
      } finally {
        await c.end();
      }
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  },
  async stop(ctx) {
    await stopPid(ctx, NAME, 30_000);
  },
  endpoints(ctx) {
    return { url: `mysql://root@127.0.0.1:${ctx.port(NAME)}/` };
  },
};
