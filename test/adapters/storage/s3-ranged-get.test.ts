// The footer reads' own SigV4 signer (adapters/storage/object-read/s3-ranged-get.ts S3RangedGet.signedGet):
// byte-equal Authorization headers to the AWS SDK's signer (@smithy/signature-v4) for the same
// request — keys with reserved, unicode and already-encoded characters, virtual-host and path
// style, with and without a session token — and accepted by the real S3 server of the stack for
// such keys (a signature mismatch there is a 403).
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash, createHmac } from 'node:crypto';
// The SDK's own SigV4 signer (a dependency of @aws-sdk/client-s3), as the reference.
import { SignatureV4 } from '@smithy/signature-v4';
import { S3RangedGet } from '../../../adapters/storage/object-read/s3-ranged-get';
import { encodeKey } from '../../../adapters/storage/s3-addressing';
import { testStack, uniqueName } from '../../helpers/stack-env';

const KEYS = [
  'warehouse/db/t/dt=2024-01-01/part-00000.parquet',
  'a b/c+d/e=f&g/h%20i.parquet',
  'spaces only/a b.parquet',
  "x/!'()*/y~z.-_",
  'unicode/día=ñ/文件/🙂.parquet',
  'trailing/slash/',
  'semi;colon/comma,at@dollar$/hash#q?.parquet',
];

function bytes(d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof d === 'string') return d;
  return d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/** The Checksum shape SignatureV4 wants, over node:crypto. */
class Sha256 {
  private readonly h;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(d: string | ArrayBuffer | ArrayBufferView): void {
    this.h.update(bytes(d));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

function fakeClient(creds: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }): S3Client {
  return { config: { credentials: async () => creds } } as unknown as S3Client;
}

describe('S3RangedGet SigV4', () => {
  afterEach(() => jest.useRealTimers());

  for (const pathStyle of [true, false]) {
    for (const token of [undefined, 'session/token+with=chars']) {
      it(`matches the SDK signer (${pathStyle ? 'path' : 'virtual-host'} style, ${token === undefined ? 'no' : 'with'} session token)`, async () => {
        jest.useFakeTimers({ now: new Date('2026-12-04T06:07:08.999Z'), doNotFake: ['nextTick', 'setImmediate'] });
        const creds = {
          accessKeyId: 'AKIDEXAMPLE',
          secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
          ...(token === undefined ? {} : { sessionToken: token }),
        };
        const g = new S3RangedGet(fakeClient(creds), 'eu-west-1', 'http://s3.example.invalid:9000', pathStyle, 1, 1000); // signs only, never connects
        const sdk = new SignatureV4({
          credentials: creds,
          region: 'eu-west-1',
          service: 's3',
          sha256: Sha256,
          uriEscapePath: false,
          applyChecksum: false,
        });
        try {
          for (const key of KEYS) {
            const { path, headers } = await g.signedGet('bkt', key, 'bytes=100-65635');
            const expectPath = `${pathStyle ? '/bkt' : ''}/${encodeKey(key)}`;
            expect(path).toBe(expectPath);
            const { authorization, ...unsigned } = headers;
            const req = { method: 'GET', protocol: 'http:', hostname: unsigned.host as string, path, headers: unsigned, query: {} };
            const signed = await sdk.sign(req, { signingDate: new Date('2026-12-04T06:07:08Z') });
            expect(authorization).toBe(signed.headers.authorization);
          }
        } finally {
          g.destroy();
        }
      });
    }
  }

  it('list and put requests (query string, if-none-match, a payload hash) sign as the SDK signs them', async () => {
    jest.useFakeTimers({ now: new Date('2026-12-04T06:07:08.999Z'), doNotFake: ['nextTick', 'setImmediate'] });
    const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'tok/en+=' };
    const g = new S3RangedGet(fakeClient(creds), 'eu-west-1', 'http://s3.example.invalid:9000', true, 1, 1000);
    const sdk = new SignatureV4({
      credentials: creds,
      region: 'eu-west-1',
      service: 's3',
      sha256: Sha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
    try {
      const query: [string, string][] = [
        ['list-type', '2'],
        ['prefix', 'db/t/dt=2024-01-01 a&b/é+/'],
        ['delimiter', '/'],
        ['continuation-token', 'abc/+=def'],
        ['max-keys', '10'],
      ];
      const list = await g.signed({ method: 'GET', bucket: 'bkt', key: '', query });
      const { authorization: listAuth, ...listHeaders } = list.headers;
      const expected = await sdk.sign(
        {
          method: 'GET',
          protocol: 'http:',
          hostname: listHeaders.host as string,
          path: list.path,
          headers: listHeaders,
          query: Object.fromEntries(query),
        },
        { signingDate: new Date('2026-12-04T06:07:08Z') },
      );
      expect(listAuth).toBe(expected.headers.authorization);
      expect(list.pathAndQuery).toBe(
        '/bkt/?continuation-token=abc%2F%2B%3Ddef&delimiter=%2F&list-type=2&max-keys=10&prefix=db%2Ft%2Fdt%3D2024-01-01%20a%26b%2F%C3%A9%2B%2F',
      );
      const body = 'manifest bytes';
      const hash = createHash('sha256').update(body).digest('hex');
      const put = await g.signed({
        method: 'PUT',
        bucket: 'bkt',
        key: 'db/t/metadata/a b.avro',
        headers: { 'if-none-match': '*' },
        payloadHash: hash,
      });
      const { authorization: putAuth, ...putHeaders } = put.headers;
      expect(putHeaders['x-amz-content-sha256']).toBe(hash);
      const expectedPut = await sdk.sign(
        { method: 'PUT', protocol: 'http:', hostname: putHeaders.host as string, path: put.path, headers: putHeaders, query: {} },
        { signingDate: new Date('2026-12-04T06:07:08Z') },
      );
      expect(putAuth).toBe(expectedPut.headers.authorization);
    } finally {
      g.destroy();
    }
  });

  it('encodeKey: unreserved characters and slashes stay, everything else is percent-encoded per segment', () => {
    expect(encodeKey('a/b-c_d.e~f/0')).toBe('a/b-c_d.e~f/0');
    expect(encodeKey("a b/!'()*/%/+=&")).toBe('a%20b/%21%27%28%29%2A/%25/%2B%3D%26');
    expect(encodeKey('ñ/🙂')).toBe('%C3%B1/%F0%9F%99%82');
    expect(encodeKey('a b/c')).toBe('a%20b/c');
  });

  it('the stack S3 server accepts the signed GETs for those keys (ranged bodies come back)', async () => {
    const env = testStack();
    const s3 = new S3Client({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
    const prefix = `signer/${uniqueName('sig')}/`;
    const g = new S3RangedGet(s3, env.AWS_REGION as string, env.HIM_S3_ENDPOINT, true, 4, 10_000);
    // versitygw stores objects as files: no empty segments, no trailing slash.
    const keys = KEYS.filter((k) => !k.endsWith('/')).map((k) => prefix + k);
    try {
      for (const [i, k] of keys.entries()) await s3.send(new PutObjectCommand({ Bucket: 'warehouse', Key: k, Body: `0123456789-${i}` }));
      for (const [i, k] of keys.entries()) {
        const got = await g.get('warehouse', k, 'bytes=8-');
        expect(Buffer.from(got.bytes).toString()).toBe(`89-${i}`);
        expect(got.total).toBe(`0123456789-${i}`.length);
      }
    } finally {
      await Promise.all(keys.map((k) => s3.send(new DeleteObjectCommand({ Bucket: 'warehouse', Key: k })).catch(() => undefined)));
      g.destroy();
      s3.destroy();
    }
  });
});
