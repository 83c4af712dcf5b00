// Temporal over mTLS against the stack's secured endpoint (temporal-tls: Go crypto/tls requiring
// client certificates in front of the dev server). The client (openTemporal) and the worker's
// connection (NativeConnection with the same options) make real round trips with the good
// certificate, from config keys and from TEMPORAL_* variables alone; no certificate, another CA's,
// an expired one, an untrusted server and a wrong server name each fail with their own code in
// well under the 10 s connect deadline (and a TLS 1.2 server's bare handshake_failure for a missing
// certificate is recognised too). The API key: the endpoint's second port checks
// `authorization: Bearer <key>` on every call; the right key passes (client and native worker
// connection), a wrong or missing one is TEMPORAL_AUTH_FAILED, whose message never holds the key.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { NativeConnection } from '@temporalio/worker';
import { configSchema } from '../../../core/config/schema';
import { isMigrationError } from '../../../core/errors';
import { openTemporal } from '../../../app/runtime/runtime';
import { connectionOptions, resolveTemporal, temporalConnectError } from '../../../app/runtime/temporal-connect';
import { testStack } from '../../helpers/stack-env';

const env = testStack();
const address = env.HIM_TEMPORAL_TLS_ADDRESS as string;
const good = {
  serverCaFile: env.HIM_TEMPORAL_TLS_CA,
  clientCertFile: env.HIM_TEMPORAL_TLS_CLIENT_CERT,
  clientKeyFile: env.HIM_TEMPORAL_TLS_CLIENT_KEY,
};
const config = (temporal: Record<string, unknown>) => configSchema.parse({ temporal: { namespace: 'default', ...temporal } });
/** No HOME: the user's own Temporal config file stays out of it. */
const bare = { PATH: process.env.PATH ?? '/usr/bin' };
/** The gRPC connect deadline the pre-check races (app/runtime/runtime.ts: connectTimeout 10 s). */
const CONNECT_DEADLINE_MS = 10_000;

async function failure(
  temporal: Record<string, unknown>,
  e: NodeJS.ProcessEnv = bare,
): Promise<{ code: string; ms: number; message: string }> {
  const t0 = performance.now();
  try {
    const h = await openTemporal(config(temporal), e);
    await h.close();
  } catch (err) {
    if (!isMigrationError(err)) throw err;
    return { code: err.code, ms: performance.now() - t0, message: err.message };
  }
  throw new Error('expected the connection to fail');
}

describe('Temporal over mTLS (stack temporal-tls)', () => {
  it('client and worker connections with the good certificate: real round trips through the mTLS endpoint', async () => {
    const h = await openTemporal(config({ address, tls: good }), bare);
    try {
      const ns = await h.deadline(5_000, () => h.connection.workflowService.describeNamespace({ namespace: 'default' }));
      expect(ns.namespaceInfo?.name).toBe('default');
    } finally {
      await h.close();
    }
    // The worker's connection (Rust core, rustls) with the very same options.
    const native = await NativeConnection.connect(connectionOptions(resolveTemporal(config({ address, tls: good }), bare)));
    try {
      const info = await native.workflowService.getSystemInfo({});
      expect(info.serverVersion).toMatch(/^\d+\.\d+/);
    } finally {
      await native.close();
    }
  });

  it('from Temporal environment variables alone (temporal: {} in the config)', async () => {
    const e = {
      ...bare,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: good.serverCaFile,
      TEMPORAL_TLS_CLIENT_CERT_PATH: good.clientCertFile,
      TEMPORAL_TLS_CLIENT_KEY_PATH: good.clientKeyFile,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
    };
    const h = await openTemporal(configSchema.parse({ temporal: {} }), e);
    try {
      expect(h.namespace).toBe('default');
      await h.deadline(5_000, () => h.connection.workflowService.getSystemInfo({}));
    } finally {
      await h.close();
    }
  });

  it('each refusal has its own code, in well under the 10 s connect deadline', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['no client certificate', { serverCaFile: good.serverCaFile }, 'TEMPORAL_TLS_CLIENT_CERT_REQUIRED'],
      [
        'a certificate of another CA',
        { ...good, clientCertFile: env.HIM_TEMPORAL_TLS_OTHER_CERT, clientKeyFile: env.HIM_TEMPORAL_TLS_OTHER_KEY },
        'TEMPORAL_TLS_CLIENT_CERT_REJECTED',
      ],
      [
        'an expired certificate',
        { ...good, clientCertFile: env.HIM_TEMPORAL_TLS_EXPIRED_CERT, clientKeyFile: env.HIM_TEMPORAL_TLS_EXPIRED_KEY },
        'TEMPORAL_TLS_CLIENT_CERT_EXPIRED',
      ],
      [
        'a server certificate of a CA we do not trust',
        { ...good, serverCaFile: env.HIM_TEMPORAL_TLS_OTHER_CA },
        'TEMPORAL_TLS_SERVER_UNTRUSTED',
      ],
      [
        'a server name the certificate does not carry',
        { ...good, serverName: 'temporal.elsewhere.example' },
        'TEMPORAL_TLS_SERVER_UNTRUSTED',
      ],
    ];
    for (const [what, tls, code] of cases) {
      const f = await failure({ address, tls });
      expect({ what, code: f.code }).toEqual({ what, code });
      expect(f.ms).toBeLessThan(CONNECT_DEADLINE_MS / 5);
    }
    // TLS against the dev server's plain port: a handshake failure, not a timeout.
    const plain = await failure({ address: env.HIM_TEMPORAL_ADDRESS, tls: good });
    expect(plain.code).toBe('TEMPORAL_TLS_HANDSHAKE_FAILED');
    expect(plain.ms).toBeLessThan(CONNECT_DEADLINE_MS / 5);
  });

  it('a TLS 1.2 frontend answers a missing certificate with a bare handshake_failure: still TEMPORAL_TLS_CLIENT_CERT_REQUIRED', async () => {
    const pki = (name: string): Buffer => readFileSync(path.join(path.dirname(good.serverCaFile as string), name));
    const server = tls.createServer({
      key: pki('server.key'),
      cert: pki('server.pem'),
      ca: pki('ca.pem'),
      requestCert: true,
      rejectUnauthorized: true,
      maxVersion: 'TLSv1.2',
    });
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const f = await failure({ address: `127.0.0.1:${(server.address() as AddressInfo).port}`, tls: { serverCaFile: good.serverCaFile } });
      expect(f.code).toBe('TEMPORAL_TLS_CLIENT_CERT_REQUIRED');
      expect(f.message).toContain('alert handshake failure');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('the API key port (mTLS + `authorization: Bearer <key>` checked by the endpoint): the right key passes, a wrong or missing one is TEMPORAL_AUTH_FAILED without the key in it', async () => {
    const apiAddress = env.HIM_TEMPORAL_TLS_APIKEY_ADDRESS as string;
    const key = readFileSync(env.HIM_TEMPORAL_TLS_API_KEY_FILE as string, 'utf8').trim();
    const withKey = { address: apiAddress, apiKeyEnv: 'HIM_TEST_TEMPORAL_KEY', tls: good };
    const h = await openTemporal(config(withKey), { ...bare, HIM_TEST_TEMPORAL_KEY: key });
    try {
      await h.deadline(5_000, () => h.connection.workflowService.getSystemInfo({}));
    } finally {
      await h.close();
    }
    // The worker's connection with the same options.
    const opts = connectionOptions(resolveTemporal(config(withKey), { ...bare, HIM_TEST_TEMPORAL_KEY: key }));
    expect(opts.apiKey).toBe(key);
    await (await NativeConnection.connect(opts)).close();
    const wrongKey = `him-wrong-${Date.now()}`;
    const wrong = await failure(withKey, { ...bare, HIM_TEST_TEMPORAL_KEY: wrongKey });
    expect(wrong.code).toBe('TEMPORAL_AUTH_FAILED');
    expect(wrong.message).toContain('refused the API key from env HIM_TEST_TEMPORAL_KEY (config temporal.apiKeyEnv)');
    expect(wrong.message).not.toContain(wrongKey);
    expect(wrong.ms).toBeLessThan(CONNECT_DEADLINE_MS / 5);
    const none = await failure({ address: apiAddress, tls: good });
    expect(none.code).toBe('TEMPORAL_AUTH_FAILED');
    // The worker's native connection: the same refusal, mapped the same way.
    const native = await NativeConnection.connect(
      connectionOptions(resolveTemporal(config(withKey), { ...bare, HIM_TEST_TEMPORAL_KEY: wrongKey })),
    ).then(
      () => new Error('connected with a wrong key'),
      (e: unknown) => temporalConnectError(resolveTemporal(config(withKey), { ...bare, HIM_TEST_TEMPORAL_KEY: wrongKey }), e),
    );
    expect((native as { code?: string }).code).toBe('TEMPORAL_AUTH_FAILED');
  });
});
