// The stack's own contract, on a second, private stack (own state dir, shifted ports) so the shared
// one is untouched: `status` reports version/port/pid/health, `up` is idempotent, a busy port is a
// clear error naming the variable that moves it, and `down` leaves no process of ours running.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(__dirname, '..', '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const stateDir = mkdtempSync(path.join(os.tmpdir(), 'him-lifecycle-'));
// Shifted ports stay below the kernel's ephemeral range (32768+ on Linux): there an outgoing
// connection of any other test may hold the port for a moment, which made `up` fail with PORT_BUSY
// in CI. The offset is also chosen so that every port this file uses is free when it starts.
let offset = 0;
const env: NodeJS.ProcessEnv = { ...process.env, HIM_STATE_DIR: stateDir };
for (const k of Object.keys(env)) if (/^HIM_[A-Z_]+_PORT$/.test(k)) delete env[k];

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function pickOffset(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const o = 3_000 + Math.floor(Math.random() * 400);
    const ports = [9000 + o, 9000 + o + 1, 15432 + o, 13306 + o];
    if (Math.max(...ports) >= 32768) throw new Error('lifecycle offset would reach the ephemeral port range');
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return o;
  }
  throw new Error('no free port offset for the private stack after 50 tries');
}

async function stack(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(tsx, [path.join(root, 'dev/stack/main.ts'), ...args], { env, cwd: root, maxBuffer: 16 << 20 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

interface Row {
  name: string;
  version: string;
  ports: Record<string, number>;
  pid: number | null;
  running: boolean;
  health: { ok: boolean; detail: string };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every live process whose command line or cwd mentions our private state dir. */
function processesUsing(dir: string): string[] {
  const hits: string[] = [];
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(dir)) hits.push(`${p}: ${cmd}`);
    } catch {
      /* gone */
    }
  }
  return hits;
}

describe('stack lifecycle (private stack)', () => {
  const components = ['s3', 'postgres', 'mariadb'];
  let pids: number[] = [];

  beforeAll(async () => {
    offset = await pickOffset();
    env.HIM_PORT_OFFSET = String(offset);
  });

  afterAll(async () => {
    await stack('down');
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('up starts each component healthy and status reports version, port, pid, health', async () => {
    const upRun = await stack('up', ...components);
    expect(upRun.stderr + upRun.stdout).not.toMatch(/PORT_BUSY/);
    expect(upRun.code).toBe(0);
    const st = await stack('status', '--json', ...components);
    expect(st.code).toBe(0);
    const rows = JSON.parse(st.stdout) as Row[];
    expect(rows.map((r) => r.name).sort()).toEqual([...components].sort());
    for (const r of rows) {
      expect(r.health.ok).toBe(true);
      expect(r.running).toBe(true);
      expect(typeof r.pid).toBe('number');
      expect(alive(r.pid as number)).toBe(true);
      expect(r.version).not.toBe('');
      expect(r.ports.main).toBeGreaterThan(offset);
    }
    expect(rows.find((r) => r.name === 'postgres')?.ports.main).toBe(15432 + offset);
    pids = rows.map((r) => r.pid as number);
    // The text form has one line per component with its port and pid.
    const text = await stack('status', ...components);
    for (const r of rows) expect(text.stdout).toMatch(new RegExp(`^${r.name}\\s+\\S+\\s+${r.ports.main}\\s+${r.pid}\\s+healthy`, 'm'));
  });

  it('a second up is a no-op: same pids', async () => {
    const again = await stack('up', ...components);
    expect(again.code).toBe(0);
    const rows = JSON.parse((await stack('status', '--json', ...components)).stdout) as Row[];
    expect(rows.map((r) => r.pid)).toEqual(pids);
  });

  it('a busy port is a clear error naming the component and the variable that moves it', async () => {
    const port = 9000 + offset + 1;
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    try {
      const dir2 = mkdtempSync(path.join(os.tmpdir(), 'him-busy-'));
      const r = await promisify(execFile)(tsx, [path.join(root, 'dev/stack/main.ts'), 'up', 's3'], {
        env: { ...env, HIM_STATE_DIR: dir2, HIM_S3_PORT: String(port) },
        cwd: root,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
      rmSync(dir2, { recursive: true, force: true });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('PORT_BUSY');
      expect(r.stderr).toContain(`s3: port ${port}`);
      expect(r.stderr).toContain('HIM_S3_PORT');
    } finally {
      blocker.close();
    }
  });

  it('down stops every process it started and leaves none of ours running', async () => {
    const d = await stack('down');
    expect(d.code).toBe(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(processesUsing(stateDir)).toEqual([]);
    const st = await stack('status', '--json', ...components);
    expect(st.code).toBe(1);
    expect((JSON.parse(st.stdout) as Row[]).every((r) => !r.running && r.pid === null)).toBe(true);
  });
});
