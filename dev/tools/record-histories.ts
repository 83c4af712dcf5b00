// Saves the event histories of one plan's workflows (migration, waves, a few tables, a rollback)
// from the dev server into test/fixtures/histories/, for the replay test (test/workflows/replay).
// Run after a real apply: npx tsx dev/tools/record-histories.ts <plan-id> [--out dir] [--name-prefix p-]
// (a name prefix keeps the histories of an older workflow version next to the new ones).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

async function main(): Promise<void> {
  const id = process.argv[2];
  if (id === undefined) throw new Error('usage: record-histories.ts <plan-id> [--out dir]');
  const outIdx = process.argv.indexOf('--out');
  const out = outIdx > 0 ? (process.argv[outIdx + 1] as string) : path.join(__dirname, '..', '..', 'test', 'fixtures', 'histories');
  const pIdx = process.argv.indexOf('--name-prefix');
  const namePrefix = pIdx > 0 ? (process.argv[pIdx + 1] as string) : '';
  mkdirSync(out, { recursive: true });
  const address = process.env.HIM_TEMPORAL_ADDRESS;
  if (address === undefined) throw new Error('set HIM_TEMPORAL_ADDRESS (eval "$(npm run -s stack -- env)")');
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const kinds = new Map<string, number>();
  const save = async (workflowId: string, runId: string, name: string): Promise<void> => {
    const file = path.join(out, `${namePrefix}${name}.json`);
    writeFileSync(file, historyToJSON(await client.workflow.getHandle(workflowId, runId).fetchHistory()));
    process.stdout.write(`${file}\n`);
  };
  for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH 'migrate/${id}' AND ExecutionStatus = 'Completed'` })) {
    // Paths worth keeping besides the plain ones: a compensated failure and a view.
    const kind =
      w.type !== 'tableWorkflow'
        ? null
        : w.workflowId.endsWith('visits_skewed')
          ? 'failed-compensated'
          : /\.v_[a-z_]+$/.test(w.workflowId)
            ? 'view-skipped'
            : null;
    if (kind !== null && !kinds.has(kind)) {
      kinds.set(kind, 1);
      await save(w.workflowId, w.runId, `${w.type}-${kind}`);
      continue;
    }
    const n = kinds.get(w.type) ?? 0;
    if (n >= 3) continue;
    kinds.set(w.type, n + 1);
    await save(w.workflowId, w.runId, `${w.type}-${n}`);
  }
  await connection.close();
}

void main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(1);
});
