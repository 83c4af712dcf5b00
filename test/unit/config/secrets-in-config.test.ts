// Secrets never sit in the clear in a config: a catalog uri with user info or a
// token-like query parameter, and rewrite.env variables named like secrets, are refused as
// CONFIG_INVALID by the schema, with the path and what to do instead.
import { configSchema, uriSecret } from '../../../core/config/schema';

const base = {
  storage: { s3: { endpoint: 'http://127.0.0.1:9000' } },
  state: { url: 'postgres://u@127.0.0.1/s' },
};
const issuesOf = (raw: unknown): { path: string; message: string }[] => {
  const r = configSchema.safeParse(raw);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

describe('catalog.uri', () => {
  it.each([
    ['https://alice:s3cret@catalog.example/api', 'credentials (user:password@)'],
    ['https://token@catalog.example/api', 'credentials (user:password@)'],
    ['thrift://u:p@hms:9083', 'credentials (user:password@)'],
    ['https://catalog.example/api?warehouse=w&access_token=abc', 'a secret query parameter (access_token)'],
    ['https://catalog.example/api?X-Amz-Signature=abc', 'a secret query parameter (X-Amz-Signature)'],
    ['https://catalog.example/api?api%5Fkey=abc', 'a secret query parameter (api_key)'],
  ])('%s carries %s and is refused', (uri, what) => {
    expect(uriSecret(uri)).toBe(what);
    const type = uri.startsWith('thrift') ? 'hive' : 'rest';
    expect(issuesOf({ ...base, catalog: { name: 'c', type, uri } })).toEqual([
      { path: 'catalog.uri', message: expect.stringContaining(`catalog.uri carries ${what}`) },
    ]);
  });

  it.each(['https://catalog.example/api', 'http://127.0.0.1:8181', 'https://catalog.example/api?warehouse=w', 'thrift://hms:9083'])(
    '%s carries no secret',
    (uri) => {
      expect(uriSecret(uri)).toBeNull();
    },
  );

  it('a jdbc catalog keeps its password in the uri (its only place; printed redacted)', () => {
    expect(issuesOf({ ...base, catalog: { name: 'c', type: 'jdbc', uri: 'postgres://u:p@db:5432/cat' } })).toEqual([]);
  });
});

describe('rewrite.env', () => {
  const rewrite = (env: Record<string, string>) => ({
    ...base,
    rewrite: { command: ['spark-submit'], warehouse: 's3://w/x', env },
  });
  it.each(['AWS_SECRET_ACCESS_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SESSION_TOKEN', 'DB_PASSWORD', 'GCP_CREDENTIALS', 'my_api_key'])(
    '%s is refused, naming the variable',
    (name) => {
      expect(issuesOf(rewrite({ SPARK_HOME: '/opt/spark', [name]: 'x' }))).toEqual([
        { path: `rewrite.env.${name}`, message: expect.stringContaining('looks like a secret') },
      ]);
    },
  );
  it('SPARK_HOME, PYSPARK_PYTHON, HADOOP_CONF_DIR are fine', () => {
    expect(issuesOf(rewrite({ SPARK_HOME: '/s', PYSPARK_PYTHON: '/p', HADOOP_CONF_DIR: '/h' }))).toEqual([]);
  });
});
