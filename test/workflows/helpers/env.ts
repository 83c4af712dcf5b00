// The time-skipping test environment for the workflow tests: Temporal's Java test server (stack
// component `temporal-test-server`, installed into the component cache on first use: Maven, no
// other download) started by the SDK through its wrapper script, our search attributes registered,
// and the real workflow code bundled once per test file (the call dev/build.ts makes) with
// ./suggest-continue-as-new.ts as its only addition. Needs java and mvn; never skips: a missing tool
// or a server that does not start fails the suite. No local stack.
import path from 'node:path';
import type { SearchAttributeType } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createContext } from '../../../dev/stack/manifest';
import { component, testServerBinary } from '../../../dev/stack/components/temporal-test-server';
import { SA } from '../../../workflows/common';
import type { Activities } from '../../../activities/index';

let runtimeReady = false;
/**
 * Errors only: the failures a test provokes would otherwise print as worker warnings, and sdk-core
 * warns on every worker that the test server lacks a newer server's heartbeat-details capability.
 */
function quietRuntime(): void {
  if (runtimeReady) return;
  runtimeReady = true;
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
}

/** Install the test server when missing (idempotent, locked across jest workers); its wrapper's path. */
export async function testServer(): Promise<string> {
  const ctx = createContext(process.env, true);
  await component.install(ctx);
  return testServerBinary(ctx);
}

// temporal/api/enums/v1/common.proto IndexedValueType (@temporalio/proto is not a direct dependency).
const INDEXED: Partial<Record<SearchAttributeType, number>> = { KEYWORD: 2, INT: 3, KEYWORD_LIST: 7 };

/**
 * A time-skipping environment on its own server. The SDK allows the server 5 s to answer
 * (docs/design/temporal-rules.md §0.4); a start that misses it on a loaded box is tried again, twice.
 */
export async function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const bin = await testServer();
  let env: TestWorkflowEnvironment | undefined;
  for (let attempt = 1; env === undefined; attempt++) {
    try {
      env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: bin } } });
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
  const searchAttributes = Object.fromEntries(
    Object.values(SA).map((k) => {
      const t = INDEXED[k.type];
      if (t === undefined) throw new Error(`no indexed type for search attribute ${k.name} (${k.type})`);
      return [k.name, t];
    }),
  );
  await env.connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes });
  return env;
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** workflows/index.ts bundled as the worker bundles it, once per test file. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: require.resolve('../../../workflows/index'),
    workflowInterceptorModules: [path.join(__dirname, 'suggest-continue-as-new.ts')],
    logger: new DefaultLogger('WARN'),
  });
  return bundle;
}

let queue = 0;
/**
 * Run `fn` while a worker with these activities polls a task queue of its own (the real workflow
 * code); the worker stops after `fn`, whatever it returned.
 */
export async function withWorker<T>(
  env: TestWorkflowEnvironment,
  activities: Partial<Activities>,
  fn: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = `wf-test-${process.pid}-${++queue}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
    // Failed activity retries are part of what is under test; keep the worker from stalling on them.
    maxCachedWorkflows: 100,
  });
  return worker.runUntil(fn(taskQueue));
}

/**
 * Wait in real time until `cond` holds (at most `ms`). The time-skipping client keeps the server's
 * clock locked until a result is awaited: a cancellation that has to reach a heartbeating step is
 * waited for here, so no skipped time can run out the step's heartbeat timeout meanwhile.
 */
export async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
