// The suites' shared Spark driver for the product's jobs (dev/verifier/spark_jobs_client.py in front of
// spark-submit, spark_jobs_server.py behind it), through the very command the e2e suites' `rewrite:`
// section holds (test/helpers/rewrite.ts), with a server of this suite's own: two jobs run on one
// driver JVM (not their own process's), Python workers and all, with the job's own settings and
// `stop()` leaving the driver up; a job killed with its process group takes the driver with it (the
// old JVM is gone before the next job, which runs on a new one); a job asking for a setting fixed at a
// JVM's start runs on its own spark-submit; the server, stopped, stops its driver. Needs the stack's
// verifier install (no running component).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '../../helpers/cli';
import { stackRewriteCommand } from '../../helpers/rewrite';
import { testStack } from '../../helpers/stack-env';

const env = { ...process.env, ...testStack() };
const PROBE = path.join(__dirname, 'spark_jobs_probe.py');
let dir = '';
let command: { command: string[]; env: Record<string, string> };

interface Result {
  jvm: number;
  pid: number;
  sum: number;
  shufflePartitions: string;
}

function result(stdout: string): Result {
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (line === undefined) throw new Error(`no RESULT line in:\n${stdout.slice(-3000)}`);
  return JSON.parse(line.slice('RESULT '.length)) as Result;
}

async function job(mode: string): Promise<{ code: number; out: Result; stderr: string }> {
  const [bin, ...args] = command.command;
  const r = await run(bin as string, [...args, PROBE, mode], 600_000, command.env);
  if (r.code !== 0) throw new Error(`probe ${mode} exited ${r.code}:\n${r.stderr.slice(-4000)}`);
  return { code: r.code, out: result(r.stdout), stderr: r.stderr };
}

function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  for (const t0 = Date.now(); !ok(); await new Promise((r) => setTimeout(r, 200)))
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-spark-jobs-'));
  command = stackRewriteCommand(env, { sharedDir: dir });
});

afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('the shared Spark driver for the suites jobs', () => {
  let first: Result;

  it('runs two jobs on one driver JVM, not their own, with their settings and the same answers', async () => {
    expect(command.command[1]).toMatch(/spark_jobs_client\.py$/);
    const a = await job('sum');
    const b = await job('sum');
    for (const r of [a, b]) {
      expect(r.out.sum).toBe(332_833_500); // sum of x*x for x < 1000, by Spark's Python workers
      expect(r.out.shufflePartitions).toBe('3'); // the job's own run-time setting
      expect(r.stderr).not.toContain('running spark-submit');
    }
    expect(b.out.jvm).toBe(a.out.jvm);
    expect(a.out.pid).not.toBe(b.out.pid);
    // The driver is not a child of the job: it is the server's, and outlives both jobs.
    expect(alive(a.out.jvm)).toBe(true);
    first = a.out;
  }, 900_000);

  it('kills the driver with a job killed with its process group; the next job gets a new one', async () => {
    const [bin, ...args] = command.command;
    const child = spawn(bin as string, [...args, PROBE, 'hang'], {
      env: { ...env, ...command.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.resume();
    await until('the hanging job started', () => out.includes('STARTED '), 300_000);
    const started = JSON.parse(out.split('STARTED ')[1]?.split('\n')[0] ?? '{}') as Result;
    expect(started.jvm).toBe(first.jvm);
    process.kill(-(child.pid as number), 'SIGKILL');
    await until('the killed job’s driver JVM is gone', () => !alive(started.jvm), 60_000);
    const next = await job('sum');
    expect(next.out.jvm).not.toBe(started.jvm);
    expect(next.out.sum).toBe(332_833_500);
  }, 900_000);

  it('runs a job that needs a setting fixed at the JVM start on its own spark-submit', async () => {
    const shared = await job('sum');
    const own = await job('static');
    expect(own.stderr).toContain('spark.sql.extensions');
    expect(own.stderr).toContain('running spark-submit');
    expect(own.out.jvm).not.toBe(shared.out.jvm);
    expect(alive(own.out.jvm)).toBe(false); // its own JVM ended with it
    expect(own.out.sum).toBe(332_833_500);
  }, 900_000);

  it('stops its driver when the server is stopped', async () => {
    const servers = (await run('sh', ['-c', `ls -d ${dir}/*/`])).stdout.trim().split('\n');
    expect(servers).toHaveLength(1);
    const server = servers[0] as string;
    const jvm = (JSON.parse(readFileSync(path.join(server, 'gateway.json'), 'utf8')) as { jvm: number }).jvm;
    expect(alive(jvm)).toBe(true);
    process.kill(Number(readFileSync(path.join(server, 'server.pid'), 'utf8').trim()), 'SIGTERM');
    await until(
      'the driver stopped with its server, its port file gone',
      () => !alive(jvm) && !existsSync(path.join(server, 'port')),
      60_000,
    );
    expect(alive(jvm)).toBe(false);
  }, 120_000);
});
