// `migrate worker`: a Temporal worker for the migration workflows and/or the per-table activities
// (assembled by app/worker.ts).
import type { Command } from 'commander';
import { Option } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { WorkerRole } from '../../app/worker';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';

const HELP = `
Examples:
  migrate worker -c migrate.yaml
  migrate worker -c migrate.yaml --role activities --concurrency 32   # more activity processes, one workflow process

Stops on SIGINT/SIGTERM after in-flight activities are handed back.
Workflow tasks are short but latency-bound; the activities are CPU-bound (footer decoding). In one
process they share one event loop, and workflow tasks wait behind activity work; with --role the two
can run in separate processes (or hosts) on the same task queue.

${exitHelp('worker')}`;

export function registerWorker(program: Command, io: IO): void {
  const c = FLAG_RANGES.workerConcurrency;
  program
    .command('worker')
    .description('run a Temporal worker: the migration workflows and the per-table activities')
    .option('--concurrency <n>', `activities at once (${c.min}-${c.max})`, intFlag('--concurrency', c), 16)
    .addOption(
      new Option('--role <role>', 'what this process runs: both (default), only the workflows, or only the activities')
        .choices(['all', 'workflows', 'activities'])
        .default('all'),
    )
    .option('--json', 'the start-up line as JSON on stdout; errors as JSON')
    .addHelpText('after', HELP)
    .action(async (opts: { concurrency: number; role: WorkerRole; json?: boolean }, cmd: Command) => {
      const { createWorker } = await import('../../app/worker');
      const worker = await createWorker(await configOf(cmd), opts);
      const started = {
        ok: true,
        role: worker.role,
        taskQueue: worker.taskQueue,
        address: worker.address,
        namespace: worker.namespace,
        concurrency: worker.concurrency,
      };
      if (opts.json) io.out(`${JSON.stringify(started)}\n`);
      else io.err(`worker (${worker.role}) polling ${worker.taskQueue} on ${worker.address} (namespace ${worker.namespace})\n`);
      await worker.run();
      io.setExit(ExitCode.OK);
    });
}
