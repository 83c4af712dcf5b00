// RestCatalog's authentication against real components: Keycloak (the stack's `oauth`, client
// credentials, 10 s access tokens) and the catalog-gateway in front of the reference REST catalog,
// which checks each JWT against Keycloak's JWKS (oauth2 port) or recomputes each SigV4 signature
// with the AWS SDK's signer (sigv4 port). Proves: a token is fetched once and reused, refreshed
// before it expires (the gateway never sees an expired one), a 401 gets exactly one retry with a
// new token, a refused client is CATALOG_AUTH_FAILED naming the token endpoint's error and what to
// fix, SigV4 requests of every kind are accepted and a wrong secret is CATALOG_AUTH_FAILED.
import { RestCatalog } from '../../../adapters/catalog/rest';
import { TokenSource } from '../../../adapters/catalog/rest-auth';
import { SigV4Auth } from '../../../adapters/catalog/rest-sigv4';
import { ErrorCode } from '../../../core/errors';
import { rejectionOf } from '../../helpers/errors';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
const gateway = env.HIM_CATALOG_GATEWAY_URI as string;
const sigv4Gateway = env.HIM_CATALOG_GATEWAY_SIGV4_URI as string;
const tokenEndpoint = `${env.HIM_OAUTH_URL}/realms/him/protocol/openid-connect/token`;
const CLIENT_SECRET = 'him-dev-oauth-secret-0123456789';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Stats {
  oauth2: { requests: number; accepted: number; rejected: Record<string, number>; tokens: { jti: string }[] };
  sigv4: { requests: number; accepted: number; rejected: Record<string, number> };
}
const stats = async (): Promise<Stats> => (await (await fetch(`${gateway}/__gateway/stats`)).json()) as Stats;
const rejected = (s: Stats['oauth2'] | Stats['sigv4'], reason?: string): number =>
  reason === undefined ? Object.values(s.rejected).reduce((a, b) => a + b, 0) : (s.rejected[reason] ?? 0);

function oauth(secret = CLIENT_SECRET): TokenSource {
  return new TokenSource(
    { type: 'oauth2', clientId: 'him-migrator', clientSecret: secret, tokenEndpoint, secretFrom: 'HIM_TEST_SECRET' },
    gateway,
    5000,
  );
}

const thrown = rejectionOf;

describe('REST catalog auth: OAuth2 client credentials through the verifying gateway (Keycloak)', () => {
  it('fetches one token, reuses it, refreshes it before expiry: the gateway never sees an expired token', async () => {
    const before = await stats();
    const tokens = oauth();
    const catalog = await RestCatalog.connect({ uri: gateway, authorizer: tokens });
    for (let i = 0; i < 3; i++) await catalog.namespaceExists([uniqueName('nope')]);
    expect(tokens.fetches).toBe(1);
    expect(tokens.identity).toMatchObject({ clientId: 'him-migrator', scope: 'catalog', endpoint: tokenEndpoint });
    const life = (tokens.identity?.expiresAt ?? 0) - Date.now();
    expect(life).toBeGreaterThan(5_000);
    expect(life).toBeLessThanOrEqual(10_000);
    // Past the token's refresh point (life minus a tenth): the next call fetches a new one first.
    const t0 = Date.now();
    while (Date.now() - t0 < life + 500) {
      await catalog.namespaceExists([uniqueName('nope')]);
      await sleep(1000);
    }
    expect(tokens.fetches).toBe(2);
    const after = await stats();
    expect(after.oauth2.tokens.length - before.oauth2.tokens.length).toBe(2);
    expect(rejected(after.oauth2) - rejected(before.oauth2)).toBe(0);
  }, 60_000);

  it('a revoked token: 401, exactly one retry with a new token, and the call succeeds', async () => {
    const tokens = oauth();
    const catalog = await RestCatalog.connect({ uri: gateway, authorizer: tokens });
    expect(tokens.fetches).toBe(1);
    const before = await stats();
    expect((await fetch(`${gateway}/__gateway/revoke`, { method: 'POST' })).status).toBe(200);
    const attempts = catalog.attempts;
    expect(await catalog.namespaceExists([uniqueName('nope')])).toBe(false);
    expect(catalog.attempts - attempts).toBe(2);
    expect(tokens.fetches).toBe(2);
    const after = await stats();
    expect(rejected(after.oauth2, 'revoked') - rejected(before.oauth2, 'revoked')).toBe(1);
  });

  it('a 401 again after the new token: CATALOG_AUTH_FAILED after exactly one retry (no loop)', async () => {
    const tokens = oauth();
    const catalog = await RestCatalog.connect({ uri: gateway, authorizer: tokens });
    const before = await stats();
    await fetch(`${gateway}/__gateway/reject?count=2`, { method: 'POST' });
    const attempts = catalog.attempts;
    const e = await thrown(catalog.namespaceExists([uniqueName('nope')]));
    expect(e.code).toBe(ErrorCode.CATALOG_AUTH_FAILED);
    expect(e.message).toContain('HTTP 401'); // a HEAD: no error body
    expect(catalog.attempts - attempts).toBe(2);
    expect(tokens.fetches).toBe(2);
    expect(rejected((await stats()).oauth2) - rejected(before.oauth2)).toBe(2);
  });

  it('a wrong client secret: CATALOG_AUTH_FAILED naming the token endpoint, its error and what to fix; no secret in it', async () => {
    const e = await thrown(RestCatalog.connect({ uri: gateway, authorizer: oauth('not-the-secret') }));
    expect(e.code).toBe(ErrorCode.CATALOG_AUTH_FAILED);
    expect(e.retryable).toBe(false);
    expect(e.message).toContain(tokenEndpoint);
    expect(e.message).toContain('unauthorized_client');
    expect(e.message).toContain('check client id him-migrator and the secret in HIM_TEST_SECRET');
    expect(`${e.message}${JSON.stringify(e.context)}`).not.toContain('not-the-secret');
  });

  it('no token at all: the gateway refuses (401) and a static bearer is not retried', async () => {
    const e = await thrown(RestCatalog.connect({ uri: gateway }));
    expect(e.code).toBe(ErrorCode.CATALOG_AUTH_FAILED);
    const e2 = await thrown(RestCatalog.connect({ uri: gateway, auth: { type: 'bearer', token: 'not.a.jwt' } }));
    expect(e2.code).toBe(ErrorCode.CATALOG_AUTH_FAILED);
  });
});

describe('REST catalog auth: SigV4 through the gateway that checks with the AWS SDK signer', () => {
  const creds = { accessKeyId: env.AWS_ACCESS_KEY_ID as string, secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string };
  const sigv4 = (secretAccessKey = creds.secretAccessKey) =>
    new SigV4Auth({ service: 'glue', region: 'eu-west-1', credentials: async () => ({ ...creds, secretAccessKey }) });

  it('create, exists, list, drop of a two-level namespace with odd characters: every request accepted', async () => {
    const before = await stats();
    const catalog = await RestCatalog.connect({ uri: sigv4Gateway, authorizer: sigv4() });
    const ns = [uniqueName('sig'), "a b+c'(d)"];
    await catalog.createNamespace([ns[0] as string]);
    await catalog.createNamespace(ns, { owner: 'x y' });
    expect(await catalog.namespaceExists(ns)).toBe(true);
    expect(await catalog.listNamespaces([ns[0] as string])).toEqual([ns]);
    expect(await catalog.listTables(ns)).toEqual([]);
    await catalog.dropNamespace(ns);
    await catalog.dropNamespace([ns[0] as string]);
    const after = await stats();
    expect(after.sigv4.accepted - before.sigv4.accepted).toBeGreaterThanOrEqual(8);
    expect(rejected(after.sigv4) - rejected(before.sigv4)).toBe(0);
  });

  it('a wrong secret: CATALOG_AUTH_FAILED (403 SignatureDoesNotMatch), no secret in the error', async () => {
    const e = await thrown(RestCatalog.connect({ uri: sigv4Gateway, authorizer: sigv4('wrong-secret-key') }));
    expect(e.code).toBe(ErrorCode.CATALOG_AUTH_FAILED);
    expect(e.message).toContain('HTTP 403 SignatureDoesNotMatch');
    expect(`${e.message}${JSON.stringify(e.context)}`).not.toContain('wrong-secret-key');
  });

  it('the identity names the service, region, key prefix and the chain link, never the key', async () => {
    const old = { k: process.env.AWS_ACCESS_KEY_ID, s: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = creds.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = creds.secretAccessKey;
    try {
      const id = await new SigV4Auth({ service: 's3tables', region: 'us-east-1' }).identity();
      expect(id).toMatchObject({
        service: 's3tables',
        region: 'us-east-1',
        source: 'environment (AWS_ACCESS_KEY_ID)',
        sessionToken: false,
      });
      expect(id.accessKeyIdPrefix).toBe(`${creds.accessKeyId.slice(0, 4)}…`);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = old.k;
      process.env.AWS_SECRET_ACCESS_KEY = old.s;
    }
  });
});
