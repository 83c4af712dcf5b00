// Process, port, cache and pid helpers shared by every stack component. Dev tooling.
import { spawn, execFile } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { promises as fs, openSync, closeSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { StackContext } from './types';

export class StackError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StackError';
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** LEAN_JVM's JIT half alone (for a JVM whose launcher already chooses its GC). */
export const LEAN_JIT = '-XX:TieredStopAtLevel=1';

/**
 * JIT and GC flags for the stack's service JVMs (the HMS and their schematool, the REST catalog, Trino;
 * Keycloak takes the JIT half): C1 only, serial GC. They live for one test run on two shared cores,
 * where C2's compilations and G1's concurrent threads cost more CPU than their faster code saves.
 * Measured (CPU s, default → these): four HMS start 20.1 → 10.3 and serve the parity + plan suites
 * 23.3 → 11.6 (suites 35 → 29 s); the REST catalog 1.3 → 0.9 and 3.7 → 2.1 for rest-views +
 * seeded-rest (31 → 27 s); Trino start 17.0 → 8.7, trino-readback 23.2 → 12.5 (30 → 25 s), idle
 * 5.4 → 3.1 a minute; Keycloak start 30.4 → 18.3. Not the long-lived Spark verifier
 * (dev/verifier/spark_worker.py): alone its start and reads took 30-40 % less CPU, but it serves every
 * suite's Spark reads one at a time, and in a whole run with it the suites reading through Spark took
 * 20-35 s longer each (readback, field-ids-roundtrip, views-spark-check, seeded-rest).
 */
export const LEAN_JVM: readonly string[] = [LEAN_JIT, '-XX:+UseSerialGC'];

/** Run a command to completion; on failure throw with the tail of its output. */
export async function run(
  cmd: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; logTo?: string; timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      [...args],
      {
        env: { ...process.env, ...opts.env },
        cwd: opts.cwd,
        maxBuffer: 256 * 1024 * 1024,
        timeout: opts.timeoutMs ?? 0,
      },
      (err, stdout, stderr) => {
        const out = `${stdout}${stderr}`;
        const done = opts.logTo
          ? fs.appendFile(opts.logTo, `$ ${cmd} ${args.join(' ')}\n${out}\n`).catch(() => undefined)
          : Promise.resolve();
        void done.then(() => {
          if (err) {
            const tail = out.split('\n').slice(-25).join('\n');
            reject(new StackError('COMMAND_FAILED', `${cmd} ${args.join(' ')} failed: ${err.message}\n${tail}`));
          } else resolve(stdout);
        });
      },
    );
  });
}

/** Whether an executable is on PATH. */
export async function which(cmd: string): Promise<string | undefined> {
  try {
    return (await run('bash', ['-c', `command -v ${cmd}`])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Install `name@version` once into `<cache>/<name>-<version>`: a directory lock serialises
 * concurrent installers (two stacks, two clones), the work happens in a temp dir that is renamed
 * into place, and a `.complete` marker makes a half-finished install invisible.
 * `inPlace` builds in the final directory instead (still under the lock, marker written last):
 * for contents that record their own absolute path, such as a Python venv.
 */
export async function cachedInstall(
  ctx: StackContext,
  name: string,
  version: string,
  build: (tmpDir: string) => Promise<void>,
  opts: { inPlace?: boolean } = {},
): Promise<string> {
  const dir = path.join(ctx.cacheDir, `${name}-${version}`);
  const marker = path.join(dir, '.complete');
  if (existsSync(marker)) return dir;
  await fs.mkdir(ctx.cacheDir, { recursive: true });
  const lock = `${dir}.lock`;
  await acquireLock(lock);
  try {
    if (existsSync(marker)) return dir;
    const tmp = opts.inPlace ? dir : `${dir}.tmp-${process.pid}`;
    await fs.rm(tmp, { recursive: true, force: true });
    await fs.mkdir(tmp, { recursive: true });
    const t0 = Date.now();
    ctx.log(`installing ${name} ${version} into ${dir} ...`);
    await build(tmp);
    await fs.writeFile(path.join(tmp, '.complete'), `${new Date().toISOString()}\n`);
    if (tmp !== dir) {
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rename(tmp, dir);
    }
    ctx.log(`installed ${name} ${version} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return dir;
  } finally {
    await fs.rm(lock, { recursive: true, force: true });
  }
}

async function acquireLock(lock: string): Promise<void> {
  for (;;) {
    try {
      await fs.mkdir(lock);
      await fs.writeFile(path.join(lock, 'pid'), String(process.pid));
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(await fs.readFile(path.join(lock, 'pid'), 'utf8').catch(() => '0'));
      if (owner > 0 && !isAlive(owner)) {
        await fs.rm(lock, { recursive: true, force: true });
        continue;
      }
      await sleep(1000);
    }
  }
}

export function pidFile(ctx: StackContext, name: string): string {
  return path.join(ctx.stateDir, 'run', `${name}.pid`);
}

export function logFile(ctx: StackContext, name: string): string {
  return path.join(ctx.stateDir, 'logs', `${name}.log`);
}

export function dataDir(ctx: StackContext, name: string): string {
  return path.join(ctx.stateDir, 'data', name);
}

export async function writePid(ctx: StackContext, name: string, pid: number): Promise<void> {
  await fs.mkdir(path.dirname(pidFile(ctx, name)), { recursive: true });
  await fs.writeFile(pidFile(ctx, name), `${pid}\n`);
}

export function readPid(ctx: StackContext, name: string): number | undefined {
  try {
    const pid = Number(readFileSync(pidFile(ctx, name), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid from the pid file when that process is still running. */
export function runningPid(ctx: StackContext, name: string): number | undefined {
  const pid = readPid(ctx, name);
  return pid !== undefined && isAlive(pid) ? pid : undefined;
}

/**
 * Start a long-running server detached from us (own process group, output to its log file),
 * record its pid, and return it. The caller then waits for health.
 */
export async function spawnDaemon(
  ctx: StackContext,
  name: string,
  cmd: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<number> {
  const log = logFile(ctx, name);
  await fs.mkdir(path.dirname(log), { recursive: true });
  const fd = openSync(log, 'a');
  try {
    const child = spawn(cmd, [...args], {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, ...opts.env },
      cwd: opts.cwd,
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('error', (e) => reject(new StackError('SPAWN_FAILED', `${name}: cannot start ${cmd}: ${e.message}`)));
      child.once('spawn', () => resolve(child.pid ?? -1));
    });
    child.unref();
    await writePid(ctx, name, pid);
    return pid;
  } finally {
    closeSync(fd);
  }
}

/** Signal the process (and its group; SIGTERM by default), wait, then SIGKILL. Removes the pid file. */
export async function stopPid(ctx: StackContext, name: string, graceMs = 20_000, sig: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const pid = readPid(ctx, name);
  if (pid !== undefined && isAlive(pid)) {
    signal(pid, sig);
    const until = Date.now() + graceMs;
    while (isAlive(pid) && Date.now() < until) await sleep(100);
    if (isAlive(pid)) {
      ctx.log(`${name}: pid ${pid} ignored SIGTERM for ${graceMs} ms, sending SIGKILL`);
      signal(pid, 'SIGKILL');
      while (isAlive(pid)) await sleep(50);
    }
  }
  await fs.rm(pidFile(ctx, name), { force: true });
}

function signal(pid: number, sig: NodeJS.Signals): void {
  // Our daemons lead their own process group (detached): signal the group so wrappers take
  // their children with them; fall back to the pid alone.
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

/** Poll `probe` until it returns true or the deadline passes; then throw naming the log. */
export async function waitFor(
  ctx: StackContext,
  name: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  pid?: number,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (pid !== undefined && !isAlive(pid)) {
      throw new StackError('START_FAILED', `${name} exited during start-up; see ${logFile(ctx, name)}\n${tailOf(logFile(ctx, name))}`);
    }
    if (Date.now() > until) {
      throw new StackError(
        'START_TIMEOUT',
        `${name} not healthy after ${timeoutMs / 1000} s; see ${logFile(ctx, name)}\n${tailOf(logFile(ctx, name))}`,
      );
    }
    await sleep(250);
  }
}

function tailOf(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function tcpOpen(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** True when we could bind 127.0.0.1:port right now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ host: '127.0.0.1', port, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** A loopback port free right now, probed upwards from a random one in 20000..39999 (for a short-lived server of our own). */
export async function freePort(): Promise<number> {
  for (let p = 20_000 + Math.floor(Math.random() * 20_000); p < 65_000; p++) if (await portFree(p)) return p;
  throw new StackError('PORT_BUSY', 'no free loopback port found above 20000');
}

/**
 * Refuse to start on a busy port: a clear error naming the component and the variable that moves
 * the port, never a silent second instance or a client talking to someone else's server.
 */
export async function assertPortsFree(ctx: StackContext, component: string): Promise<void> {
  const ports = ctx.manifest.components[component]?.ports ?? {};
  for (const name of Object.keys(ports)) {
    const port = ctx.port(component, name);
    if (!(await portFree(port)) || (await tcpOpen(port, 300))) {
      throw new StackError(
        'PORT_BUSY',
        `${component}: port ${port} (${name}) on 127.0.0.1 is already in use by another process. ` +
          `Stop that process, or move this component with ${ctx.portEnv(component, name)}=<port> ` +
          `(or shift every port with HIM_PORT_OFFSET=<n>).`,
      );
    }
  }
}

/** GET a URL with a timeout; resolves status + body text. */
export async function httpGet(
  url: string,
  timeoutMs = 2000,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers });
  return { status: res.status, body: await res.text() };
}
