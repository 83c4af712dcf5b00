// Toxiproxy in front of the stack's Temporal frontend: calls pass through, injected faults
// (latency, blackhole) reach the client as latency and DEADLINE_EXCEEDED, and removing the toxic
// restores service. Needs the running stack (global setup).
import { Connection } from '@temporalio/client';
import { testStack, uniqueName } from '../../helpers/stack-env';
import { ToxiproxyClient, proxyListenPort } from '../../helpers/toxiproxy';

/** This file's proxy slot (see proxyListenPort). */
const PROXY_SLOT = 0;
const LATENCY_MS = 1_200;
/** gRPC status code DEADLINE_EXCEEDED (grpc/status.proto). */
const GRPC_DEADLINE_EXCEEDED = 4;

describe('toxiproxy (stack)', () => {
  const env = testStack();
  const apiUrl = env.HIM_TOXIPROXY_URL ?? '';
  const upstream = env.HIM_TEMPORAL_ADDRESS ?? '';
  const listen = `127.0.0.1:${proxyListenPort(Number(new URL(apiUrl).port), PROXY_SLOT)}`;
  const toxiproxy = new ToxiproxyClient(apiUrl);
  const proxy = uniqueName('temporal_frontend');
  const connections: Connection[] = [];

  const connectThroughProxy = async (): Promise<Connection> => {
    const c = await Connection.connect({ address: listen, connectTimeout: 5_000 });
    connections.push(c);
    return c;
  };

  /** One getSystemInfo round trip through `c` with a deadline; resolves its duration in ms. */
  const timedCall = async (c: Connection, deadlineMs = 5_000): Promise<number> => {
    const t0 = Date.now();
    const info = await c.withDeadline(Date.now() + deadlineMs, () => c.workflowService.getSystemInfo({}));
    expect(info.serverVersion).toMatch(/^\d+\.\d+\.\d+/);
    return Date.now() - t0;
  };

  beforeAll(async () => {
    expect(await toxiproxy.version()).toMatch(/^\d+\.\d+\.\d+/);
    const created = await toxiproxy.createProxy({ name: proxy, listen, upstream });
    expect(created).toMatchObject({ name: proxy, listen, upstream, enabled: true });
  });

  afterAll(async () => {
    await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
    await toxiproxy.deleteProxy(proxy);
  });

  it('forwards calls to the Temporal frontend', async () => {
    const c = await connectThroughProxy();
    expect(await timedCall(c)).toBeLessThan(LATENCY_MS);
  });

  it('adds latency with a latency toxic, and recovers when it is removed', async () => {
    const c = await connectThroughProxy();
    await toxiproxy.addToxic(proxy, { name: 'slow', type: 'latency', attributes: { latency: LATENCY_MS } });
    try {
      expect(await timedCall(c)).toBeGreaterThanOrEqual(LATENCY_MS - 50);
    } finally {
      await toxiproxy.removeToxic(proxy, 'slow');
    }
    expect(await timedCall(c)).toBeLessThan(LATENCY_MS);
  });

  it('times out against a blackhole (timeout toxic), and serves a new connection once removed', async () => {
    const c = await connectThroughProxy();
    await toxiproxy.addToxic(proxy, { name: 'blackhole', type: 'timeout', attributes: { timeout: 0 } });
    try {
      const t0 = Date.now();
      await expect(c.withDeadline(Date.now() + 2_000, () => c.workflowService.getSystemInfo({}))).rejects.toMatchObject({
        code: GRPC_DEADLINE_EXCEEDED,
      });
      // The deadline, not a hang: the call gave up close to the 2 s budget.
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      await toxiproxy.removeToxic(proxy, 'blackhole');
    }
    // Dropped bytes may have broken the old HTTP/2 session; a fresh connection must work at once.
    expect(await timedCall(await connectThroughProxy())).toBeLessThan(LATENCY_MS);
  });
});
