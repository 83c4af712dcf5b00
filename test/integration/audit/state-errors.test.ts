// State-DB connection refusals are coded with their remedy: a wrong password is
// STATE_DB_AUTH_FAILED and a missing database STATE_DB_NOT_FOUND (exit 1, --json error), never
// [INTERNAL]. The wrong password needs a server that checks passwords: the stack's Postgres trusts
// 127.0.0.1, so this test starts a private cluster with scram-sha-256 (same binaries, own port, own
// directory) and stops it at the end.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PostgresStateStore } from '../../../adapters/state/postgres';
import { MIGRATE, run } from '../../helpers/cli';
import { uniqueName } from '../../helpers/stack-env';
import { urlFor } from './fixture';

jest.setTimeout(180_000);

const PG_BIN = ['/usr/lib/postgresql/15/bin', '/usr/local/bin'].find((d) => existsSync(path.join(d, 'initdb'))) as string;
const PASSWORD = 'right-password-123';
const asPostgres = (cmd: string, args: string[]): [string, string[]] => [
  'setpriv',
  ['--reuid=postgres', '--regid=postgres', '--init-groups', '--reset-env', cmd, ...args],
];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

let dir = '';
let server: ChildProcess | undefined;
let port = 0;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-pgauth-'));
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, 'pw'), `${PASSWORD}\n`);
  execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const [c1, a1] = asPostgres(path.join(PG_BIN, 'initdb'), [
    '-D',
    path.join(dir, 'pgdata'),
    '-U',
    'postgres',
    '--auth=scram-sha-256',
    `--pwfile=${path.join(dir, 'pw')}`,
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
  ]);
  execFileSync(c1, a1, { stdio: 'ignore' });
  port = await freePort();
  const [c2, a2] = asPostgres(path.join(PG_BIN, 'postgres'), [
    '-D',
    path.join(dir, 'pgdata'),
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
  ]);
  server = spawn(c2, a2, { stdio: 'ignore' });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres` });
    const up = await c.connect().then(
      () => true,
      () => false,
    );
    await c.end().catch(() => undefined);
    if (up) break;
    if (Date.now() > deadline) throw new Error('private postgres did not start');
    await new Promise((r) => setTimeout(r, 300));
  }
});

afterAll(async () => {
  if (server?.pid !== undefined) {
    const exited = new Promise((r) => server?.once('exit', r));
    server.kill('SIGINT'); // fast shutdown
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

async function verifyWith(url: string): Promise<{ code: number; error: { code?: string; message?: string }; raw: string }> {
  const cfgDir = mkdtempSync(path.join(os.tmpdir(), 'him-pgauth-cfg-'));
  const cfg = path.join(cfgDir, 'migrate.yaml');
  writeFileSync(cfg, JSON.stringify({ state: { url } }));
  try {
    const r = await run(MIGRATE, ['audit', 'verify', '-c', cfg, '--json'], 120_000);
    const body = JSON.parse(r.stdout || '{}') as { error?: { code?: string; message?: string } };
    return { code: r.code, error: body.error ?? {}, raw: r.stdout + r.stderr };
  } finally {
    rmSync(cfgDir, { recursive: true, force: true });
  }
}

describe('state database refusals', () => {
  it('(g) a wrong password is STATE_DB_AUTH_FAILED, exit 1, naming the remedy and not the password', async () => {
    await expect(PostgresStateStore.open(`postgres://postgres:wrong-password@127.0.0.1:${port}/postgres`)).rejects.toMatchObject({
      code: 'STATE_DB_AUTH_FAILED',
      retryable: false,
    });
    const r = await verifyWith(`postgres://postgres:wrong-password@127.0.0.1:${port}/postgres`);
    expect(r.code).toBe(1);
    expect(r.error).toMatchObject({ code: 'STATE_DB_AUTH_FAILED', message: expect.stringContaining('state.url') });
    expect(r.raw).not.toContain('wrong-password');
    // The right password opens it: the refusal was the password, not the server.
    const ok = await PostgresStateStore.open(`postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`);
    await ok.close();
  });

  it('(g) a database that does not exist is STATE_DB_NOT_FOUND, exit 1, naming the database', async () => {
    const db = uniqueName('himnodb').toLowerCase();
    const r = await verifyWith(urlFor(db));
    expect(r.code).toBe(1);
    expect(r.error).toMatchObject({ code: 'STATE_DB_NOT_FOUND', message: expect.stringContaining(`/${db} does not exist`) });
    await expect(PostgresStateStore.open(`postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${db}`)).rejects.toMatchObject({
      code: 'STATE_DB_NOT_FOUND',
    });
  });

  it('(g) a role that does not exist (pg_hba trust) is STATE_DB_AUTH_FAILED too', async () => {
    const u = new URL(urlFor('postgres'));
    u.username = uniqueName('nobody').toLowerCase();
    await expect(PostgresStateStore.open(u.toString())).rejects.toMatchObject({ code: 'STATE_DB_AUTH_FAILED' });
  });
});
