// The footer threads with temporary credentials, against the stack's s3-sts server (moto: SigV4
// and session tokens verified), virtual-hosted <bucket>.s3.test: the main thread signs each read
// with credentials it refreshes before expiry (a container credentials endpoint serving
// short-lived STS sessions) and a thread sends it; the threads never receive a secret, and reads
// keep succeeding across refreshes without a fallback to the main thread.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { FooterThreads } from '../../../adapters/storage/object-read/footer-pool';
import { ParquetFooterReader } from '../../../adapters/storage/object-read/parquet-footer-reader';
import { DEFAULT_TAIL_BYTES } from '../../../adapters/formats/parquet/footer';
import { S3RangedGet } from '../../../adapters/storage/object-read/s3-ranged-get';
import { S3ObjectStore } from '../../../adapters/storage/s3-store';
import { CREDENTIAL_MARGIN_MS } from '../../../adapters/storage/s3-credentials';
import { buildNameMapping } from '../../../core/iceberg/name-mapping';
import { prim } from '../../../core/iceberg/types';
import type { Schema } from '../../../core/iceberg/types';
import type { SignedRead } from '../../../core/storage/object-store';
import { assumeRole, stsStack, testLookup } from '../../helpers/sts';
import { testStack, uniqueName } from '../../helpers/stack-env';

const BUCKET = 'sts-warehouse';
const sts = stsStack();
const schema: Schema = { schemaId: 0, fields: [{ id: 1, name: 'id', required: false, type: prim.long }] };
const ctx = { schema, nameMapping: buildNameMapping(schema) };
const key = `threads/${uniqueName('sess')}/part-0.parquet`;
const VARS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_CONTAINER_CREDENTIALS_FULL_URI'];
let saved: Record<string, string | undefined>;
let size = 0;
const secrets = new Set<string>();
let calls = 0;
let server: http.Server;

/** A container credentials endpoint minting a fresh STS session per call, each the margin plus 1.5 s from expiry. */
function credentialServer(): http.Server {
  return http.createServer((_req, res) => {
    calls += 1;
    assumeRole()
      .then((c) => {
        secrets.add(c.secretAccessKey);
        const Expiration = new Date(Date.now() + CREDENTIAL_MARGIN_MS + 1500).toISOString();
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ AccessKeyId: c.accessKeyId, SecretAccessKey: c.secretAccessKey, Token: c.sessionToken, Expiration }));
      })
      .catch((e: Error) => {
        res.statusCode = 500;
        res.end(e.message);
      });
  });
}

beforeAll(async () => {
  saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-threads-sess-'));
  const file = path.join(dir, 'part-0.parquet');
  const py =
    'import pyarrow as pa, pyarrow.parquet as pq, sys; pq.write_table(pa.table({"id": pa.array(range(1000), pa.int64())}), sys.argv[1])';
  execFileSync(testStack().HIM_VERIFIER_PYTHON as string, ['-c', py, file]);
  const body = readFileSync(file);
  size = body.length;
  rmSync(dir, { recursive: true, force: true });
  const admin = new S3Client({ endpoint: sts.endpoint, region: sts.region, forcePathStyle: true, credentials: sts.identity });
  await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  admin.destroy();
  server = credentialServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  for (const v of VARS) delete process.env[v];
  process.env.AWS_SHARED_CREDENTIALS_FILE = path.join(os.tmpdir(), 'him-none-credentials');
  process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `http://127.0.0.1:${(server.address() as { port: number }).port}/creds`;
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  delete process.env.AWS_SHARED_CREDENTIALS_FILE;
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('threads send reads signed with refreshed session credentials (virtual-hosted), never holding a secret', async () => {
  const client = new S3Client({ endpoint: sts.virtualEndpoint, region: sts.region, forcePathStyle: false });
  const rangedGet = new S3RangedGet(client, sts.region, sts.virtualEndpoint, false, 4, 10_000, { lookup: testLookup });
  const store = new S3ObjectStore({
    metadataPrefixes: [],
    client,
    endpoint: sts.virtualEndpoint,
    region: sts.region,
    forcePathStyle: false,
    rangedGet,
  });
  const pool = new FooterThreads(2);
  const remote = jest.spyOn(pool, 'statsRemote');
  try {
    const reader = new ParquetFooterReader(store, DEFAULT_TAIL_BYTES, pool);
    const until = Date.now() + 4000;
    let reads = 0;
    while (Date.now() < until) {
      const stats = await reader.readStats(`s3://${BUCKET}/${key}`, size, ctx);
      expect(stats.recordCount).toBe(1000);
      reads += 1;
      await new Promise((r) => setTimeout(r, 150));
    }
    // Every read went through a thread and came back as stats (a failed thread GET would be 'fallback').
    expect(remote).toHaveBeenCalledTimes(reads);
    const kinds = await Promise.all(remote.mock.results.map(async (r) => ((await r.value) as { kind: string }).kind));
    expect(new Set(kinds)).toEqual(new Set(['stats']));
    // What the threads were handed: URL and signed headers only, to the virtual host, no secret.
    for (const [, read] of remote.mock.calls as unknown as [string, SignedRead][]) {
      expect(read.headers.host).toBe(`${BUCKET}.s3.test:${sts.port}`);
      expect(read.headers['x-amz-security-token']).toBeDefined();
      for (const s of secrets) expect(JSON.stringify(read)).not.toContain(s);
    }
    const keyIds = new Set(
      (remote.mock.calls as unknown as [string, SignedRead][]).map(
        ([, r]) => /Credential=([^/]+)\//.exec(r.headers.authorization ?? '')?.[1],
      ),
    );
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(keyIds.size).toBeGreaterThanOrEqual(2);
  } finally {
    await pool.close();
    store.destroy();
    rangedGet.destroy();
    client.destroy();
  }
});
