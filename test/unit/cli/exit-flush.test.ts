// The CLI's one exit point waits for stdout and stderr to flush: to a pipe Node writes
// asynchronously, and `process.exit` right after a large write cut it (a 1,000-table
// `migrate status --json | jq` got the first 128 KiB). A child writes 2 MiB to each and exits
// through exitAfterFlush with code 3; the parent, reading both pipes slowly, gets every byte.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, TSX } from '../../helpers/cli';

const BYTES = 2 << 20;

it('a large write to a slow pipe arrives whole, then the exit code', async () => {
  const script = `const { exitAfterFlush } = require(${JSON.stringify(path.join(ROOT, 'cli/main.ts'))});
process.stdout.write('o'.repeat(${BYTES}));
process.stderr.write('e'.repeat(${BYTES}));
exitAfterFlush(3);`;
  const child = spawn(TSX, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = 0;
  let err = 0;
  // Read slowly: pause each pipe after every chunk, so the child's writes outrun the reader.
  child.stdout.on('data', (d: Buffer) => {
    out += d.length;
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 2);
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.length;
    child.stderr.pause();
    setTimeout(() => child.stderr.resume(), 2);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  expect([code, out, err]).toEqual([3, BYTES, BYTES]);
}, 120_000);

it("a reader that goes away (| head: EPIPE) still ends the process with the command's code", async () => {
  const script = `const { exitAfterFlush } = require(${JSON.stringify(path.join(ROOT, 'cli/main.ts'))});
process.stdout.write('o'.repeat(${BYTES}));
exitAfterFlush(3);`;
  const child = spawn(TSX, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  expect([code, err]).toEqual([3, '']);
}, 120_000);
