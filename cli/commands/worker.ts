// `migrate worker`: a Temporal worker for the migration workflows and/or the per-table activities.
import os from 'node:os';
import type { Command } from 'commander';
import { Option } from 'commander';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ErrorCode, MigrationError } from '../../core/errors';
import { workerActivities } from '../../activities/index';
import { createEngine } from '../../engine/engine';
import { targetConfigOf } from '../../core/plan/target';
import { footerThreadsOnEveryCpu, sharedFooterThreads } from '../../adapters/formats/footer-threads';
import type { MigrateConfig } from '../../core/config/schema';
import { ExitCode } from '../exit-codes';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import { openCatalog, openHmsReader, openState, openStores, toolVersion } from '../runtime';

type Role = 'all' | 'workflows' | 'activities';
type Closer = () => Promise<unknown> | void;

const HELP = `
Examples:
  migrate worker -c migrate.yaml
  migrate worker -c migrate.yaml --role activities --concurrency 32   # more activity processes, one workflow process

Stops on SIGINT/SIGTERM after in-flight activities are handed back.
Workflow tasks are short but latency-bound; the activities are CPU-bound (footer decoding). In one
process they share one event loop, and workflow tasks wait behind activity work; with --role the two
can run in separate processes (or hosts) on the same task queue.

Exit codes: 0 stopped by a signal; 1 Temporal or the state DB unreachable; 2 bad flag or configuration.`;

async function activitiesFor(config: MigrateConfig, closers: Closer[]): Promise<ReturnType<typeof workerActivities>> {
  const stores = openStores(config);
  closers.push(() => stores.close());
  const state = await openState(config);
  closers.push(() => state.close());
  const catalog = await openCatalog(config, process.env, stores);
  const hms = openHmsReader(config);
  closers.push(() => hms.close(), async () => catalog.close?.());
  return workerActivities({
    state,
    hms,
    catalog,
    engine: createEngine(),
    storeFor: stores.storeFor,
    namespacePrefix: config.catalog?.namespacePrefix ?? '',
    actor: `worker:${os.hostname()}:${process.pid}`,
    toolVersion: toolVersion(),
    resultsLocation: config.validation?.resultsLocation,
    // Apply re-checks each table with this worker's own assessment options and target (issue 18).
    assessOptions: { allowUnbucketed: config.plan?.assess.allowUnbucketed ?? false },
    targetConfig: targetConfigOf(config),
  });
}

async function connect(address: string): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect({ address });
  } catch (e) {
    throw new MigrationError(ErrorCode.TEMPORAL_UNREACHABLE, `cannot reach Temporal at ${address}: ${(e as Error).message}`, { address }, { cause: e });
  }
}

async function runWorker(config: MigrateConfig, opts: { concurrency: number; role: Role; json?: boolean }, io: IO): Promise<void> {
  const t = config.temporal;
  if (t === undefined) throw new MigrationError(ErrorCode.CONFIG_INVALID, 'temporal is not configured', { path: 'temporal' });
  const withActivities = opts.role !== 'workflows';
  // No workflow tasks here: footer threads may take every CPU.
  if (opts.role === 'activities') footerThreadsOnEveryCpu();
  // Footer threads boot now, not inside the first conversion.
  if (withActivities) sharedFooterThreads();
  const closers: Closer[] = [];
  try {
    const activities = withActivities ? await activitiesFor(config, closers) : undefined;
    const connection = await connect(t.address);
    closers.push(() => connection.close());
    const worker = await Worker.create({
      connection,
      namespace: t.namespace,
      taskQueue: t.taskQueue,
      ...(opts.role !== 'activities' ? { workflowsPath: require.resolve('../../workflows/index') } : {}),
      ...(activities !== undefined ? { activities, maxConcurrentActivityTaskExecutions: opts.concurrency } : {}),
    });
    const started = { ok: true, role: opts.role, taskQueue: t.taskQueue, address: t.address, namespace: t.namespace, concurrency: opts.concurrency };
    if (opts.json) io.out(`${JSON.stringify(started)}\n`);
    else io.err(`worker (${opts.role}) polling ${t.taskQueue} on ${t.address} (namespace ${t.namespace})\n`);
    await worker.run();
  } finally {
    await Promise.allSettled(closers.reverse().map(async (c) => c()));
  }
}

export function registerWorker(program: Command, io: IO): void {
  const c = FLAG_RANGES.workerConcurrency;
  program
    .command('worker')
    .description('run a Temporal worker: the migration workflows and the per-table activities')
    .option('--concurrency <n>', `activities at once (${c.min}-${c.max})`, intFlag('--concurrency', c), 16)
    .addOption(new Option('--role <role>', 'what this process runs: both (default), only the workflows, or only the activities').choices(['all', 'workflows', 'activities']).default('all'))
    .option('--json', 'the start-up line as JSON on stdout; errors as JSON')
    .addHelpText('after', HELP)
    .action(async (opts: { concurrency: number; role: Role; json?: boolean }, cmd: Command) => {
      await runWorker(configOf(cmd), opts, io);
      io.setExit(ExitCode.OK);
    });
}
