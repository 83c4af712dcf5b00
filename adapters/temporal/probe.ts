// Reachability probe for a Temporal frontend: connect + GetSystemInfo + DescribeNamespace, each
// under a deadline (a blackholed connection otherwise hangs for minutes; stack.md §1).
import { Connection } from '@temporalio/client';
import { ErrorCode, MigrationError } from '../../core/errors';

export async function probeTemporal(
  address: string,
  namespace: string,
  timeoutMs: number,
): Promise<{ latencyMs: number; version: string }> {
  const t0 = performance.now();
  let conn: Connection | undefined;
  try {
    conn = await Connection.connect({ address, connectTimeout: timeoutMs });
    const c = conn;
    const info = await c.withDeadline(Date.now() + timeoutMs, () => c.workflowService.getSystemInfo({}));
    await c.withDeadline(Date.now() + timeoutMs, () => c.workflowService.describeNamespace({ namespace }));
    return { latencyMs: Math.round(performance.now() - t0), version: info.serverVersion ?? '?' };
  } catch (e) {
    throw new MigrationError(
      ErrorCode.TEMPORAL_UNREACHABLE,
      `Temporal ${address} (namespace ${namespace}): ${(e as Error).message}`,
      { address, namespace },
      { cause: e },
    );
  } finally {
    await conn?.close().catch(() => undefined);
  }
}
