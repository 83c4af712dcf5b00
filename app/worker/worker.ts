// The worker's assembly: from the resolved config, the adapters every activity reaches through
// `ActivityDeps` (state store, HMS reader, catalog, object stores), the conversion engine it is
// handed (the port core/engine-port/conversion-engine.ts, constructed by the composition root
// cli/compose.ts), the footer threads, and a Temporal worker for the workflows and/or the
// activities of the task queue.
import os from 'node:os';
import path from 'node:path';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { MigrateConfig } from '../../core/config/schema';
import { targetConfigOf } from '../../core/plan/target';
import { workerActivities } from '../../activities/index';
import type { ConversionEngine } from '../../core/engine-port/conversion-engine';
import { footerThreadsOnEveryCpu, sharedFooterThreads } from '../../adapters/storage/object-read/footer-pool';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import { NodeSqlViewParser } from '../../adapters/sql/view-deps';
import { openCatalog, openHmsReader, openState, openStores, toolVersion } from '../runtime/runtime';
import { connectionOptions, preCheckTemporal, resolveTemporal, temporalConnectError } from '../runtime/temporal-connect';
import type { TemporalSettings } from '../runtime/temporal-connect';
import { rewriteDepsOf } from '../runtime/rewrite-config';
import { approvalRulesOf } from '../../core/audit/approval';
import { assertAuditKeyActive } from '../runtime/audit-setup';
import { assessOptionsOf } from '../runtime/assess-options';
import { verifyPlanSignature } from '../../core/plan/signing';
import { openPlanSigning } from '../../adapters/crypto/signing';
import type { ObserveConfig } from '../../core/config/observe';
import { resolveObserve } from '../../core/config/observe';
import type { WorkerMetrics } from '../../core/observe/worker-metrics';
import { workerMetrics } from '../../core/observe/worker-metrics';
import type { WorkerLog } from './log';
import { openWorkerLog, runtimeOptions } from './log';
import { countedPort, observedEngine, observedState, stepInterceptor, transitionReporter } from './observe';
import { serveMetrics } from './metrics-server';

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
  /** The conversion engine the activities hand their work on one table to (ActivityDeps.engine). */
  readonly engine: ConversionEngine;
  /** Log and metrics settings (`logging:`/`metrics:` with the flags over them); default: the config's. */
  readonly observe?: ObserveConfig;
}

/** What the worker reports through: its log and its metrics. */
interface Observers {
  readonly log: WorkerLog;
  readonly metrics: WorkerMetrics;
}

export interface MigrationWorker {
  readonly role: WorkerRole;
  readonly taskQueue: string;
  readonly address: string;
  readonly namespace: string;
  readonly concurrency: number;
  /** Where `GET /metrics` answers (metrics.port set), else undefined. */
  readonly metricsUrl: string | undefined;
  /** The worker's log (the CLI writes its start-up line through it). */
  readonly log: WorkerLog;
  /** Poll until shut down (SIGINT/SIGTERM: in-flight activities are handed back); closes everything it opened. */
  run(): Promise<void>;
}

/** The activities with their ports wired to this config's systems; what they open is added to `closers`. */
async function activitiesFor(
  config: MigrateConfig,
  engine: ConversionEngine,
  closers: Closer[],
  o: Observers,
): Promise<ReturnType<typeof workerActivities>> {
  const stores = openStores(config);
  closers.push(() => stores.close());
  const opened = await openState(config);
  closers.push(() => opened.close());
  // Every table status change is logged and counted here, once, where it is recorded (app/worker/observe.ts).
  const state = observedState(countedPort(opened, 'state', o.metrics), transitionReporter(o.log, o.metrics));
  // A keyed worker in front of an unkeyed chain head would have every append refused: refuse now, before polling.
  await assertAuditKeyActive(config, process.env, state);
  const catalog = await openCatalog(config, process.env, stores);
  const hms = openHmsReader(config);
  closers.push(
    () => hms.close(),
    async () => catalog.close?.(),
  );
  const count = <T extends object>(port: T, system: Parameters<typeof countedPort>[1]): T => countedPort(port, system, o.metrics);
  return workerActivities({
    state,
    hms: count(hms, 'hms'),
    // Cutover's fence, rollback's unfence and put-back alter the source HMS's tables (sharing the reader's connections).
    hmsWriter: new ThriftHmsWriter(hms.caller),
    catalog: count(catalog, 'catalog'),
    storeFor: (prefixes) => count(stores.storeFor(prefixes), 'storage'),
    namespacePrefix: config.catalog?.namespacePrefix ?? '',
    actor: `worker:${os.hostname()}:${process.pid}`,
    toolVersion: toolVersion(),
    resultsLocation: config.validation?.resultsLocation,
    // Apply re-checks each table with this worker's own assessment options and target, not the client's.
    assessOptions: assessOptionsOf(config),
    targetConfig: targetConfigOf(config),
    engine: observedEngine(engine, o.metrics),
    // A view's SQL re-read at apply, and its Spark translation checked (ops/views.ts).
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
  if (compiled) return { workflowBundle: { codePath: path.join(__dirname, '..', '..', 'workflow-bundle.js') } };
  return { workflowsPath: require.resolve('../../workflows/index') };
}

/**
 * The process's Temporal Runtime: its logger is the worker's log (masked, leveled, one record per
 * line) and, with metrics.sdkPort, the SDK's own Prometheus endpoint. A Runtime made earlier in this
 * process (in-process tests, benches) keeps its own.
 */
function installRuntime(log: WorkerLog, observe: ObserveConfig): Runtime | undefined {
  try {
    return Runtime.install(runtimeOptions(log, observe));
  } catch {
    // Already instantiated: nothing to change.
    return undefined;
  }
}

const closeAll = (closers: Closer[]): Promise<unknown> => Promise.allSettled(closers.reverse().map(async (c) => c()));

/** A worker for `config`'s task queue, connected and ready to run. */
export async function createWorker(config: MigrateConfig, opts: WorkerOptions): Promise<MigrationWorker> {
  const observe = opts.observe ?? resolveObserve(config, {});
  const log = openWorkerLog(observe.logging);
  const runtime = installRuntime(log, observe);
  const metrics = workerMetrics({ role: opts.role, version: toolVersion(), startedAt: new Date() });
  const t = resolveTemporal(config);
  const withActivities = opts.role !== 'workflows';
  // No workflow tasks here: footer threads may take every CPU.
  if (opts.role === 'activities') footerThreadsOnEveryCpu();
  // Footer threads boot now, not inside the first conversion.
  if (withActivities) sharedFooterThreads();
  const closers: Closer[] = [];
  try {
    const activities = withActivities ? await activitiesFor(config, opts.engine, closers, { log, metrics }) : undefined;
    const m = observe.metrics;
    // Our endpoint only with metrics.port (metrics.sdkPort alone: the SDK's endpoint only).
    const server = m?.port === undefined ? undefined : await serveMetrics(metrics.registry, m.host, m.port);
    if (server !== undefined) closers.push(() => server.close());
    const connection = await connect(t);
    closers.push(() => connection.close());
    const worker = await Worker.create({
      connection,
      namespace: t.namespace.value,
      taskQueue: t.taskQueue,
      ...(opts.role !== 'activities' ? workflowCode() : {}),
      ...(activities !== undefined
        ? { activities, maxConcurrentActivityTaskExecutions: opts.concurrency, interceptors: { activity: [stepInterceptor(metrics)] } }
        : {}),
    });
    const run = async (): Promise<void> => {
      try {
        await worker.run();
      } finally {
        await closeAll(closers);
      }
    };
    const where = { address: t.address.value, namespace: t.namespace.value };
    return { role: opts.role, taskQueue: t.taskQueue, ...where, concurrency: opts.concurrency, metricsUrl: server?.url, log, run };
  } catch (e) {
    await closeAll(closers);
    // The Runtime this call installed (its log forwarding keeps an in-process caller alive) goes
    // with the worker that never started; a later createWorker installs a fresh one.
    await runtime?.shutdown().catch(() => undefined);
    throw e;
  }
}
