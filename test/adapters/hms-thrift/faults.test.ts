// Faults between ThriftHmsReader and a real HMS, injected with Toxiproxy mid-inventory: a
// blackholed connection, reset connections and a vanished proxy each end in a retryable coded
// error within the configured deadline (no hang); a short outage is ridden out by retries; HMS
// exceptions are never retried.
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../../adapters/hms/thrift/writer';
import type { ThriftHmsOptions } from '../../../adapters/hms/thrift/client';
import type { MigrationError } from '../../../core/errors';
import { testStack, uniqueName } from '../../helpers/stack-env';
import { ToxiproxyClient, proxyListenPort } from '../../helpers/toxiproxy';
import { createFixture, dropFixture, fixture } from './fixture';

/** This file's proxy slot (see proxyListenPort). */
const PROXY_SLOT = 5;
const CONNECT_TIMEOUT_MS = 1_000;
const CALL_TIMEOUT_MS = 1_500;
const MAX_ELAPSED_MS = 2_000;
/** Worst case: the retry deadline, plus one attempt started just before it, plus scheduling slack. */
const BOUND_MS = MAX_ELAPSED_MS + CONNECT_TIMEOUT_MS + CALL_TIMEOUT_MS + 1_500;

const env = testStack();
const apiUrl = env.HIM_TOXIPROXY_URL as string;
const upstream = (env.HIM_HMS_PG_URI as string).replace('thrift://', '');
const listen = `127.0.0.1:${proxyListenPort(Number(new URL(apiUrl).port), PROXY_SLOT)}`;
const toxiproxy = new ToxiproxyClient(apiUrl);
const proxy = uniqueName('hms_pg');
const f = fixture(uniqueName('him_fault'));
const names = Object.values(f.tables).map((t) => t.name);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const failure = (p: Promise<unknown>): Promise<MigrationError> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: MigrationError) => e,
  );

/** A slow inventory (one object per call, 5 calls/s: ~2 s for the fixture) through the proxy. */
function slowReader(extra: Partial<ThriftHmsOptions> = {}): ThriftHmsReader {
  return new ThriftHmsReader({
    uri: `thrift://${listen}`,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    callTimeoutMs: CALL_TIMEOUT_MS,
    poolSize: 2,
    tableBatchSize: 1,
    partitionBatchSize: 1,
    callsPerSecond: 5,
    retry: { attempts: 5, baseDelayMs: 100, maxDelayMs: 400, maxElapsedMs: MAX_ELAPSED_MS },
    ...extra,
  });
}

/** Start an inventory, inject `fault` after `afterMs`, and time how long the failure takes to surface. */
async function faultMidInventory(fault: () => Promise<void>, afterMs = 500): Promise<{ error: MigrationError; sinceFaultMs: number }> {
  const reader = slowReader();
  try {
    const run = failure(reader.getTables(f.db.name, names));
    await sleep(afterMs);
    await fault();
    const t0 = Date.now();
    const error = await run;
    return { error, sinceFaultMs: Date.now() - t0 };
  } finally {
    await reader.close();
  }
}

describe('ThriftHmsReader under faults (toxiproxy in front of hms-pg)', () => {
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });

  beforeAll(async () => {
    await createFixture(writer, f);
  });
  afterAll(async () => {
    await toxiproxy.deleteProxy(proxy);
    await dropFixture(writer, f);
    await writer.close();
  });
  beforeEach(async () => {
    await toxiproxy.deleteProxy(proxy);
    await toxiproxy.createProxy({ name: proxy, listen, upstream });
  });

  it('passes through: the slow inventory completes', async () => {
    const reader = slowReader();
    try {
      const got = await reader.getTables(f.db.name, names);
      expect(got.map((t) => t.table.name)).toEqual(names);
      expect(got.find((t) => t.table.name === 'events')?.partitions).toHaveLength(4);
    } finally {
      await reader.close();
    }
  });

  it('blackhole (timeout toxic) mid-inventory → HMS_TIMEOUT, retryable, within the deadline', async () => {
    const { error, sinceFaultMs } = await faultMidInventory(async () => {
      await toxiproxy.addToxic(proxy, { name: 'blackhole', type: 'timeout', attributes: { timeout: 0 } });
    });
    expect(error.code).toBe('HMS_TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/gave up after \d+ attempts/);
    expect(sinceFaultMs).toBeLessThan(BOUND_MS);
  });

  it('reset_peer mid-inventory → HMS_UNREACHABLE, retryable, within the deadline', async () => {
    const { error, sinceFaultMs } = await faultMidInventory(async () => {
      await toxiproxy.addToxic(proxy, { name: 'reset', type: 'reset_peer', attributes: { timeout: 0 } });
    });
    expect(error.code).toBe('HMS_UNREACHABLE');
    expect(error.retryable).toBe(true);
    expect(sinceFaultMs).toBeLessThan(BOUND_MS);
  });

  it('HMS gone (proxy deleted) mid-inventory → HMS_UNREACHABLE, retryable, within the deadline', async () => {
    const { error, sinceFaultMs } = await faultMidInventory(() => toxiproxy.deleteProxy(proxy));
    expect(error.code).toBe('HMS_UNREACHABLE');
    expect(error.retryable).toBe(true);
    expect(sinceFaultMs).toBeLessThan(BOUND_MS);
  });

  it('a short outage (resets for 300 ms) is ridden out by the retries', async () => {
    const reader = slowReader({ retry: { attempts: 8, baseDelayMs: 100, maxDelayMs: 400, maxElapsedMs: 10_000 } });
    try {
      const run = reader.getTables(f.db.name, names);
      await sleep(500);
      await toxiproxy.addToxic(proxy, { name: 'reset', type: 'reset_peer', attributes: { timeout: 0 } });
      await sleep(300);
      await toxiproxy.removeToxic(proxy, 'reset');
      const got = await run;
      expect(got.map((t) => t.table.name)).toEqual(names);
      expect(got.find((t) => t.table.name === 'events')?.partitions.map((p) => p.values[1])).toEqual([
        'us/east',
        'a=b c%d',
        'héllo:?#',
        'x',
      ]);
    } finally {
      await reader.close();
    }
  });

  it('HMS exceptions are not retried: one call for an unknown database', async () => {
    const reader = slowReader();
    try {
      expect((await failure(reader.getDatabase(uniqueName('him_nodb')))).code).toBe('HMS_NOT_FOUND');
      expect(reader.callStats().get_database?.calls).toBe(1);
    } finally {
      await reader.close();
    }
  });
});
