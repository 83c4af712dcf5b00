// The verifier's fork server (dev/verifier/pyfork_server.py, run by the stack's `verifier` component)
// and its client (dev/verifier/pyfork.py, used through dev/seed/python.ts verifierCommand): a script
// run through it answers what `python script.py` answers (stdout, stderr, exit status, arguments,
// environment, directory, stdin, an uncaught exception's traceback, a signal), a `-c` program too; an
// environment the preloaded modules read at import gets a fresh interpreter; without the server the
// client runs the interpreter itself; a client killed mid-run takes its script (and what it started)
// with it; a client that stalls mid-request holds up the others 10 s at most. Needs the local stack's
// verifier.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { verifierCommand } from '../../../dev/seed/python';
import { isAlive } from '../../../dev/stack/util';
import { testStack } from '../../helpers/stack-env';

const env = { ...process.env, ...testStack() } as NodeJS.ProcessEnv;
const PYTHON = env.HIM_VERIFIER_PYTHON as string;
const SOCKET = env.HIM_VERIFIER_PYFORK as string;
const LOG = path.join(env.HIM_STATE_DIR as string, 'logs', 'verifier.log');

interface Out {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runWith(file: string, argv: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<Out> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, argv, { env: o.env ?? env, cwd: o.cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      const e = err as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
      if (e && typeof e.code === 'string') return reject(e);
      resolve({ code: e ? ((e.code as number | undefined) ?? null) : 0, signal: e?.signal ?? null, stdout, stderr });
    });
    child.stdin?.end(o.input ?? '');
  });
}

const viaFork = (args: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<Out> => {
  const [file, argv] = verifierCommand(PYTHON, args, o.env ?? env);
  expect(argv).toContain('--socket');
  return runWith(file, argv, o);
};
const direct = (args: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<Out> =>
  runWith(PYTHON, args, o);
const forked = (): number => (readFileSync(LOG, 'utf8').match(/^pyfork: /gm) ?? []).length;

describe('the verifier fork server', () => {
  let dir: string;
  const script = (): string => path.join(dir, 'probe.py');

  beforeAll(() => {
    expect(SOCKET).toBeTruthy();
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-pyfork-'));
    writeFileSync(
      script(),
      [
        'import json, os, sys',
        'import pyarrow as pa',
        'data = sys.stdin.read()',
        'print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "var": os.environ.get("PYFORK_PROBE"),',
        '                  "path0": sys.path[0], "stdin": data, "name": __name__, "rows": pa.table({"a": [1, 2]}).num_rows}))',
        'print("to stderr", file=sys.stderr)',
        'if len(sys.argv) > 1 and sys.argv[1] == "raise": raise ValueError("boom")',
        'if len(sys.argv) > 1 and sys.argv[1] == "kill": os.kill(os.getpid(), 15)',
        'sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0)',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers what python answers: output, exit status, argv, environment, directory, stdin, traceback, signal', async () => {
    const before = forked();
    const o = { env: { ...env, PYFORK_PROBE: 'x y' }, cwd: dir, input: 'line one\n' };
    for (const args of [
      [script(), '7', 'b c'],
      [script(), 'raise'],
      [script(), 'kill'],
    ]) {
      const [a, b] = [await viaFork(args, o), await direct(args, o)];
      expect(a).toEqual(b);
    }
    const ok = await viaFork([script(), '0'], o);
    expect(JSON.parse(ok.stdout)).toEqual({
      argv: ['0'],
      cwd: dir,
      var: 'x y',
      path0: dir,
      stdin: 'line one\n',
      name: '__main__',
      rows: 2,
    });
    const c = ['-c', 'import sys; print(sys.argv, repr(sys.path[0])); sys.exit("bye")', 'p', 'q'];
    expect(await viaFork(c)).toEqual(await direct(c));
    expect((await viaFork(c)).stderr).toBe('bye\n');
    // The six runs through the client above were forked by the server (one line of its log each).
    expect(forked() - before).toBe(6);
  }, 120_000);

  it('a fresh interpreter when the environment the preloaded modules read differs; itself when there is no server', async () => {
    const before = forked();
    const fresh = await viaFork([script(), '3'], { env: { ...env, PYICEBERG_HOME: dir }, cwd: dir });
    expect([fresh.code, JSON.parse(fresh.stdout).rows]).toEqual([3, 2]);
    const own = await viaFork([script(), '4'], { env: { ...env, HIM_VERIFIER_PYFORK: path.join(dir, 'no.sock') }, cwd: dir });
    expect([own.code, JSON.parse(own.stdout).argv]).toEqual([4, ['4']]);
    // The first was forked, then exec'd a fresh interpreter; the second never reached the server.
    expect(forked() - before).toBe(1);
  }, 120_000);

  it('a client that stalls mid-request is dropped after 10 s; the next request is served', async () => {
    const stalled = createConnection({ path: SOCKET });
    const closed = new Promise<number>((resolve) => stalled.once('close', () => resolve(Date.now())));
    await new Promise((r) => stalled.once('connect', r));
    const t0 = Date.now();
    stalled.write(Buffer.from([0, 0])); // half of the length header, no descriptors, then nothing
    const next = await viaFork([script(), '0'], { cwd: dir });
    expect(next.code).toBe(0);
    const closedAt = await closed;
    expect(closedAt - t0).toBeGreaterThanOrEqual(9_000);
    expect(closedAt - t0).toBeLessThan(20_000);
  }, 60_000);

  it('a client killed mid-run takes its script and what the script started with it', async () => {
    const pidFile = path.join(dir, 'pids');
    const body = `import os, subprocess, time\np = subprocess.Popen(["sleep", "300"])\nopen(${JSON.stringify(pidFile)}, "w").write(f"{os.getpid()} {p.pid}")\ntime.sleep(300)\n`;
    const [file, argv] = verifierCommand(PYTHON, ['-c', body], env);
    const client = spawn(file, argv, { env, stdio: 'ignore' });
    let pids: number[] = [];
    for (let i = 0; i < 200 && pids.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      try {
        pids = readFileSync(pidFile, 'utf8').split(' ').map(Number);
      } catch {
        // not yet written
      }
    }
    expect(pids).toHaveLength(2);
    client.kill('SIGTERM');
    for (let i = 0; i < 100 && pids.some(isAlive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pids.map(isAlive)).toEqual([false, false]);
  }, 60_000);
});
