// Faults between us and the real REST catalog: a Toxiproxy proxy (listen slot 7) in front of the
// stack's reference server. A `timeout` toxic (data stops, connection held open) must surface as a
// coded, retryable CATALOG_TIMEOUT within the configured per-call deadline — for a read, and for a
// register, where the reload fails too and the outcome is reported as unknown, never cleaned up.
import { RestCatalog } from '../../../adapters/catalog/rest';
import { tableIdent } from '../../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { testStack, uniqueName } from '../../helpers/stack-env';
import { ToxiproxyClient, proxyListenPort } from '../../helpers/toxiproxy';

const SLOT = 7;
const env = testStack();
const toxi = new ToxiproxyClient(env.HIM_TOXIPROXY_URL ?? '');
const proxyName = uniqueName('him_catalog');
const ns = [uniqueName('him_fault')];
const DEADLINE_MS = 1_500;
let proxied: RestCatalog;
let direct: RestCatalog;

beforeAll(async () => {
  const apiPort = Number(new URL(env.HIM_TOXIPROXY_URL ?? '').port);
  const listen = `127.0.0.1:${proxyListenPort(apiPort, SLOT)}`;
  await toxi.createProxy({ name: proxyName, listen, upstream: new URL(env.HIM_ICEBERG_REST_URI ?? '').host });
  direct = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI ?? '' });
  proxied = await RestCatalog.connect({
    uri: `http://${listen}`,
    http: { timeoutMs: DEADLINE_MS, attemptTimeoutMs: 600, retryBaseDelayMs: 50 },
  });
  await direct.createNamespace(ns);
});

afterAll(async () => {
  await toxi.deleteProxy(proxyName);
  await direct.dropNamespace(ns);
});

async function timedFailure(p: Promise<unknown>): Promise<{ e: MigrationError; ms: number }> {
  const t0 = performance.now();
  try {
    await p;
  } catch (e) {
    if (e instanceof MigrationError) return { e, ms: performance.now() - t0 };
    throw e;
  }
  throw new Error('expected a MigrationError');
}

test('timeout toxic: reads fail with retryable CATALOG_TIMEOUT within the deadline; register reports an unknown outcome; recovery after removal', async () => {
  expect(await proxied.namespaceExists(ns)).toBe(true); // the proxy works before the fault
  await toxi.addToxic(proxyName, { name: 'stall', type: 'timeout', attributes: { timeout: 0 } });
  try {
    const read = await timedFailure(proxied.listTables(ns));
    console.log(
      `timeout toxic: read failed after ${read.ms.toFixed(0)} ms (deadline ${DEADLINE_MS} ms) with ${read.e.code}: ${read.e.message}`,
    );
    expect(read.e).toMatchObject({ code: ErrorCode.CATALOG_TIMEOUT, retryable: true });
    expect(read.ms).toBeLessThan(DEADLINE_MS + 300);

    // Quirk: through the timeout toxic a HEAD is answered by a closed connection (0 bytes read), not
    // a stall — still a coded, retryable failure inside the deadline.
    const head = await timedFailure(proxied.namespaceExists(ns));
    expect([ErrorCode.CATALOG_TIMEOUT, ErrorCode.CATALOG_UNREACHABLE]).toContain(head.e.code);
    expect(head.e.retryable).toBe(true);
    expect(head.ms).toBeLessThan(DEADLINE_MS + 300);

    const ident = tableIdent(ns, 'never_registered');
    const reg = await timedFailure(proxied.registerTable(ident, 's3://warehouse/him-none/metadata/00000-x.metadata.json'));
    console.log(`timeout toxic: register failed after ${reg.ms.toFixed(0)} ms with ${reg.e.code}`);
    expect(reg.e).toMatchObject({ code: ErrorCode.CATALOG_COMMIT_STATE_UNKNOWN, retryable: true });
    expect(reg.ms).toBeLessThan(2 * DEADLINE_MS + 300); // the POST's deadline, then the reload's
  } finally {
    await toxi.removeToxic(proxyName, 'stall');
  }
  expect(await proxied.namespaceExists(ns)).toBe(true);
  expect(await direct.tableExists(tableIdent(ns, 'never_registered'))).toBe(false);
});
