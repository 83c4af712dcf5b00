// The time-skipping test environment for the workflow tests: Temporal's Java test server (stack
// component `temporal-test-server`, installed into the component cache on first use: Maven, no
// other download) started by the SDK through its wrapper script, our search attributes registered,
// and the real workflow code bundled once per content of its inputs (the call dev/build.ts makes,
// shared by the test files through .build/) with ./suggest-continue-as-new.ts as its only addition.
// Needs java and mvn; never skips: a missing tool or a server that does not start fails the suite.
// No local stack.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SearchAttributeType } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createContext } from '../../../dev/stack/manifest';
import { component, testServerBinary } from '../../../dev/stack/components/temporal-test-server';
import { SA } from '../../../workflows/common';
import { SOURCE_BUNDLE_DIR } from '../../../dev/thread-bundle';
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

const ROOT = path.resolve(__dirname, '..', '..', '..');
const INTERCEPTOR = path.join(__dirname, 'suggest-continue-as-new.ts');

/** Every .ts file under `dir` (relative to the repository root), sorted. */
function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f))
    .sort();
}

/**
 * The content key of the test bundle: every file it can be made of. workflows/ imports only core/
 * and the Temporal SDK as values (lint's import fences; activities/ as types, erased), the SDK's
 * version is in package-lock.json, and the interceptor is this folder's. The clone's path too: the
 * bundle's source map names absolute paths.
 */
function bundleKey(): string {
  const h = createHash('sha256').update(ROOT).update('\0');
  for (const f of [...sources('workflows'), ...sources('core'), path.relative(ROOT, INTERCEPTOR), 'package-lock.json'])
    h.update(f)
      .update('\0')
      .update(readFileSync(path.join(ROOT, f)))
      .update('\0');
  return h.digest('hex').slice(0, 16);
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/**
 * workflows/index.ts bundled as the worker bundles it (webpack: 3.3 CPU s measured), once per
 * content of its inputs: the first test file of a run writes it to .build/ (aside, then renamed),
 * the others read it (20 ms). A changed workflow, core/ file or SDK version has another key, so a
 * stale bundle is never used.
 */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= (async () => {
    const file = path.join(SOURCE_BUNDLE_DIR, `workflow-test-bundle-${bundleKey()}.json`);
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as WorkflowBundleWithSourceMap;
    const made = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../../workflows/index'),
      workflowInterceptorModules: [INTERCEPTOR],
      logger: new DefaultLogger('WARN'),
    });
    mkdirSync(SOURCE_BUNDLE_DIR, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ code: made.code, sourceMap: made.sourceMap }));
    renameSync(tmp, file);
    // Bundles of earlier contents are never read again.
    for (const f of readdirSync(SOURCE_BUNDLE_DIR))
      if (/^workflow-test-bundle-[0-9a-f]+\.json$/.test(f) && path.join(SOURCE_BUNDLE_DIR, f) !== file)
        rmSync(path.join(SOURCE_BUNDLE_DIR, f), { force: true });
    return made;
  })();
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
