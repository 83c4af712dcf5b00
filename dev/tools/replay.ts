// Replays recorded workflow histories (JSON files) against a workflows module and prints one JSON
// line per history: {file, ok, error?}. Used by test/workflows/replay.test.ts (in a child process:
// the SDK's protobuf JSON decoding does not survive jest's module registry) and by hand:
//   npx tsx dev/tools/replay.ts <workflows-module> <history.json>...
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';

async function main(): Promise<void> {
  const [mod, ...files] = process.argv.slice(2);
  if (mod === undefined || files.length === 0) throw new Error('usage: replay.ts <workflows-module> <history.json>...');
  const workflowsPath = require.resolve(path.resolve(mod));
  let failed = 0;
  for (const file of files) {
    const history = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    try {
      await Worker.runReplayHistory({ workflowsPath, replayName: path.basename(file) }, history as never);
      process.stdout.write(`${JSON.stringify({ file: path.basename(file), ok: true })}\n`);
    } catch (e) {
      failed++;
      process.stdout.write(
        `${JSON.stringify({ file: path.basename(file), ok: false, error: `${(e as Error).name}: ${(e as Error).message}` })}\n`,
      );
    }
  }
  process.exitCode = failed === 0 ? 0 : 1;
}

void main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(2);
});
