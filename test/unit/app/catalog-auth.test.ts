// catalog.auth in the config schema and its resolution (app/runtime/catalog-auth.ts): the three forms,
// catalog.tokenEnv still meaning bearer, the combinations the schema refuses, and every missing
// variable a CONFIG_INVALID naming the path and the variable — never a value.
import { catalogAuthOf, restAuthFor } from '../../../app/runtime/catalog-auth';
import { catalogSchema } from '../../../core/config/schema';
import { MigrationError } from '../../../core/errors';

const rest = { name: 'c', type: 'rest', uri: 'https://catalog.example/api' } as const;
const parse = (extra: Record<string, unknown>) => catalogSchema.safeParse({ ...rest, ...extra });

describe('catalog.auth: schema', () => {
  it('accepts the three forms and the old tokenEnv', () => {
    expect(parse({ auth: { type: 'bearer', tokenEnv: 'CAT_TOKEN' } }).success).toBe(true);
    expect(parse({ auth: { type: 'oauth2', clientId: 'app', clientSecretEnv: 'CAT_SECRET', scope: 'catalog' } }).success).toBe(true);
    expect(
      parse({ auth: { type: 'oauth2', clientIdEnv: 'CAT_ID', clientSecretEnv: 'CAT_SECRET', tokenEndpoint: 'https://idp/t' } }).success,
    ).toBe(true);
    expect(parse({ auth: { type: 'sigv4', service: 'glue', region: 'eu-west-1' } }).success).toBe(true);
    expect(parse({ auth: { type: 'sigv4', service: 's3tables' } }).success).toBe(true);
    expect(parse({ tokenEnv: 'CAT_TOKEN' }).success).toBe(true);
  });

  it.each([
    ['both clientId and clientIdEnv', { auth: { type: 'oauth2', clientId: 'a', clientIdEnv: 'B', clientSecretEnv: 'S' } }],
    ['neither clientId nor clientIdEnv', { auth: { type: 'oauth2', clientSecretEnv: 'S' } }],
    [
      'a secret value instead of a variable name',
      { auth: { type: 'oauth2', clientId: 'a', clientSecret: 's3cr3t', clientSecretEnv: 'S' } },
    ],
    ['an unknown sigv4 service', { auth: { type: 'sigv4', service: 'execute-api' } }],
    ['an unknown type', { auth: { type: 'basic', user: 'u' } }],
    ['auth and tokenEnv together', { auth: { type: 'bearer', tokenEnv: 'A' }, tokenEnv: 'B' }],
    ['a lower-case variable name', { auth: { type: 'bearer', tokenEnv: 'cat_token' } }],
  ])('refuses %s', (_n, extra) => {
    expect(parse(extra).success).toBe(false);
  });

  it('refuses auth on a hive catalog', () => {
    expect(
      catalogSchema.safeParse({ name: 'h', type: 'hive', uri: 'thrift://h:9083', auth: { type: 'bearer', tokenEnv: 'T' } }).success,
    ).toBe(false);
  });
});

describe('catalog.auth: resolution from the environment', () => {
  it('tokenEnv is bearer; no auth is none', () => {
    expect(catalogAuthOf({ tokenEnv: 'T' })).toEqual({ type: 'bearer', tokenEnv: 'T' });
    expect(restAuthFor({ tokenEnv: 'T' }, { T: 'tok' })).toEqual({ type: 'bearer', token: 'tok' });
    expect(restAuthFor({}, {})).toEqual({ type: 'none' });
  });

  it('oauth2 reads the client id and secret from the named variables', () => {
    const auth = { type: 'oauth2', clientIdEnv: 'CID', clientSecretEnv: 'CSEC', scope: 'catalog' } as const;
    expect(restAuthFor({ auth }, { CID: 'app', CSEC: 'x' })).toEqual({
      type: 'oauth2',
      clientId: 'app',
      clientSecret: 'x',
      scope: 'catalog',
      secretFrom: 'CSEC',
    });
  });

  it('sigv4 takes the region from config, else AWS_REGION, else AWS_DEFAULT_REGION', () => {
    expect(restAuthFor({ auth: { type: 'sigv4', service: 'glue', region: 'eu-west-1' } }, { AWS_REGION: 'us-east-1' })).toMatchObject({
      service: 'glue',
      region: 'eu-west-1',
    });
    expect(restAuthFor({ auth: { type: 'sigv4', service: 's3tables' } }, { AWS_DEFAULT_REGION: 'ap-south-1' })).toMatchObject({
      service: 's3tables',
      region: 'ap-south-1',
    });
    expect(restAuthFor({ auth: { type: 'sigv4', service: 'glue', signingName: 'proxy' } }, { AWS_REGION: 'r' })).toMatchObject({
      service: 'proxy',
    });
  });

  it.each([
    [
      'the client secret variable',
      { auth: { type: 'oauth2', clientId: 'a', clientSecretEnv: 'NOPE_SECRET' } },
      'catalog.auth.clientSecretEnv',
      'NOPE_SECRET',
    ],
    [
      'the client id variable',
      { auth: { type: 'oauth2', clientIdEnv: 'NOPE_ID', clientSecretEnv: 'S' } },
      'catalog.auth.clientIdEnv',
      'NOPE_ID',
    ],
    ['the bearer variable', { auth: { type: 'bearer', tokenEnv: 'NOPE_T' } }, 'catalog.auth.tokenEnv', 'NOPE_T'],
    ['the old tokenEnv variable', { tokenEnv: 'NOPE_OLD' }, 'catalog.tokenEnv', 'NOPE_OLD'],
    ['the sigv4 region', { auth: { type: 'sigv4', service: 'glue' } }, 'catalog.auth.region', 'AWS_REGION'],
  ] as const)('an unset %s is CONFIG_INVALID naming the path', (_n, c, path, variable) => {
    let err: unknown;
    try {
      restAuthFor(c as Parameters<typeof restAuthFor>[0], { S: 'secret-value' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MigrationError);
    expect(err).toMatchObject({ code: 'CONFIG_INVALID', context: { path } });
    expect((err as Error).message).toContain(variable);
    expect((err as Error).message).not.toContain('secret-value');
  });
});
