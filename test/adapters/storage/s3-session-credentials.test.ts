// The fast footer path (S3RangedGet, and the signed reads footer threads send) against the stack's
// s3-sts server (moto: SigV4 verified against IAM keys; STS session credentials must carry their
// exact session token): temporary credentials from the SDK's default chain — environment, shared
// profile file, container credentials endpoint and instance metadata (IMDSv2) with refresh before
// expiry — virtual-hosted and path-style addressing, and the coded errors of an invalid token, a
// wrong secret, no credentials, and credentials the provider hands back already expired.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { S3RangedGet } from '../../../adapters/storage/object-read/s3-ranged-get';
import { S3ObjectStore } from '../../../adapters/storage/s3-store';
import { CREDENTIAL_MARGIN_MS, describeCredentials } from '../../../adapters/storage/s3-credentials';
import { threadGet } from '../../../adapters/storage/object-read/thread-transport';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { REMEDIES } from '../../../core/error-remedies';
import { assumeRole, stsStack, testLookup } from '../../helpers/sts';
import type { SessionCredentials } from '../../helpers/sts';
import { uniqueName } from '../../helpers/stack-env';

const BUCKET = 'sts-warehouse';
const CHAIN_VARS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_CREDENTIAL_EXPIRATION',
  'AWS_PROFILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_EC2_METADATA_SERVICE_ENDPOINT',
  'AWS_EC2_METADATA_V1_DISABLED',
] as const;

const sts = stsStack();
const key = `footers/${uniqueName('sess')}/part-0.parquet`;
const BODY = 'PAR1-0123456789-footer-bytes-PAR1';
let saved: Record<string, string | undefined>;
let tmp: string;

/** The default chain sees only what a test sets (no stack keys, no ~/.aws files, no IMDS). */
function clearChain(): void {
  for (const v of CHAIN_VARS) delete process.env[v];
  process.env.AWS_SHARED_CREDENTIALS_FILE = path.join(tmp, 'none-credentials');
  process.env.AWS_CONFIG_FILE = path.join(tmp, 'none-config');
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
}

function setEnvSession(c: SessionCredentials): void {
  process.env.AWS_ACCESS_KEY_ID = c.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = c.secretAccessKey;
  process.env.AWS_SESSION_TOKEN = c.sessionToken;
  process.env.AWS_CREDENTIAL_EXPIRATION = c.expiration.toISOString();
}

/** The lean path the way openStores builds it: the S3 client's default chain, no credentials in code. */
function lean(endpoint: string, pathStyle: boolean): { g: S3RangedGet; client: S3Client } {
  const client = new S3Client({ endpoint, region: sts.region, forcePathStyle: pathStyle });
  return { g: new S3RangedGet(client, sts.region, endpoint, pathStyle, 4, 10_000, { lookup: testLookup }), client };
}

beforeAll(async () => {
  saved = Object.fromEntries([...CHAIN_VARS, 'AWS_EC2_METADATA_DISABLED'].map((v) => [v, process.env[v]]));
  tmp = mkdtempSync(path.join(os.tmpdir(), 'him-s3-sess-'));
  const admin = new S3Client({ endpoint: sts.endpoint, region: sts.region, forcePathStyle: true, credentials: sts.identity });
  await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: BODY }));
  admin.destroy();
});

afterEach(() => clearChain());

afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(tmp, { recursive: true, force: true });
});

/**
 * Answers a metadata service's credentials request with a new STS session (recorded in `issued`)
 * that expires the refresh margin plus 1.5 s from now, so a 4 s read loop outlives several.
 */
function serveSession(res: http.ServerResponse, issued: Map<string, Date>, extra: Record<string, string>): void {
  assumeRole()
    .then((c) => {
      const expiration = new Date(Date.now() + CREDENTIAL_MARGIN_MS + 1500);
      issued.set(c.accessKeyId, expiration);
      res.setHeader('content-type', 'application/json');
      const body = { ...extra, AccessKeyId: c.accessKeyId, SecretAccessKey: c.secretAccessKey, Token: c.sessionToken };
      res.end(JSON.stringify({ ...body, Expiration: expiration.toISOString() }));
    })
    .catch((e: Error) => {
      res.statusCode = 500;
      res.end(e.message);
    });
}

describe('fast footer path with temporary credentials (s3-sts: moto, SigV4 + session token verified)', () => {
  it('env session credentials, virtual-hosted <bucket>.s3.test: main-thread GET and the thread-sent signed read both succeed', async () => {
    clearChain();
    const session = await assumeRole();
    setEnvSession(session);
    const { g, client } = lean(sts.virtualEndpoint, false);
    try {
      const signed = await g.signedGet(BUCKET, key, 'bytes=5-14');
      expect(signed.origin).toBe(`http://${BUCKET}.s3.test:${sts.port}`);
      expect(signed.headers.host).toBe(`${BUCKET}.s3.test:${sts.port}`);
      expect(signed.path).toBe(`/${key}`);
      expect(signed.headers['x-amz-security-token']).toBe(session.sessionToken);
      expect(signed.headers.authorization).toContain('x-amz-security-token');
      const got = await g.get(BUCKET, key, 'bytes=5-14');
      expect(Buffer.from(got.bytes).toString()).toBe('0123456789');
      // What a footer thread receives: a fully signed request (no credentials), sent by the thread's raw transport.
      const read = await g.signedUrl(BUCKET, key, 'bytes=0-3');
      expect(JSON.stringify(read)).not.toContain(session.secretAccessKey);
      expect(Buffer.from(await threadGet(read)).toString()).toBe('PAR1');
      const d = describeCredentials(await g.credentials.get());
      expect(d).toMatchObject({
        source: 'environment (AWS_ACCESS_KEY_ID)',
        session: true,
        accessKeyPrefix: `${session.accessKeyId.slice(0, 4)}…`,
      });
      expect(d.expiresAt).toBe(session.expiration.toISOString());
    } finally {
      g.destroy();
      client.destroy();
    }
  });

  it('a shared profile file with aws_session_token (AWS_SHARED_CREDENTIALS_FILE + AWS_PROFILE), path-style on 127.0.0.1', async () => {
    clearChain();
    const session = await assumeRole();
    const file = path.join(tmp, 'credentials');
    writeFileSync(
      file,
      `[him-test]\naws_access_key_id = ${session.accessKeyId}\naws_secret_access_key = ${session.secretAccessKey}\naws_session_token = ${session.sessionToken}\n`,
    );
    process.env.AWS_SHARED_CREDENTIALS_FILE = file;
    process.env.AWS_PROFILE = 'him-test';
    const { g, client } = lean(sts.endpoint, true);
    try {
      expect((await g.signedGet(BUCKET, key, 'bytes=0-3')).path).toBe(`/${BUCKET}/${key}`);
      expect(Buffer.from((await g.get(BUCKET, key, 'bytes=0-3')).bytes).toString()).toBe('PAR1');
      expect(describeCredentials(await g.credentials.get()).source).toBe('shared profile');
    } finally {
      g.destroy();
      client.destroy();
    }
  });

  it('the container credentials endpoint with short-lived sessions: refreshed before expiry, nothing signed within the margin', async () => {
    clearChain();
    const issued = new Map<string, Date>();
    let calls = 0;
    // What ECS/EKS pod identity serve: session credentials with an Expiration, here the margin plus
    // 1.5 s ahead, so a 4 s read loop outlives several of them.
    const server = http.createServer((_req, res) => {
      calls += 1;
      serveSession(res, issued, {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `http://127.0.0.1:${(server.address() as { port: number }).port}/creds`;
    const { g, client } = lean(sts.virtualEndpoint, false);
    const used = new Set<string>();
    try {
      const until = Date.now() + 4000;
      while (Date.now() < until) {
        const before = Date.now();
        const signed = await g.signedGet(BUCKET, key, 'bytes=0-3');
        const id = /Credential=([^/]+)\//.exec(signed.headers.authorization ?? '')?.[1] ?? '';
        const expiry = issued.get(id);
        // Every request is signed with credentials at least the margin away from their expiry.
        expect(expiry).toBeDefined();
        expect((expiry as Date).getTime() - before).toBeGreaterThan(CREDENTIAL_MARGIN_MS);
        used.add(id);
        expect(Buffer.from((await g.get(BUCKET, key, 'bytes=0-3')).bytes).toString()).toBe('PAR1');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(calls).toBeGreaterThanOrEqual(2);
      expect(used.size).toBeGreaterThanOrEqual(2);
      expect(describeCredentials(await g.credentials.get()).source).toBe('container credentials endpoint');
    } finally {
      g.destroy();
      client.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('fast footer path with instance metadata credentials (IMDSv2)', () => {
  it('an IMDSv2 endpoint (token PUT, role name, session credentials): used and refreshed before expiry, every GET with the token', async () => {
    clearChain();
    delete process.env.AWS_EC2_METADATA_DISABLED;
    const issued = new Map<string, Date>();
    const seen = { tokens: 0, roleLists: 0, credentials: 0, withoutToken: 0 };
    const TOKEN = `imds-token-${uniqueName('t')}`;
    // What EC2's metadata service answers (IMDSv2): PUT /latest/api/token with a TTL header gives a
    // token; GETs carrying it list the role and give its session credentials (here the margin plus 1.5 s ahead).
    const server = http.createServer((req, res) => {
      const url = req.url ?? '';
      if (req.method === 'PUT' && url === '/latest/api/token' && req.headers['x-aws-ec2-metadata-token-ttl-seconds'] !== undefined) {
        seen.tokens += 1;
        res.end(TOKEN);
        return;
      }
      if (req.method !== 'GET' || req.headers['x-aws-ec2-metadata-token'] !== TOKEN) {
        seen.withoutToken += 1;
        res.statusCode = 401;
        res.end();
        return;
      }
      if (url === '/latest/meta-data/iam/security-credentials/') {
        seen.roleLists += 1;
        res.end('him-worker-role');
        return;
      }
      if (url !== '/latest/meta-data/iam/security-credentials/him-worker-role') {
        res.statusCode = 404;
        res.end();
        return;
      }
      seen.credentials += 1;
      serveSession(res, issued, { Code: 'Success', LastUpdated: new Date().toISOString(), Type: 'AWS-HMAC' });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    process.env.AWS_EC2_METADATA_V1_DISABLED = 'true';
    const { g, client } = lean(sts.endpoint, true);
    const used = new Set<string>();
    try {
      for (const until = Date.now() + 4000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        const before = Date.now();
        const signed = await g.signedGet(BUCKET, key, 'bytes=0-3');
        const id = /Credential=([^/]+)\//.exec(signed.headers.authorization ?? '')?.[1] ?? '';
        expect(issued.get(id)?.getTime() ?? 0).toBeGreaterThan(before + CREDENTIAL_MARGIN_MS);
        expect(signed.headers['x-amz-security-token']).toBeDefined();
        used.add(id);
        expect(Buffer.from((await g.get(BUCKET, key, 'bytes=0-3')).bytes).toString()).toBe('PAR1');
      }
      expect(seen.credentials).toBeGreaterThanOrEqual(2);
      expect(used.size).toBeGreaterThanOrEqual(2);
      expect(seen.tokens).toBeGreaterThanOrEqual(1);
      expect(seen.withoutToken).toBe(0);
      expect(describeCredentials(await g.credentials.get()).source).toBe('instance metadata (IMDS)');
    } finally {
      g.destroy();
      client.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      delete process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT;
      delete process.env.AWS_EC2_METADATA_V1_DISABLED;
    }
  });
});

/** The store's ranged read (the lean path, errors translated) with explicit credentials. */
async function readWith(credentials: S3ClientConfig['credentials']): Promise<MigrationError> {
  const client = new S3Client({ endpoint: sts.virtualEndpoint, region: sts.region, forcePathStyle: false, credentials, maxAttempts: 1 });
  const store = new S3ObjectStore({
    metadataPrefixes: [],
    client,
    endpoint: sts.virtualEndpoint,
    region: sts.region,
    forcePathStyle: false,
    rangedGet: new S3RangedGet(client, sts.region, sts.virtualEndpoint, false, 2, 10_000, { lookup: testLookup }),
  });
  try {
    await store.readRange(`s3://${BUCKET}/${key}`, 0, 4);
  } catch (e) {
    return e as MigrationError;
  } finally {
    client.destroy();
  }
  throw new Error('the read succeeded');
}

describe('fast footer path: coded errors with remedies', () => {
  it('an invalid session token → STORAGE_ACCESS_DENIED (the server checks the token)', async () => {
    const s = await assumeRole();
    const e = await readWith({ ...s, sessionToken: `${s.sessionToken.slice(0, -4)}XXXX` });
    expect(e).toBeInstanceOf(MigrationError);
    expect(e.code).toBe(ErrorCode.STORAGE_ACCESS_DENIED);
    expect(e.message).not.toContain(s.sessionToken);
    expect(REMEDIES[e.code]).toMatch(/credentials/);
  });

  it('a wrong secret → STORAGE_ACCESS_DENIED (SignatureDoesNotMatch)', async () => {
    const s = await assumeRole();
    const e = await readWith({ ...s, secretAccessKey: `${s.secretAccessKey}x` });
    expect(e.code).toBe(ErrorCode.STORAGE_ACCESS_DENIED);
    expect(e.context.s3Error).toBe('SignatureDoesNotMatch');
  });

  it('no credentials anywhere in the chain → STORAGE_CREDENTIALS_MISSING', async () => {
    clearChain();
    const e = await readWith(undefined);
    expect(e.code).toBe(ErrorCode.STORAGE_CREDENTIALS_MISSING);
    expect(REMEDIES[e.code]).toMatch(/AWS_PROFILE/);
  });

  it('a provider handing back expired session credentials → STORAGE_CREDENTIALS_EXPIRED, nothing signed', async () => {
    const s = await assumeRole();
    const e = await readWith(async () => ({ ...s, expiration: new Date(Date.now() - 1000) }));
    expect(e.code).toBe(ErrorCode.STORAGE_CREDENTIALS_EXPIRED);
    expect(e.message).toContain('expired at');
    expect(e.message).not.toContain(s.secretAccessKey);
  });
});
