// The certificates of the stack's mTLS Temporal endpoint (components/temporal-tls.ts), made with the
// system openssl at every start into the component's data dir: a CA, the proxy's server certificate
// (SAN 127.0.0.1 and localhost), a client certificate of that CA, one of another CA, and one of the
// right CA that expired in 2020, and a random dev API key. EC P-256 keys (fast; rustls and node:tls
// both accept them).
// Dev tooling: dev-only keys, never used outside this stack.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { StackContext } from './types';
import { dataDir, run } from './util';

export const TLS_COMPONENT = 'temporal-tls';

/** Where each file is (the same names every start). */
export function tlsFiles(
  ctx: StackContext,
): Record<
  | 'apiKey'
  | 'ca'
  | 'caKey'
  | 'serverCert'
  | 'serverKey'
  | 'clientCert'
  | 'clientKey'
  | 'otherCa'
  | 'otherCert'
  | 'otherKey'
  | 'expiredCert'
  | 'expiredKey',
  string
> {
  const d = path.join(dataDir(ctx, TLS_COMPONENT), 'pki');
  const f = (n: string): string => path.join(d, n);
  return {
    apiKey: f('api-key'),
    ca: f('ca.pem'),
    caKey: f('ca.key'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
    otherCa: f('other-ca.pem'),
    otherCert: f('other-client.pem'),
    otherKey: f('other-client.key'),
    expiredCert: f('expired-client.pem'),
    expiredKey: f('expired-client.key'),
  };
}

/** The subject of the good client certificate (doctor reports it). */
export const CLIENT_SUBJECT = '/O=hms-iceberg-migrator dev/CN=him-dev-worker';

const EXT = {
  ca: 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n',
  server:
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
  client: 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
};

async function ossl(ctx: StackContext, args: string[], cwd: string): Promise<void> {
  await run('openssl', args, { cwd, timeoutMs: 30_000, logTo: path.join(ctx.stateDir, 'logs', `${TLS_COMPONENT}.log`) });
}

async function keyAndCsr(ctx: StackContext, dir: string, name: string, subject: string): Promise<void> {
  await ossl(ctx, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`], dir);
  await ossl(ctx, ['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], dir);
}

async function selfSignedCa(ctx: StackContext, dir: string, name: string, subject: string): Promise<void> {
  await fs.writeFile(path.join(dir, 'ca.ext'), EXT.ca);
  await keyAndCsr(ctx, dir, name, subject);
  await ossl(
    ctx,
    ['x509', '-req', '-in', `${name}.csr`, '-signkey', `${name}.key`, '-days', '825', '-extfile', 'ca.ext', '-out', `${name}.pem`],
    dir,
  );
}

async function issue(ctx: StackContext, dir: string, name: string, ca: string, subject: string, ext: string): Promise<void> {
  await fs.writeFile(path.join(dir, `${name}.ext`), ext);
  await keyAndCsr(ctx, dir, name, subject);
  const args = ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial'];
  await ossl(ctx, [...args, '-days', '825', '-extfile', `${name}.ext`, '-out', `${name}.pem`], dir);
}

/**
 * OpenSSL 3.0's `x509` cannot back-date (`-not_before` came in 3.4): `openssl ca` with explicit
 * -startdate/-enddate can, given its minimal database.
 */
async function issueExpired(ctx: StackContext, dir: string): Promise<void> {
  await fs.mkdir(path.join(dir, 'ca-db'), { recursive: true });
  await fs.writeFile(path.join(dir, 'ca-db', 'index.txt'), '');
  await fs.writeFile(path.join(dir, 'ca-db', 'serial'), '1000\n');
  const conf = [
    '[ca]',
    'default_ca = dev',
    '[dev]',
    'database = ca-db/index.txt',
    'serial = ca-db/serial',
    'new_certs_dir = ca-db',
    'certificate = ca.pem',
    'private_key = ca.key',
    'default_md = sha256',
    'policy = any',
    'unique_subject = no',
    'copy_extensions = none',
    'x509_extensions = client_ext',
    '[any]',
    'commonName = supplied',
    'organizationName = optional',
    '[client_ext]',
    EXT.client,
  ].join('\n');
  await fs.writeFile(path.join(dir, 'ca.cnf'), conf);
  await keyAndCsr(ctx, dir, 'expired-client', '/O=hms-iceberg-migrator dev/CN=him-dev-expired');
  await ossl(
    ctx,
    [
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-startdate',
      '20200101000000Z',
      '-enddate',
      '20200102000000Z',
      '-in',
      'expired-client.csr',
      '-out',
      'expired-client.pem',
      '-notext',
    ],
    dir,
  );
}

/** Makes every certificate anew (a start never reuses last run's keys). */
export async function makeCertificates(ctx: StackContext): Promise<void> {
  const dir = path.dirname(tlsFiles(ctx).ca);
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  await selfSignedCa(ctx, dir, 'ca', '/O=hms-iceberg-migrator dev/CN=him-dev-ca');
  await issue(ctx, dir, 'server', 'ca', '/O=hms-iceberg-migrator dev/CN=localhost', EXT.server);
  await issue(ctx, dir, 'client', 'ca', CLIENT_SUBJECT, EXT.client);
  await selfSignedCa(ctx, dir, 'other-ca', '/O=somebody else/CN=other-ca');
  await issue(ctx, dir, 'other-client', 'other-ca', '/O=somebody else/CN=him-dev-worker', EXT.client);
  await issueExpired(ctx, dir);
  // The dev API key the apikey port requires (random per start; tests read the file).
  await fs.writeFile(tlsFiles(ctx).apiKey, `him-dev-${randomBytes(16).toString('hex')}\n`);
  for (const f of await fs.readdir(dir)) if (f.endsWith('.key') || f === 'api-key') await fs.chmod(path.join(dir, f), 0o600);
}

/** `stack env`: the mTLS endpoint and the paths of its certificates. */
export function temporalTlsEnv(ctx: StackContext): Record<string, string> {
  const f = tlsFiles(ctx);
  return {
    HIM_TEMPORAL_TLS_ADDRESS: `127.0.0.1:${ctx.port(TLS_COMPONENT)}`,
    HIM_TEMPORAL_TLS_APIKEY_ADDRESS: `127.0.0.1:${ctx.port(TLS_COMPONENT, 'apikey')}`,
    HIM_TEMPORAL_TLS_API_KEY_FILE: f.apiKey,
    HIM_TEMPORAL_TLS_CA: f.ca,
    HIM_TEMPORAL_TLS_CLIENT_CERT: f.clientCert,
    HIM_TEMPORAL_TLS_CLIENT_KEY: f.clientKey,
    HIM_TEMPORAL_TLS_OTHER_CA: f.otherCa,
    HIM_TEMPORAL_TLS_OTHER_CERT: f.otherCert,
    HIM_TEMPORAL_TLS_OTHER_KEY: f.otherKey,
    HIM_TEMPORAL_TLS_EXPIRED_CERT: f.expiredCert,
    HIM_TEMPORAL_TLS_EXPIRED_KEY: f.expiredKey,
  };
}
