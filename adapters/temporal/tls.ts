// The TLS pre-check before a gRPC connect to a secured Temporal frontend: one node:tls handshake with
// the same CA, server name and client certificate the SDK will use, then the HTTP/2 preface and a
// wait for the server's first frame. In TLS 1.3 the server judges our certificate after our side
// considers the handshake done, so its refusal (alert "certificate required", "unknown ca",
// "certificate expired") arrives as the first read; the gRPC clients only report "Failed to connect
// before the deadline" after 10 s. Each cause becomes its own error code, in milliseconds.
import { X509Certificate } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { ErrorCode, MigrationError } from '../../core/errors';
import { hostPort } from './tcp';

export interface TlsMaterial {
  /** PEM of the CA(s) that sign the server certificate; undefined: the system roots. */
  readonly serverCa?: Buffer;
  /** The name to verify the server certificate against (and send as SNI); default: the host of the address. */
  readonly serverName?: string;
  readonly clientCert?: Buffer;
  readonly clientKey?: Buffer;
}

export interface CertificateInfo {
  readonly subject: string;
  readonly issuer: string;
  readonly validFrom: string;
  readonly validTo: string;
  readonly expired: boolean;
  readonly fingerprint256: string;
}

export interface TlsHandshake {
  readonly protocol: string;
  readonly alpn: string | false;
  readonly server: CertificateInfo | undefined;
  readonly latencyMs: number;
}

const oneLine = (dn: string): string =>
  dn
    .split('\n')
    .filter(Boolean)
    .map((s) => s.trim())
    .join(', ');

/** Subject, issuer and validity of a certificate (PEM: the first of a chain; or DER). */
export function describeCertificate(pem: Buffer, now = new Date()): CertificateInfo {
  const c = new X509Certificate(pem);
  return {
    subject: oneLine(c.subject),
    issuer: oneLine(c.issuer),
    validFrom: new Date(c.validFrom).toISOString(),
    validTo: new Date(c.validTo).toISOString(),
    expired: new Date(c.validTo) < now,
    fingerprint256: c.fingerprint256,
  };
}

/** OpenSSL alert codes (RFC 8446 §6.2) the server sends about our certificate, with what they mean here. */
const ALERTS: readonly { readonly pattern: RegExp; readonly code: ErrorCode; readonly cause: string }[] = [
  {
    pattern: /CERTIFICATE_REQUIRED|alert certificate required/i,
    code: ErrorCode.TEMPORAL_TLS_CLIENT_CERT_REQUIRED,
    cause: 'certificate required',
  },
  {
    pattern: /CERTIFICATE_EXPIRED|alert certificate expired/i,
    code: ErrorCode.TEMPORAL_TLS_CLIENT_CERT_EXPIRED,
    cause: 'certificate expired',
  },
  { pattern: /UNKNOWN_CA|alert unknown ca/i, code: ErrorCode.TEMPORAL_TLS_CLIENT_CERT_REJECTED, cause: 'unknown ca' },
  {
    pattern: /BAD_CERTIFICATE|CERTIFICATE_REVOKED|UNSUPPORTED_CERTIFICATE|CERTIFICATE_UNKNOWN|ACCESS_DENIED|DECRYPT_ERROR/i,
    code: ErrorCode.TEMPORAL_TLS_CLIENT_CERT_REJECTED,
    cause: 'certificate refused',
  },
];

/** node:tls codes of our own verification of the server certificate. */
const SERVER_UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The coded error for a failed handshake (or a refusal read right after it). */
export function tlsFailure(address: string, m: TlsMaterial, e: Error & { code?: string }): MigrationError {
  const ctx = { address, ...(m.serverName !== undefined ? { serverName: m.serverName } : {}), tlsError: e.code ?? e.message };
  const text = `${e.code ?? ''} ${e.message}`;
  const hasCert = m.clientCert !== undefined;
  if (e.code !== undefined && SERVER_UNTRUSTED.has(e.code)) {
    const what = e.code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? `does not match the server name (${e.message})` : `is not trusted (${e.code})`;
    const ca = m.serverCa === undefined ? 'the system CAs' : 'the configured server CA';
    return new MigrationError(
      ErrorCode.TEMPORAL_TLS_SERVER_UNTRUSTED,
      `Temporal ${address}: the server certificate ${what}; checked against ${ca}`,
      ctx,
      {
        cause: e,
      },
    );
  }
  // TLS 1.2 servers answer a missing client certificate with a bare handshake_failure.
  if (!hasCert && /HANDSHAKE_FAILURE|alert handshake failure/i.test(text))
    return new MigrationError(
      ErrorCode.TEMPORAL_TLS_CLIENT_CERT_REQUIRED,
      `Temporal ${address} refused the TLS handshake without a client certificate (alert handshake failure): it requires mTLS`,
      ctx,
      { cause: e },
    );
  for (const a of ALERTS) {
    if (!a.pattern.test(text)) continue;
    const ours = hasCert ? 'our client certificate' : 'no client certificate';
    return new MigrationError(a.code, `Temporal ${address} refused ${ours}: TLS alert "${a.cause}" (${e.code ?? e.message})`, ctx, {
      cause: e,
    });
  }
  return new MigrationError(
    ErrorCode.TEMPORAL_TLS_HANDSHAKE_FAILED,
    `Temporal ${address}: TLS handshake failed: ${e.code ?? ''} ${e.message}`.trim(),
    ctx,
    {
      cause: e,
    },
  );
}

/** The HTTP/2 client preface and an empty SETTINGS frame (RFC 9113 §3.4): the server answers with its SETTINGS. */
const H2_PREFACE = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);

/** Handshakes with `address` as the SDK will; resolves once the server has accepted us, else throws a coded error. */
export function tlsHandshake(address: string, m: TlsMaterial, timeoutMs: number): Promise<TlsHandshake> {
  const { host, port } = hostPort(address);
  const name = m.serverName ?? host;
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host,
      port,
      // RFC 6066: no IP address as SNI; node then verifies the address against the IP SANs.
      ...(net.isIP(name) === 0 ? { servername: name } : {}),
      checkServerIdentity: (_h, cert) => tls.checkServerIdentity(name, cert),
      ...(m.serverCa !== undefined ? { ca: m.serverCa } : {}),
      ...(m.clientCert !== undefined ? { cert: m.clientCert } : {}),
      ...(m.clientKey !== undefined ? { key: m.clientKey } : {}),
      ALPNProtocols: ['h2'],
    });
    let server: CertificateInfo | undefined;
    let protocol = '?';
    let alpn: string | false = false;
    const done = (err?: Error): void => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      if (err) reject(err);
      else resolve({ protocol, alpn, server, latencyMs: Math.round(performance.now() - t0) });
    };
    const timer = setTimeout(
      () =>
        done(new MigrationError(ErrorCode.TEMPORAL_UNREACHABLE, `Temporal ${address}: no TLS answer within ${timeoutMs} ms`, { address })),
      timeoutMs,
    );
    socket.once('secureConnect', () => {
      protocol = socket.getProtocol() ?? '?';
      alpn = socket.alpnProtocol ?? false;
      const raw = socket.getPeerCertificate(false).raw as Buffer | undefined;
      if (raw !== undefined) server = describeCertificate(raw);
      socket.write(H2_PREFACE);
    });
    socket.once('data', () => done());
    socket.once('error', (e: Error) => done(tlsFailure(address, m, e)));
    socket.once('end', () =>
      done(
        tlsFailure(
          address,
          m,
          Object.assign(new Error('the server closed the connection right after the handshake'), { code: 'ECONNRESET' }),
        ),
      ),
    );
  });
}
