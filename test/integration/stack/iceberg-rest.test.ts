// The stack's Iceberg REST catalog answers the REST spec's config and namespace routes, keeps what
// it is told, and listens on 127.0.0.1 only. Needs the local stack (global setup brings it up).
import { createConnection } from 'node:net';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
const base = env.HIM_ICEBERG_REST_URI ?? '';

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(2000, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

describe('iceberg-rest (stack component)', () => {
  const ns = uniqueName('it_rest');

  afterAll(async () => {
    await call('DELETE', `/v1/namespaces/${ns}`).catch(() => undefined);
  });

  it('answers GET /v1/config with defaults and overrides', async () => {
    const { status, json } = await call('GET', '/v1/config');
    expect(status).toBe(200);
    expect(json).toMatchObject({ defaults: expect.any(Object), overrides: expect.any(Object) });
  });

  it('creates, lists and drops a namespace', async () => {
    const created = await call('POST', '/v1/namespaces', { namespace: [ns], properties: { owner: 'integration-test' } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ namespace: [ns] });

    expect((await call('POST', '/v1/namespaces', { namespace: [ns] })).status).toBe(409);
    // The spec says 204 for HEAD and DELETE; the 1.10.1 reference server answers 200 (empty body).
    expect([200, 204]).toContain((await call('HEAD', `/v1/namespaces/${ns}`)).status);

    const listed = (await call('GET', '/v1/namespaces')).json as { namespaces: string[][] };
    expect(listed.namespaces).toContainEqual([ns]);

    const loaded = await call('GET', `/v1/namespaces/${ns}`);
    expect(loaded.json).toMatchObject({ namespace: [ns], properties: { owner: 'integration-test' } });

    expect([200, 204]).toContain((await call('DELETE', `/v1/namespaces/${ns}`)).status);
    expect((await call('HEAD', `/v1/namespaces/${ns}`)).status).toBe(404);
    const after = (await call('GET', '/v1/namespaces')).json as { namespaces: string[][] };
    expect(after.namespaces).not.toContainEqual([ns]);
  });

  it('listens on 127.0.0.1 only', async () => {
    const port = Number(new URL(base).port);
    expect(await connects('127.0.0.1', port)).toBe(true);
    // A socket bound to 0.0.0.0 would also accept 127.0.0.2 (Linux routes all of 127/8 to lo).
    expect(await connects('127.0.0.2', port)).toBe(false);
  });
});
