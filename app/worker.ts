// The worker's assembly (composition root): from the resolved config, the adapters every activity
// reaches through `ActivityDeps` (state store, HMS reader, catalog, object stores), the footer
// threads, and a Temporal worker for the workflows and/or the activities of the task queue.
import os from 'node:os';
import path from 'node:path';
import { format } from 'node:util';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { LogEntry } from '@temporalio/worker';
import { maskSecrets } from '../core/mask';
import type { MigrateConfig } from '../core/config/schema';
import { targetConfigOf } from '../core/plan/target';
import { workerActivities } from '../activities/index';
import { createEngine } from '../engine/engine';
import { footerThreadsOnEveryCpu, sharedFooterThreads } from '../adapters/formats/footer-threads';
import { ThriftHmsWriter } from '../adapters/hms/thrift/writer';
import { NodeSqlViewParser } from '../adapters/sql/view-deps';
import { openCatalog, openHmsReader, openState, openStores, toolVersion } from './runtime';
import { connectionOptions, preCheckTemporal, resolveTemporal, temporalConnectError } from './temporal-connect';
import type { TemporalSettings } from './temporal-connect';
import { rewriteDepsOf } from './rewrite-config';
import { approvalRulesOf } from '../core/audit/approval';
import { assertAuditKeyActive } from './audit-setup';
import { assessOptionsOf } from './assess-options';
import { verifyPlanSignature } from '../core/plan/signing';
import { openPlanSigning } from '../adapters/crypto/signing';

/** With plan.signing configured, the worker verifies every plan it runs with its own keys (loaded now: a bad key fails the worker's start). */
function planVerifierOf(config: MigrateConfig): { verifyPlan?: Parameters<typeof workerActivities>[0]['verifyPlan'] } {
  const cfg = config.plan?.signing;
  if (cfg === undefined) return {};
  const signing = openPlanSigning(cfg, process.env);
  return { verifyPlan: (p) => verifyPlanSignature(p, signing.verifier) };
}

export type WorkerRole = 'all' | 'workflows' | 'activities';
type Closer = () => Promise<unknown> | void;

export interface WorkerOptions {
  readonly concurrency: number;
  readonly role: WorkerRole;
}

export interface MigrationWorker {
  readonly role: WorkerRole;
  readonly taskQueue: string;
  readonly address: string;
  readonly namespace: string;
  readonly concurrency: number;
  /** Poll until shut down (SIGINT/SIGTERM: in-flight activities are handed back); closes everything it opened. */
  run(): Promise<void>;
}

/** The activities with their ports wired to this config's systems; what they open is added to `closers`. */
async function activitiesFor(config: MigrateConfig, closers: Closer[]): Promise<ReturnType<typeof workerActivities>> {
  const stores = openStores(config);
  closers.push(() => stores.close());
  const state = await openState(config);
  closers.push(() => state.close());
  // A keyed worker in front of an unkeyed chain head would have every append refused: refuse now, before polling.
  await assertAuditKeyActive(config, process.env, state);
  const catalog = await openCatalog(config, process.env, stores);
  const hms = openHmsReader(config);
  closers.push(
    () => hms.close(),
    async () => catalog.close?.(),
  );
  return workerActivities({
    state,
    hms,
    // Cutover's fence, rollback's unfence and put-back alter the source HMS's tables (sharing the reader's connections).
    hmsWriter: new ThriftHmsWriter(hms.caller),
    catalog,
    storeFor: stores.storeFor,
    namespacePrefix: config.catalog?.namespacePrefix ?? '',
    actor: `worker:${os.hostname()}:${process.pid}`,
    toolVersion: toolVersion(),
    resultsLocation: config.validation?.resultsLocation,
    // Apply re-checks each table with this worker's own assessment options and target, not the client's.
    assessOptions: assessOptionsOf(config),
    targetConfig: targetConfigOf(config),
    engine: createEngine(),
    // A view's SQL re-read at apply, and its Spark translation checked (activities/views.ts).
    viewSql: new NodeSqlViewParser(),
    trinoCatalog: config.views?.trinoCatalog === undefined ? 'iceberg' : config.views.trinoCatalog,
    rewrite: rewriteDepsOf(config),
    // The rules are the worker's, whatever the client's config says (docs/audit.md, docs/plan-signing.md).
    approvalRules: approvalRulesOf(config.audit),
    ...planVerifierOf(config),
    ...(config.validation?.readBack === undefined ? {} : { readBack: config.validation.readBack }),
    // Conversion and sync refuse files a required reader misreads (engine/reader-guard.ts).
    write: { readersRequired: config.readers?.required },
  });
}

async function connect(s: TemporalSettings): Promise<NativeConnection> {
  try {
    // A refused port, an untrusted server or a refused client certificate fails in milliseconds
    // with its cause and code (as openTemporal does).
    await preCheckTemporal(s, 10_000);
    return await NativeConnection.connect(connectionOptions(s));
  } catch (e) {
    throw temporalConnectError(s, e);
  }
}

/**
 * The workflow code a worker runs. Compiled (dist/: bin/migrate, an installed `migrate`): the bundle
 * dev/build.ts made ahead of time with bundleWorkflowCode over workflows/index.ts (the same call
 * Worker.create makes for `workflowsPath`), so the worker compiles nothing at start. From the
 * TypeScript sources (tests, benches): the path, bundled by the worker at start.
 */
export function workflowCode(compiled = __filename.endsWith('.js')): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  if (compiled) return { workflowBundle: { codePath: path.join(__dirname, '..', 'workflow-bundle.js') } };
  return { workflowsPath: require.resolve('../workflows/index') };
}

/** One line of the worker's log (Temporal's default form), with every URI secret masked (core/mask.ts). */
export function maskedLogLine(e: LogEntry): string {
  const at = new Date(Number(e.timestampNanos / 1_000_000n)).toISOString();
  return maskSecrets(`${at} [${e.level}] ${e.message}${e.meta === undefined ? '' : ` ${format(e.meta)}`}\n`);
}

/** The worker's logs (activity failures, retries) through the masking; a Runtime made earlier in this process keeps its own. */
function installMaskedLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('INFO', (e) => void process.stderr.write(maskedLogLine(e))) });
  } catch {
    // Already instantiated (in-process tests, benches): nothing to change.
  }
}

const closeAll = (closers: Closer[]): Promise<unknown> => Promise.allSettled(closers.reverse().map(async (c) => c()));

/** A worker for `config`'s task queue, connected and ready to run. */
export async function createWorker(config: MigrateConfig, opts: WorkerOptions): Promise<MigrationWorker> {
  installMaskedLogs();
  const t = resolveTemporal(config);
  const withActivities = opts.role !== 'workflows';
  // No workflow tasks here: footer threads may take every CPU.
  if (opts.role === 'activities') footerThreadsOnEveryCpu();
  // Footer threads boot now, not inside the first conversion.
  if (withActivities) sharedFooterThreads();
  const closers: Closer[] = [];
  try {
    const activities = withActivities ? await activitiesFor(config, closers) : undefined;
    const connection = await connect(t);
    closers.push(() => connection.close());
    const worker = await Worker.create({
      connection,
      namespace: t.namespace.value,
      taskQueue: t.taskQueue,
      ...(opts.role !== 'activities' ? workflowCode() : {}),
      ...(activities !== undefined ? { activities, maxConcurrentActivityTaskExecutions: opts.concurrency } : {}),
    });
    const run = async (): Promise<void> => {
      try {
        await worker.run();
      } finally {
        await closeAll(closers);
      }
    };
    const where = { address: t.address.value, namespace: t.namespace.value };
    return { role: opts.role, taskQueue: t.taskQueue, ...where, concurrency: opts.concurrency, run };
  } catch (e) {
    await closeAll(closers);
    throw e;
  }
}
