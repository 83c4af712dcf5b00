// The s3-sts stack component (moto: S3 + IAM + STS with SigV4 verification) for tests: its
// provisioned user, STS AssumeRole (a SigV4-signed query request, as the AWS CLI sends), and a
// lookup that maps <bucket>.s3.test to 127.0.0.1 (curl --resolve style; nothing resolves *.test).
import * as dns from 'node:dns';
import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { testStack } from './stack-env';

export interface StsIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly roleArn: string;
}

export interface SessionCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  readonly expiration: Date;
}

export function stsStack(): { endpoint: string; port: number; region: string; identity: StsIdentity; virtualEndpoint: string } {
  const env = testStack();
  const endpoint = env.HIM_S3_STS_ENDPOINT as string;
  const port = Number(new URL(endpoint).port);
  const identity = JSON.parse(readFileSync(env.HIM_S3_STS_IDENTITY as string, 'utf8')) as StsIdentity;
  return { endpoint, port, region: env.AWS_REGION as string, identity, virtualEndpoint: `http://s3.test:${port}` };
}

/** Resolves s3.test and any *.s3.test to 127.0.0.1; everything else as usual. */
export const testLookup: LookupFunction = (hostname, options, callback) => {
  if (hostname === 's3.test' || hostname.endsWith('.s3.test')) {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  dns.lookup(hostname, options, callback);
};

type Bytes = string | ArrayBuffer | ArrayBufferView;
function bytes(d: Bytes): string | Uint8Array {
  if (typeof d === 'string') return d;
  return d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}
class Sha256 {
  private readonly h;
  constructor(secret?: Bytes) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(d: Bytes): void {
    this.h.update(bytes(d));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

function tag(xml: string, name: string): string {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  if (!m) throw new Error(`STS answer without <${name}>: ${xml.slice(0, 300)}`);
  return m[1] as string;
}

/** STS AssumeRole of the provisioned role with the provisioned user's keys: fresh session credentials. */
export async function assumeRole(durationSeconds = 3600): Promise<SessionCredentials> {
  const { endpoint, region, identity } = stsStack();
  const url = new URL(endpoint);
  const body = new URLSearchParams({
    Action: 'AssumeRole',
    Version: '2011-06-15',
    RoleArn: identity.roleArn,
    RoleSessionName: `him-test-${Date.now()}`,
    DurationSeconds: String(durationSeconds),
  }).toString();
  const signer = new SignatureV4({ credentials: identity, region, service: 'sts', sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
    query: {},
  });
  const res = await fetch(endpoint, { method: 'POST', headers: signed.headers as Record<string, string>, body });
  const xml = await res.text();
  if (!res.ok) throw new Error(`AssumeRole: HTTP ${res.status}: ${xml.slice(0, 300)}`);
  return {
    accessKeyId: tag(xml, 'AccessKeyId'),
    secretAccessKey: tag(xml, 'SecretAccessKey'),
    sessionToken: tag(xml, 'SessionToken'),
    expiration: new Date(tag(xml, 'Expiration')),
  };
}
