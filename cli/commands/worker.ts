// `migrate worker`: a Temporal worker for the migration workflows and/or the per-table activities
// (assembled by app/worker/worker.ts).
import type { Command } from 'commander';
import { Option } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { WorkerRole } from '../../app/worker/worker';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import type { ObserveFlags } from '../../core/config/observe';

const HELP = `
Examples:
  migrate worker -c migrate.yaml
  migrate worker -c migrate.yaml --role activities --concurrency 32   # more activity processes, one workflow process

Logs one JSON object per line on stderr (or --log-file): one line per table status change
(msg "table transition") and the Temporal SDK's lines, at --log-level. With --metrics-port,
GET http://127.0.0.1:<port>/metrics answers Prometheus metrics (docs/deploying.md "Logs and metrics").

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
    .option('--log-level <level>', 'lowest level logged: trace, debug, info, warn, error (default: logging.level, info)')
    .option('--log-format <format>', 'json (one object per line) or text (default: logging.format, json)')
    .option('--log-file <path>', 'append the log to this file instead of stderr (default: logging.file)')
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics on GET /metrics at this port, 0 for any free one (default: metrics.port; unset: off)',
    )
    .option('--metrics-host <host>', 'the address the metrics endpoint binds (default: metrics.host, 127.0.0.1)')
    .option('--json', 'the start-up line as JSON on stdout; errors as JSON')
    .addHelpText('after', HELP)
    .action(async (opts: { concurrency: number; role: WorkerRole; json?: boolean } & ObserveFlags, cmd: Command) => {
      const { createWorker } = await import('../../app/worker/worker');
      const { conversionEngine } = await import('../compose');
      const { resolveObserve } = await import('../../core/config/observe');
      const config = await configOf(cmd);
      const worker = await createWorker(config, { ...opts, engine: conversionEngine(), observe: resolveObserve(config, opts) });
      const started = {
        ok: true,
        role: worker.role,
        taskQueue: worker.taskQueue,
        address: worker.address,
        namespace: worker.namespace,
        concurrency: worker.concurrency,
        metrics: worker.metricsUrl ?? null,
      };
      if (opts.json) io.out(`${JSON.stringify(started)}\n`);
      const metrics = worker.metricsUrl === undefined ? '' : `; metrics on ${worker.metricsUrl}`;
      worker.log.line(
        'info',
        `worker (${worker.role}) polling ${worker.taskQueue} on ${worker.address} (namespace ${worker.namespace})${metrics}`,
        started,
      );
      await worker.run();
      io.setExit(ExitCode.OK);
    });
}
