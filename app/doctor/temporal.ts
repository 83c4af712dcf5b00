// `doctor` for Temporal's connection and authentication: where each connection value came from
// (config, TEMPORAL_* variable, profile file, default), the auth method and identity (client
// certificate subject, issuer, expiry; the API key's source, never the key), then the TCP + TLS
// pre-check, whose failure is a failed check with its own code and remedy in milliseconds. The
// namespace, search attribute and worker checks follow in app/doctor/doctor.ts when these pass. A plain
// connection keeps doctor's three checks, the sources added to `reachable`.
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, isMigrationError } from '../../core/errors';
import { REMEDIES } from '../../core/error-remedies';
import { describeCertificate } from '../../adapters/temporal/tls';
import type { CertificateInfo } from '../../adapters/temporal/tls';
import { preCheckTemporal, resolveTemporal } from '../runtime/temporal-connect';
import type { TemporalSettings } from '../runtime/temporal-connect';
import type { Outcome } from './outcome';

/** A certificate close to its end is worth a warning (renewal takes a change window). */
const EXPIRY_WARN_DAYS = 14;
const DAY_MS = 86_400_000;

/** The resolved settings, or the configuration error that prevented them (doctor reports it as a check). */
export function temporalSettingsOf(cfg: MigrateConfig, env: NodeJS.ProcessEnv): { settings?: TemporalSettings; error?: unknown } {
  try {
    return { settings: resolveTemporal(cfg, env) };
  } catch (e) {
    return { error: e };
  }
}

function connectionDetail(s: TemporalSettings): string {
  const parts = [`address ${s.address.value} (${s.address.source})`, `namespace ${s.namespace.value} (${s.namespace.source})`];
  const t = s.tls;
  if (t === undefined) parts.push('TLS off (plain TCP)');
  else {
    const ca = t.serverCa === undefined ? 'system CAs' : `server CA from ${t.serverCa.source}`;
    const name = t.serverName === undefined ? '' : `, server name ${t.serverName.value} (${t.serverName.source})`;
    parts.push(`TLS on (${t.enabledBy}): ${ca}${name}`);
  }
  return parts.join('; ');
}

function certText(c: CertificateInfo): string {
  return `${c.subject} (issuer ${c.issuer}; valid ${c.validFrom.slice(0, 10)} to ${c.validTo.slice(0, 10)})`;
}

/** The auth method and identity; a warning for a certificate that expired or expires soon. */
function authOutcome(s: TemporalSettings, now: Date): Outcome {
  const methods: string[] = [];
  let status: Outcome['status'] = 'ok';
  const cert = s.tls?.clientCert;
  if (cert !== undefined) {
    let info: CertificateInfo | undefined;
    try {
      info = describeCertificate(cert.value, now);
    } catch (e) {
      return {
        check: 'auth',
        status: 'fail',
        code: ErrorCode.CONFIG_INVALID,
        detail: `client certificate from ${cert.source} is not a PEM certificate: ${(e as Error).message}`,
        remedy: REMEDIES.CONFIG_INVALID,
      };
    }
    methods.push(`mTLS client certificate ${certText(info)} from ${cert.source}, key from ${s.tls?.clientKey?.source ?? '?'}`);
    const left = (Date.parse(info.validTo) - now.getTime()) / DAY_MS;
    if (info.expired) methods.push('the certificate has EXPIRED');
    else if (left < EXPIRY_WARN_DAYS) methods.push(`the certificate expires in ${Math.floor(left)} days`);
    if (left < EXPIRY_WARN_DAYS) status = 'warn';
  }
  if (s.apiKey !== undefined) methods.push(`API key from ${s.apiKey.source} (${s.apiKey.value.length} characters)`);
  if (methods.length === 0)
    methods.push(
      s.tls === undefined
        ? 'none (plain TCP, no client certificate, no API key)'
        : 'server-authenticated TLS only (no client certificate, no API key)',
    );
  const detail = methods.join('; ');
  if (status === 'ok') return { check: 'auth', detail };
  const code = ErrorCode.TEMPORAL_TLS_CLIENT_CERT_EXPIRED;
  return { check: 'auth', status, code, detail, remedy: REMEDIES[code] };
}

/** The TCP + TLS pre-check as a check: the protocol and the server's certificate, or the coded refusal with its remedy. */
async function handshakeOutcome(s: TemporalSettings, timeoutMs: number): Promise<Outcome> {
  const t0 = performance.now();
  try {
    const h = await preCheckTemporal(s, timeoutMs);
    const latencyMs = Math.round(performance.now() - t0);
    if (h === undefined) return { check: 'tls', latencyMs, detail: 'TLS off: TCP connect ok' };
    const server = h.server === undefined ? 'no server certificate' : `server certificate ${certText(h.server)}`;
    return {
      check: 'tls',
      latencyMs,
      detail: `${h.protocol}, ALPN ${h.alpn === false ? 'none' : h.alpn}, ${server}; the server accepted us`,
    };
  } catch (e) {
    const code = isMigrationError(e) ? e.code : ErrorCode.TEMPORAL_UNREACHABLE;
    const latencyMs = Math.round(performance.now() - t0);
    return { check: 'tls', status: 'fail', latencyMs, code, detail: (e as Error).message, remedy: REMEDIES[code] };
  }
}

/** A connection that cannot be resolved (a file or variable the config names is missing): a failed `connection` check. */
export function unresolvedOutcome(error: unknown): Outcome {
  const code = isMigrationError(error) ? error.code : ErrorCode.INTERNAL;
  return { check: 'connection', status: 'fail', code, detail: (error as Error).message, remedy: REMEDIES[code] };
}

/** The frontend refused our credentials after the handshake (API key): a failed `reachable` check with that code's remedy; else undefined. */
export function refusedOutcome(e: unknown): Outcome | undefined {
  if (!isMigrationError(e) || e.code !== ErrorCode.TEMPORAL_AUTH_FAILED) return undefined;
  return { check: 'reachable', status: 'fail', code: e.code, detail: e.message, remedy: REMEDIES[e.code] };
}

/**
 * The connection, auth and handshake checks of a secured connection (TLS or an API key); the caller
 * stops after a failed one. A plain connection has none: its sources go into the reachable check.
 */
export async function temporalConnectionOutcomes(s: TemporalSettings, timeoutMs: number, now = new Date()): Promise<Outcome[]> {
  if (s.tls === undefined) return [];
  return [{ check: 'connection', detail: connectionDetail(s) }, authOutcome(s, now), await handshakeOutcome(s, timeoutMs)];
}

/** A plain connection's `reachable` check also says where the address and namespace came from. */
export function withPlainSources<T extends Outcome>(outcomes: readonly T[], s: TemporalSettings): T[] {
  if (s.tls !== undefined) return [...outcomes];
  return outcomes.map((o) => (o.check === 'reachable' ? { ...o, detail: `${o.detail}; ${connectionDetail(s)}, no credentials` } : o));
}
