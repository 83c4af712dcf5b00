// Our SigV4 signer (adapters/catalog/sigv4.ts) against the AWS SDK's own (@smithy/signature-v4): for
// every request shape the REST catalog client makes — config with a warehouse, namespace and table
// GET/HEAD/DELETE, POST create/register/commit with a JSON body, multi-level namespaces joined by
// %1F, names with spaces and reserved characters, a session token, both signing names — the
// Authorization header and every header we add are byte-equal.
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { signRequest } from '../../../adapters/catalog/sigv4';
import type { AwsCredentials } from '../../../adapters/catalog/sigv4';

const BASE = 'https://glue.eu-west-1.amazonaws.com/iceberg';
const keys: AwsCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const session: AwsCredentials = { ...keys, accessKeyId: 'ASIAEXAMPLE', sessionToken: 'IQoJb3JpZ2luX2VjE+/token==' };
const now = new Date('2026-12-04T21:25:01.123Z');
const json = { accept: 'application/json', 'content-type': 'application/json' };

interface Shape {
  readonly name: string;
  readonly method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

const ns = encodeURIComponent('sales\u001feu');
const SHAPES: Shape[] = [
  { name: 'config with warehouse', method: 'GET', path: '/v1/config', query: { warehouse: '123456789012:s3tablescatalog/bucket one' } },
  {
    name: 'list namespaces with parent and page token',
    method: 'GET',
    path: '/v1/p/namespaces',
    query: { parent: 'a\u001fb', pageToken: 'x+y/z=' },
  },
  { name: 'namespace exists', method: 'HEAD', path: `/v1/p/namespaces/${ns}` },
  { name: 'load table (multi-level namespace)', method: 'GET', path: `/v1/p/namespaces/${ns}/tables/orders`, query: { snapshots: 'all' } },
  {
    name: 'table exists, name with reserved chars',
    method: 'HEAD',
    path: `/v1/p/namespaces/db/tables/${encodeURIComponent("o r'(d)*!~e$s")}`,
  },
  { name: 'create namespace', method: 'POST', path: '/v1/p/namespaces', body: '{"namespace":["sales","eu"],"properties":{}}' },
  {
    name: 'register with delegation header',
    method: 'POST',
    path: `/v1/p/namespaces/${ns}/register`,
    body: '{"name":"orders","metadata-location":"s3://b/t/metadata/00000-é.metadata.json"}',
    headers: { 'x-iceberg-access-delegation': 'vended-credentials' },
  },
  {
    name: 'commit (requirements and updates)',
    method: 'POST',
    path: `/v1/p/namespaces/${ns}/tables/orders`,
    body: '{"requirements":[{"type":"assert-table-uuid","uuid":"u"}],"updates":[]}',
  },
  { name: 'drop table without purge', method: 'DELETE', path: `/v1/p/namespaces/${ns}/tables/orders`, query: { purgeRequested: 'false' } },
  { name: 'drop namespace', method: 'DELETE', path: `/v1/p/namespaces/${encodeURIComponent('a b%c')}` },
  { name: 'dot segments and a trailing slash', method: 'GET', path: '/v1/p/./namespaces/x/../y/' },
];

async function sdkSign(s: Shape, base: string, creds: AwsCredentials, service: string, region: string): Promise<Record<string, string>> {
  const url = new URL(`${base}${s.path}`);
  for (const [k, v] of Object.entries(s.query ?? {})) url.searchParams.append(k, v);
  const signer = new SignatureV4({ credentials: creds, region, service, sha256: Hash.bind(null, 'sha256') });
  const signed = await signer.sign(
    {
      method: s.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { host: url.host, ...json, ...s.headers },
      ...(s.body !== undefined ? { body: s.body } : {}),
    },
    { signingDate: now },
  );
  return signed.headers;
}

function ourSign(s: Shape, base: string, creds: AwsCredentials, service: string, region: string): Record<string, string> {
  const url = new URL(`${base}${s.path}`);
  for (const [k, v] of Object.entries(s.query ?? {})) url.searchParams.append(k, v);
  return signRequest({
    method: s.method,
    url: url.toString(),
    headers: { ...json, ...s.headers },
    body: s.body,
    region,
    service,
    credentials: creds,
    now,
  });
}

describe('SigV4: byte-equal to @smithy/signature-v4 for the catalog request shapes', () => {
  const cases = SHAPES.flatMap((s) => [
    [s.name, s, BASE, keys, 'glue', 'eu-west-1'] as const,
    [`${s.name} (s3tables, session token, port)`, s, 'http://127.0.0.1:8483/iceberg', session, 's3tables', 'us-east-1'] as const,
  ]);
  it.each(cases)('%s', async (_n, shape, base, creds, service, region) => {
    const sdk = await sdkSign(shape, base, creds, service, region);
    const ours = ourSign(shape, base, creds, service, region);
    expect(ours.authorization).toBe(sdk.authorization);
    for (const h of ['x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token']) expect(ours[h]).toBe(sdk[h]);
    expect(ours.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/20261204/${region}/${service}/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date`,
      ),
    );
  });

  it('a different secret gives a different signature (the gateway test relies on it)', () => {
    const s = SHAPES[0] as Shape;
    const a = ourSign(s, BASE, keys, 'glue', 'eu-west-1').authorization;
    const b = ourSign(s, BASE, { ...keys, secretAccessKey: `${keys.secretAccessKey}x` }, 'glue', 'eu-west-1').authorization;
    expect(a).not.toBe(b);
  });
});
