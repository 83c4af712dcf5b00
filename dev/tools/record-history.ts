// Saves the event history of one workflow (latest run, any status) into test/fixtures/histories/,
// for the replay test: npx tsx dev/tools/record-history.ts <workflow-id> <name> [--out dir].
// record-histories.ts saves a whole completed plan; this one keeps a single failure shape
// (a cancelled wave, a wave whose child was terminated, a compensated cancellation).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

async function main(): Promise<void> {
  const [workflowId, name] = process.argv.slice(2);
  if (workflowId === undefined || name === undefined) throw new Error('usage: record-history.ts <workflow-id> <name> [--out dir]');
  const outIdx = process.argv.indexOf('--out');
  const out = outIdx > 0 ? (process.argv[outIdx + 1] as string) : path.join(__dirname, '..', '..', 'test', 'fixtures', 'histories');
  const address = process.env.HIM_TEMPORAL_ADDRESS;
  if (address === undefined) throw new Error('set HIM_TEMPORAL_ADDRESS (eval "$(npm run -s stack -- env)")');
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const file = path.join(out, `${name}.json`);
  writeFileSync(file, historyToJSON(await client.workflow.getHandle(workflowId).fetchHistory()));
  process.stdout.write(`${file}\n`);
  await connection.close();
}

void main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(1);
});
