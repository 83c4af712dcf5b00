// A REST catalog's authentication, resolved from the config: `catalog.auth` (bearer, oauth2, sigv4)
// or the older `catalog.tokenEnv` (bearer). The config names environment variables; their values
// — tokens, client secrets — are read here, at the edge, and go only into the catalog client.
// AWS credentials are not read here at all: the SDK's default chain finds them per request.
import type { RestAuth } from '../../adapters/catalog/rest-auth';
import type { CatalogAuthConfig, MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';

type RestCatalogConfig = NonNullable<MigrateConfig['catalog']>;

/** The auth settings in force: `auth`, else `tokenEnv` as bearer, else none. */
export function catalogAuthOf(c: Pick<RestCatalogConfig, 'auth' | 'tokenEnv'>): CatalogAuthConfig | undefined {
  if (c.auth !== undefined) return c.auth;
  return c.tokenEnv === undefined ? undefined : { type: 'bearer', tokenEnv: c.tokenEnv };
}

/** The path in the config a variable came from (for the error). */
function fromEnv(env: NodeJS.ProcessEnv, name: string, path: string, what: string): string {
  const v = env[name];
  if (v === undefined || v === '')
    throw new MigrationError(
      ErrorCode.CONFIG_INVALID,
      `${path} names ${name}, which is not set (or empty) in this environment: export ${name}=<${what}> for every migrate process (CLI and workers)`,
      { path, variable: name },
    );
  return v;
}

/** The signing region: configured, else the standard AWS variables. */
export function sigv4Region(a: Extract<CatalogAuthConfig, { type: 'sigv4' }>, env: NodeJS.ProcessEnv): string {
  const region = a.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (region === undefined || region === '')
    throw new MigrationError(
      ErrorCode.CONFIG_INVALID,
      'catalog.auth.region is not set and neither is AWS_REGION: SigV4 needs the region the catalog is in',
      { path: 'catalog.auth.region' },
    );
  return region;
}

/** What the REST client needs to authenticate, secrets read from `env`. */
export function restAuthFor(c: Pick<RestCatalogConfig, 'auth' | 'tokenEnv'>, env: NodeJS.ProcessEnv): RestAuth {
  const a = catalogAuthOf(c);
  if (a === undefined) return { type: 'none' };
  const at = c.auth === undefined ? 'catalog.tokenEnv' : 'catalog.auth';
  switch (a.type) {
    case 'bearer':
      return { type: 'bearer', token: fromEnv(env, a.tokenEnv, `${at}${c.auth === undefined ? '' : '.tokenEnv'}`, 'bearer token') };
    case 'oauth2':
      return {
        type: 'oauth2',
        clientId: a.clientId ?? fromEnv(env, a.clientIdEnv as string, 'catalog.auth.clientIdEnv', 'client id'),
        clientSecret: fromEnv(env, a.clientSecretEnv, 'catalog.auth.clientSecretEnv', 'client secret'),
        secretFrom: a.clientSecretEnv,
        ...(a.scope !== undefined ? { scope: a.scope } : {}),
        ...(a.tokenEndpoint !== undefined ? { tokenEndpoint: a.tokenEndpoint } : {}),
      };
    case 'sigv4':
      return { type: 'sigv4', service: a.signingName ?? a.service, region: sigv4Region(a, env) };
  }
}
