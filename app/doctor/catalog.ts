// `doctor` for a REST catalog with `catalog.auth`: the `auth` check says which method is in force and
// who we are to the catalog — OAuth2: token endpoint, client id, token subject, scope and expiry
// (from a token fetched now); SigV4: service, region, the access key id's prefix and which link of
// the AWS chain gave the credentials; bearer: the variable — then `reachable` with GET /v1/config
// through that authorization. Each failure carries its code and a remedy for that method. Never a
// secret, token or full key id in the output.
import type { RequestAuth } from '../../adapters/catalog/request-auth';
import type { TokenIdentity } from '../../adapters/catalog/rest-auth';
import { createRequestAuth, TokenSource } from '../../adapters/catalog/rest-auth';
import { probeRestCatalog } from '../../adapters/catalog/rest-probe';
import type { SigV4Auth } from '../../adapters/catalog/rest-sigv4';
import type { CatalogAuthConfig, MigrateConfig } from '../../core/config/schema';
import { ErrorCode, isMigrationError } from '../../core/errors';
import { restAuthFor } from '../runtime/catalog-auth';
import type { Outcome } from './outcome';

type CatalogConfig = NonNullable<MigrateConfig['catalog']>;

/** What to do when the catalog or its token endpoint refuses us, per method. */
export function authRemedy(a: CatalogAuthConfig, c: CatalogConfig): string {
  switch (a.type) {
    case 'bearer':
      return `Put a valid, unexpired token for ${c.uri} in ${a.tokenEnv} (every migrate process: CLI and workers), and check its grants on the catalog.`;
    case 'oauth2': {
      const id = a.clientId ?? `the id in ${a.clientIdEnv}`;
      const at = a.tokenEndpoint ?? 'the catalog’s token endpoint';
      return `Check client ${id} and the secret in ${a.clientSecretEnv} at ${at} (client credentials grant enabled, scope ${a.scope ?? 'catalog'} allowed); if a token is issued but the catalog answers 401/403, have the catalog trust that issuer and grant the client access.`;
    }
    case 'sigv4':
      return `Check the AWS credentials the default chain finds (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the instance/pod role), catalog.auth.region and service (${a.service}), the clock (SigV4 allows minutes of skew), and that the IAM policy grants the ${a.service} catalog actions.`;
  }
}

const inSeconds = (at: number | undefined): string =>
  at === undefined ? 'no expiry given' : `expires in ${Math.round((at - Date.now()) / 1000)} s (${new Date(at).toISOString()})`;

function oauthDetail(i: TokenIdentity | undefined): string {
  if (i === undefined) return 'oauth2 client credentials: no token fetched';
  const who = [i.clientId && `client ${i.clientId}`, i.subject && `subject ${i.subject}`, i.scope && `scope ${i.scope}`].filter(Boolean);
  return `oauth2 client credentials at ${i.endpoint}: ${who.join(', ')}; token ${inSeconds(i.expiresAt)}`;
}

async function identityOf(a: CatalogAuthConfig, auth: RequestAuth): Promise<string> {
  if (a.type === 'bearer') return `bearer token from ${a.tokenEnv}`;
  if (a.type === 'oauth2') return oauthDetail((auth as TokenSource).identity);
  const i = await (auth as SigV4Auth).identity();
  const expiry = i.expiresAt === undefined ? '' : `, credentials ${inSeconds(i.expiresAt)}`;
  return `sigv4 service ${i.service}, region ${i.region}, access key ${i.accessKeyIdPrefix} from ${i.source}${i.sessionToken ? ' (session token)' : ''}${expiry}`;
}

/** The `auth` and `reachable` checks of a REST catalog that has `catalog.auth`. */
export async function restAuthOutcomes(
  c: CatalogConfig,
  a: CatalogAuthConfig,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Promise<Outcome[]> {
  const fail = (e: unknown, code?: string): Outcome[] => [
    {
      check: 'auth',
      status: 'fail',
      code: code ?? (isMigrationError(e) ? e.code : ErrorCode.CATALOG_AUTH_FAILED),
      detail: (e as Error).message,
      remedy: isMigrationError(e) && e.code === ErrorCode.CONFIG_INVALID ? `${(e as Error).message}.` : authRemedy(a, c),
    },
  ];
  let auth: RequestAuth;
  try {
    auth = createRequestAuth(restAuthFor(c, env), c.uri.replace(/\/+$/, ''), timeoutMs);
    // OAuth2: the token first, so a refused client is told apart from an unreachable catalog.
    if (auth instanceof TokenSource) await auth.authorization();
  } catch (e) {
    return fail(e);
  }
  let probe: Awaited<ReturnType<typeof probeRestCatalog>>;
  try {
    probe = await probeRestCatalog(c.uri, timeoutMs, auth);
  } catch (e) {
    if (isMigrationError(e) && e.code === ErrorCode.CATALOG_AUTH_FAILED) return fail(e);
    throw e;
  }
  const detail = `GET /v1/config ok (${Object.keys(probe.defaults).length} defaults, ${Object.keys(probe.overrides).length} overrides)`;
  return [
    { check: 'auth', detail: await identityOf(a, auth) },
    { check: 'reachable', latencyMs: probe.latencyMs, detail },
  ];
}
