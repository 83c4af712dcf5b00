// Probes of a Temporal frontend for `migrate doctor`: a TCP connect first (a refused or unroutable
// port fails in milliseconds with its cause, instead of the gRPC client's "Failed to connect before
// the deadline" after the full timeout), then GetSystemInfo + DescribeNamespace, the custom search
// attributes the workflows set, and the pollers on the task queue. Every call has a deadline (a
// blackholed connection otherwise hangs for minutes; docs/design/stack-components.md §1).
import { Connection } from '@temporalio/client';
import type { ConnectionOptions } from '@temporalio/client';
import { ErrorCode, MigrationError } from '../../core/errors';
import { tcpConnect } from './tcp';

/** A search attribute the workflows write: its name and SDK type (`KEYWORD`, `INT`, `KEYWORD_LIST`, ...). */
export interface SearchAttributeSpec {
  readonly name: string;
  readonly type: string;
}

export interface TemporalProbe {
  readonly latencyMs: number;
  readonly version: string;
  /** Attributes not registered in the namespace, and those registered with another type (`name: has X, needs Y`). */
  readonly missingAttributes: readonly string[];
  readonly wrongTypes: readonly string[];
  /** Workers polling the task queue, per task type (a `--role workflows` worker polls workflow tasks only). */
  readonly pollers: { readonly workflow: number; readonly activity: number };
}

export interface TemporalProbeRequest {
  readonly address: string;
  /** TLS, API key and extra headers (app/runtime/temporal-connect.ts `connectionOptions`); unset: plain TCP. */
  readonly connect?: Omit<ConnectionOptions, 'address'>;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly searchAttributes: readonly SearchAttributeSpec[];
}

// temporal/api/enums/v1/common.proto IndexedValueType and task_queue.proto TaskQueueType/TaskQueueKind
// (the numbers the gRPC service returns; @temporalio/proto is not a direct dependency).
const INDEXED_VALUE_TYPE: Readonly<Record<number, string>> = {
  1: 'TEXT',
  2: 'KEYWORD',
  3: 'INT',
  4: 'DOUBLE',
  5: 'BOOL',
  6: 'DATETIME',
  7: 'KEYWORD_LIST',
};
const TASK_QUEUE_TYPE_WORKFLOW = 1;
const TASK_QUEUE_TYPE_ACTIVITY = 2;
const TASK_QUEUE_KIND_NORMAL = 1;

/** gRPC UNAUTHENTICATED (16) and PERMISSION_DENIED (7): the frontend refused our credentials. */
const REFUSED = new Set([16, 7]);

function unreachable(req: TemporalProbeRequest, what: string, e: unknown): MigrationError {
  const grpc = (e as { cause?: unknown }).cause ?? e;
  const refused = REFUSED.has(((grpc as { code?: unknown }).code ?? (e as { code?: unknown }).code) as number);
  return new MigrationError(
    refused ? ErrorCode.TEMPORAL_AUTH_FAILED : ErrorCode.TEMPORAL_UNREACHABLE,
    `Temporal ${req.address} (namespace ${req.namespace}): ${what}${(e as Error).message}`,
    { address: req.address, namespace: req.namespace },
    { cause: e },
  );
}

/** Registered custom search attributes compared with the ones the workflows need. */
function compareAttributes(
  registered: Record<string, number>,
  needed: readonly SearchAttributeSpec[],
): Pick<TemporalProbe, 'missingAttributes' | 'wrongTypes'> {
  const missing: string[] = [];
  const wrong: string[] = [];
  for (const sa of needed) {
    const have = registered[sa.name];
    if (have === undefined) missing.push(sa.name);
    else if (INDEXED_VALUE_TYPE[have] !== sa.type)
      wrong.push(`${sa.name}: has ${INDEXED_VALUE_TYPE[have] ?? String(have)}, needs ${sa.type}`);
  }
  return { missingAttributes: missing, wrongTypes: wrong };
}

/** One probe of everything `apply` needs from Temporal; throws TEMPORAL_UNREACHABLE when the frontend or namespace cannot be reached. */
export async function probeTemporal(req: TemporalProbeRequest, timeoutMs: number): Promise<TemporalProbe> {
  const t0 = performance.now();
  try {
    await tcpConnect(req.address, timeoutMs);
  } catch (e) {
    throw unreachable(req, 'TCP connect: ', e);
  }
  let conn: Connection | undefined;
  try {
    conn = await Connection.connect({ ...req.connect, address: req.address, connectTimeout: timeoutMs });
    const c = conn;
    const deadline = (): number => Date.now() + timeoutMs;
    const info = await c.withDeadline(deadline(), () => c.workflowService.getSystemInfo({}));
    await c.withDeadline(deadline(), () => c.workflowService.describeNamespace({ namespace: req.namespace }));
    const latencyMs = Math.round(performance.now() - t0);
    const sa = await c.withDeadline(deadline(), () => c.operatorService.listSearchAttributes({ namespace: req.namespace }));
    const pollers = async (type: number): Promise<number> => {
      const r = await c.withDeadline(deadline(), () =>
        c.workflowService.describeTaskQueue({
          namespace: req.namespace,
          taskQueue: { name: req.taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
          taskQueueType: type,
        }),
      );
      return r.pollers?.length ?? 0;
    };
    const [workflow, activity] = await Promise.all([pollers(TASK_QUEUE_TYPE_WORKFLOW), pollers(TASK_QUEUE_TYPE_ACTIVITY)]);
    return {
      latencyMs,
      version: info.serverVersion ?? '?',
      ...compareAttributes((sa.customAttributes ?? {}) as Record<string, number>, req.searchAttributes),
      pollers: { workflow, activity },
    };
  } catch (e) {
    throw unreachable(req, '', e);
  } finally {
    await conn?.close().catch(() => undefined);
  }
}
