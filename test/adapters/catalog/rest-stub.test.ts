// RestCatalog against a loopback stub (stub-server.ts): auth headers and token caching, the config
// `prefix`, vended credentials (exposed to the caller, never serialized), retries only for reads,
// and register's reload-and-compare after a 5xx. The real server covers everything else
// (rest-catalog.test.ts).
import { inspect } from 'node:util';
import { RestCatalog } from '../../../adapters/catalog/rest';
import { tableIdent } from '../../../core/catalog/catalog';
import { ErrorCode } from '../../../core/errors';
import { rejectionOf } from '../../helpers/errors';
import { parseHiveType } from '../../../core/hive/types';
import { buildInitialMetadata } from '../../../core/iceberg/metadata';
import { toMetadataJson } from '../../../core/iceberg/metadata-json';
import { UNPARTITIONED_SPEC } from '../../../core/iceberg/partition-spec';
import { convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import type { Seen } from './stub-server';
import { StubCatalog } from './stub-server';

const SNAPSHOT_ID = 8_765_432_109_876_543_210n; // beyond 2^53: must survive parsing exactly
const LOCATION = 's3://bucket/warehouse/db/t';
const METADATA_LOCATION = `${LOCATION}/metadata/00000-abc.metadata.json`;
const SECRET = 'vended-secret-key-value';

function loadResult(metadataLocation = METADATA_LOCATION): string {
  const { schema } = convertHiveSchemaOrThrow([{ name: 'id', type: parseHiveType('bigint'), comment: null }], []);
  const { metadata } = buildInitialMetadata({
    uuid: '0f8fad5b-d9cb-469f-a165-70867728950e',
    location: LOCATION,
    schema,
    spec: UNPARTITIONED_SPEC,
    properties: {},
    timestampMs: 1_700_000_000_000,
    snapshot: {
      snapshotId: SNAPSHOT_ID,
      manifestList: `${LOCATION}/metadata/snap.avro`,
      totals: { addedDataFiles: 1, addedRecords: 3, addedFilesSize: 10, changedPartitionCount: 1 },
    },
  });
  return `{"metadata-location":${JSON.stringify(metadataLocation)},"metadata":${toMetadataJson(metadata)},
    "config":{"s3.endpoint":"http://s3.example","s3.access-key-id":"config-level-key","s3.secret-access-key":"config-level-secret"},
    "storage-credentials":[{"prefix":"s3://bucket/","config":{"s3.access-key-id":"short","s3.secret-access-key":"short-secret"}},
                           {"prefix":"s3://bucket/warehouse/db/","config":{"s3.access-key-id":"AKIAVENDED","s3.secret-access-key":"${SECRET}","s3.session-token":"tok"}}]}`;
}

const failure = rejectionOf;

const ident = tableIdent(['db', 'inner'], 't');
const fast = { timeoutMs: 5_000, attemptTimeoutMs: 2_000, retryBaseDelayMs: 10, retryMaxDelayMs: 50 };
let stub: StubCatalog;
let uri: string;

beforeEach(async () => {
  stub = new StubCatalog();
  uri = await stub.start();
});
afterEach(() => stub.stop());

describe('auth', () => {
  test('static bearer token on every request, the config prefix and %1F in paths', async () => {
    stub.staticToken = 'static-token-1';
    const c = await RestCatalog.connect({ uri, auth: { type: 'bearer', token: 'static-token-1' }, warehouse: 'wh1' });
    expect(c.properties).toMatchObject({ prefix: 'cat1', warehouse: 'wh1', 'client.region': 'eu-west-1' });
    stub.handler = (r) => (r.method === 'HEAD' ? { status: 200 } : undefined);
    expect(await c.namespaceExists(['db', 'inner'])).toBe(true);
    expect(stub.seen[0]?.url).toBe('/v1/config?warehouse=wh1');
    expect(stub.seen[1]).toMatchObject({ method: 'HEAD', url: '/v1/cat1/namespaces/db%1Finner' });
    expect(stub.seen.every((s) => s.headers.authorization === 'Bearer static-token-1')).toBe(true);

    const wrong = await failure(RestCatalog.connect({ uri, auth: { type: 'bearer', token: 'nope' } }));
    expect(wrong).toMatchObject({ code: ErrorCode.CATALOG_AUTH_FAILED, retryable: false });
    expect(wrong.message).not.toContain('nope');
  });

  test('OAuth2 client credentials: one token for many calls, refetched before expiry and after a 401', async () => {
    stub.handler = (r) => (r.method === 'HEAD' ? { status: 204 } : undefined);
    const c = await RestCatalog.connect({
      uri,
      auth: { type: 'oauth2', clientId: 'migrator', clientSecret: 'client-secret-value' },
      http: fast,
    });
    for (let i = 0; i < 5; i++) expect(await c.namespaceExists(['db'])).toBe(true);
    expect(stub.tokenRequests).toHaveLength(1);
    const form = stub.tokenRequests[0];
    expect(Object.fromEntries(form ?? [])).toEqual({
      grant_type: 'client_credentials',
      client_id: 'migrator',
      client_secret: 'client-secret-value',
      scope: 'catalog',
    });
    expect(stub.seen.filter((s) => s.url !== '/v1/oauth/tokens').every((s) => s.headers.authorization === 'Bearer issued-1')).toBe(true);

    // Revoked on the server: the 401 costs one refetch and the call still succeeds.
    stub.validTokens.delete('issued-1');
    expect(await c.namespaceExists(['db'])).toBe(true);
    expect(stub.tokenRequests).toHaveLength(2);
    expect(stub.seen.at(-1)?.headers.authorization).toBe('Bearer issued-2');
  });

  test('OAuth2: a short-lived token is refreshed once it is about to expire', async () => {
    stub.tokenLifetimeS = 1;
    stub.handler = (r) => (r.method === 'HEAD' ? { status: 204 } : undefined);
    const c = await RestCatalog.connect({
      uri,
      auth: { type: 'oauth2', clientId: 'migrator', clientSecret: 'client-secret-value' },
      http: fast,
    });
    await c.namespaceExists(['db']);
    expect(stub.tokenRequests).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 1_000));
    await c.namespaceExists(['db']);
    expect(stub.tokenRequests).toHaveLength(2);
  });

  test('OAuth2: bad client credentials → CATALOG_AUTH_FAILED without the secret in the message', async () => {
    const e = await failure(RestCatalog.connect({ uri, auth: { type: 'oauth2', clientId: 'migrator', clientSecret: 'wrong-secret-123' } }));
    expect(e).toMatchObject({ code: ErrorCode.CATALOG_AUTH_FAILED, retryable: false });
    expect(e.message).toContain('invalid_client');
    expect(`${e.message} ${JSON.stringify(e.context)}`).not.toContain('wrong-secret-123');
  });
});

test('vended credentials: header sent, longest prefix picked, secrets kept out of config, JSON and inspect', async () => {
  stub.staticToken = 't';
  stub.handler = (r) =>
    r.method === 'GET' && r.url.startsWith('/v1/cat1/namespaces/db%1Finner/tables/t') ? { status: 200, body: loadResult() } : undefined;
  const c = await RestCatalog.connect({ uri, auth: { type: 'bearer', token: 't' }, accessDelegation: ['vended-credentials'] });
  const t = await c.loadTable(ident);
  expect(stub.requests('GET', '/tables/t')[0]?.headers['x-iceberg-access-delegation']).toBe('vended-credentials');
  expect(t.metadata.currentSnapshotId).toBe(SNAPSHOT_ID);
  expect(t.credentials?.prefix).toBe('s3://bucket/warehouse/db/');
  expect(t.credentials?.properties()).toEqual({
    's3.access-key-id': 'AKIAVENDED',
    's3.secret-access-key': SECRET,
    's3.session-token': 'tok',
  });
  expect(t.config).toEqual({ 's3.endpoint': 'http://s3.example' });
  const shown = `${JSON.stringify({ ...t, metadata: undefined })} ${inspect(t, { depth: 5 })}`;
  expect(shown).not.toContain(SECRET);
  expect(shown).not.toContain('config-level-secret');
  expect(shown).toContain('s3.secret-access-key'); // key names only
});

describe('retries and unknown outcomes', () => {
  beforeEach(() => {
    stub.staticToken = 't';
  });
  const connect = (registerAttempts?: number): Promise<RestCatalog> =>
    RestCatalog.connect({
      uri,
      auth: { type: 'bearer', token: 't' },
      http: fast,
      ...(registerAttempts === undefined ? {} : { registerAttempts }),
    });

  test('GET is retried on 503/429 (Retry-After honoured) and gives up with a retryable code', async () => {
    let n = 0;
    stub.handler = (r) => {
      if (!r.url.includes('/tables/t')) return undefined;
      n++;
      if (n === 1) return { status: 503, body: { error: { message: 'busy', type: 'ServiceUnavailableException', code: 503 } } };
      if (n === 2)
        return {
          status: 429,
          body: { error: { message: 'slow down', type: 'TooManyRequests', code: 429 } },
          headers: { 'retry-after': '0' },
        };
      return { status: 200, body: loadResult() };
    };
    const c = await connect();
    expect((await c.loadTable(ident)).metadataLocation).toBe(METADATA_LOCATION);
    expect(n).toBe(3);

    stub.handler = (r) =>
      r.url.includes('/tables/t') ? { status: 500, body: { error: { message: 'boom', type: 'RuntimeException', code: 500 } } } : undefined;
    const e = await failure(c.loadTable(ident));
    expect(e).toMatchObject({ code: ErrorCode.CATALOG_SERVER_ERROR, retryable: true });
    expect(stub.requests('GET', '/tables/t').length).toBe(3 + 4); // default 4 attempts
  });

  test('register: 5xx that landed → reload, same location → registered, POST sent once', async () => {
    let registered = false;
    stub.handler = (r) => {
      if (r.method === 'POST' && r.url.endsWith('/register')) {
        registered = true; // the server committed, then failed to answer
        return { status: 502, body: 'bad gateway' };
      }
      if (r.method === 'GET' && r.url.includes('/tables/t'))
        return registered
          ? { status: 200, body: loadResult() }
          : { status: 404, body: { error: { message: 'no', type: 'NoSuchTableException', code: 404 } } };
      return undefined;
    };
    const c = await connect();
    const r = await c.registerTable(ident, METADATA_LOCATION);
    expect(r.outcome).toBe('registered');
    expect(r.table.metadata.currentSnapshotId).toBe(SNAPSHOT_ID);
    expect(stub.requests('POST', '/register')).toHaveLength(1);
    expect(JSON.parse(stub.requests('POST', '/register')[0]?.body ?? '{}')).toEqual({ name: 't', 'metadata-location': METADATA_LOCATION });
  });

  test('register: 5xx that did not land → reload shows absent → POST again (bounded), then a retryable code', async () => {
    let posts = 0;
    const absent = { status: 404, body: { error: { message: 'no', type: 'NoSuchTableException', code: 404 } } };
    stub.handler = (r: Seen) => {
      if (r.method === 'POST' && r.url.endsWith('/register'))
        return ++posts === 1
          ? { status: 500, body: { error: { message: 'db down', type: 'RuntimeException', code: 500 } } }
          : { status: 200, body: loadResult() };
      if (r.method === 'GET' && r.url.includes('/tables/t')) return absent;
      return undefined;
    };
    const c = await connect();
    expect((await c.registerTable(ident, METADATA_LOCATION)).outcome).toBe('registered');
    expect(posts).toBe(2);

    posts = 0;
    stub.handler = (r: Seen) => {
      if (r.method === 'POST' && r.url.endsWith('/register'))
        return (posts++, { status: 503, body: { error: { message: 'down', type: 'X', code: 503 } } });
      if (r.method === 'GET' && r.url.includes('/tables/t')) return absent;
      return undefined;
    };
    const e = await failure((await connect(2)).registerTable(ident, METADATA_LOCATION));
    expect(e).toMatchObject({ code: ErrorCode.CATALOG_SERVER_ERROR, retryable: true });
    expect(posts).toBe(2);
  });

  test('register: 5xx, then the entry points elsewhere → coded conflict (nothing cleaned up); 409 same location → already-registered', async () => {
    stub.handler = (r) => {
      if (r.method === 'POST' && r.url.endsWith('/register')) return { status: 500, body: {} };
      if (r.method === 'GET' && r.url.includes('/tables/t'))
        return { status: 200, body: loadResult(`${LOCATION}/metadata/00007-other.metadata.json`) };
      return undefined;
    };
    const c = await connect();
    expect(await failure(c.registerTable(ident, METADATA_LOCATION))).toMatchObject({ code: ErrorCode.CATALOG_CONFLICT, retryable: false });
    expect(stub.seen.some((s) => s.method === 'DELETE')).toBe(false);

    stub.handler = (r) => {
      if (r.method === 'POST' && r.url.endsWith('/register'))
        return { status: 409, body: { error: { message: 'exists', type: 'AlreadyExistsException', code: 409 } } };
      if (r.method === 'GET' && r.url.includes('/tables/t')) return { status: 200, body: loadResult() };
      return undefined;
    };
    expect((await c.registerTable(ident, METADATA_LOCATION)).outcome).toBe('already-registered');
  });

  test('drop always sends purgeRequested=false and is not retried; a body that is not JSON is a coded bad response', async () => {
    stub.handler = (r) =>
      r.method === 'DELETE' ? { status: 200 } : r.url.includes('/tables/t') ? { status: 200, body: '<html>' } : undefined;
    const c = await connect();
    expect(await c.dropTable(ident)).toEqual({ dropped: true });
    expect(stub.requests('DELETE', '/tables/t')[0]?.url).toBe('/v1/cat1/namespaces/db%1Finner/tables/t?purgeRequested=false');
    expect((await failure(c.loadTable(ident))).code).toBe(ErrorCode.CATALOG_BAD_RESPONSE);

    stub.handler = (r) => (r.method === 'DELETE' ? { status: 503, body: {} } : undefined);
    expect(await failure(c.dropTable(ident))).toMatchObject({ code: ErrorCode.CATALOG_SERVER_ERROR, retryable: true });
    expect(stub.requests('DELETE', '/tables/t')).toHaveLength(2); // the first drop + exactly one attempt now
  });

  test('create namespace: a 500 (a racing creator won) with the namespace there → not created; absent → the retryable 500', async () => {
    let exists = true;
    stub.handler = (r) =>
      r.method === 'POST' && r.url.endsWith('/namespaces')
        ? {
            status: 500,
            body: { error: { message: 'UncheckedSQLException: Failed to execute: INSERT INTO iceberg_namespace_properties', code: 500 } },
          }
        : r.method === 'HEAD'
          ? { status: exists ? 204 : 404 }
          : undefined;
    const c = await connect();
    expect(await c.createNamespace(['db', 'inner'], { owner: 'x' })).toEqual({ created: false });
    expect(stub.requests('POST', '/namespaces')).toHaveLength(1); // a mutation: sent once, never retried
    exists = false;
    expect(await failure(c.createNamespace(['db', 'inner']))).toMatchObject({ code: ErrorCode.CATALOG_SERVER_ERROR, retryable: true });
  });
});
