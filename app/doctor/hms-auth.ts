// `doctor` for a Kerberized Hive Metastore (hms.thrift.kerberos): one real SASL/GSSAPI handshake and
// call, reported as the `reachable` check plus an `auth` check naming the method and identity (client
// principal, service principal, ticket expiry, where the ticket came from) and the SASL protection. A Kerberos failure is an
// `auth` failure with its code and a remedy that names the command to run. Never secrets: the config
// holds principal names and a keytab path only.
import type { HmsKerberos } from '../../adapters/hms/thrift/gssapi';
import { probeHms } from '../../adapters/hms/thrift/connection';
import { ErrorCode, isMigrationError } from '../../core/errors';
import { REMEDIES } from '../../core/error-remedies';
import type { Outcome } from './outcome';

const AUTH_CODES: ReadonlySet<string> = new Set([
  ErrorCode.HMS_KERBEROS_NO_TICKET,
  ErrorCode.HMS_KERBEROS_AUTH_FAILED,
  ErrorCode.HMS_KERBEROS_UNAVAILABLE,
  ErrorCode.HMS_UNSUPPORTED_AUTH,
]);

/** What to run, with this config's names filled in (and, for a protection mismatch, what the metastore offers). */
export function kerberosRemedy(code: string, k: HmsKerberos | undefined, context: Readonly<Record<string, unknown>> = {}): string {
  const who = k?.clientPrincipal ?? '<principal>';
  if (code === ErrorCode.HMS_KERBEROS_NO_TICKET)
    return k?.keytabFile === undefined
      ? `Run 'kinit -kt <keytab> ${who}' (or 'kinit ${who}') as the user that runs migrate (same KRB5CCNAME), or set hms.thrift.kerberos.keytabFile and clientPrincipal; 'klist' shows the cache.`
      : `Check that ${k.keytabFile} is readable and holds ${who}: 'klist -kt ${k.keytabFile}'; 'kinit -kt ${k.keytabFile} ${who}' shows what the KDC says.`;
  const offered = context.serverProtection;
  if (code === ErrorCode.HMS_KERBEROS_AUTH_FAILED && Array.isArray(offered))
    return `The metastore offers protection ${offered.join(', ') || 'none we know'} (its hadoop.rpc.protection); hms.thrift.kerberos.protection allows ${(k?.protection ?? []).join(', ')}: set hms.thrift.kerberos.protection to a list that includes ${offered.join(' or ') || 'what the metastore runs'}, e.g. [${offered[offered.length - 1] ?? 'privacy'}].`;
  if (code === ErrorCode.HMS_KERBEROS_AUTH_FAILED && k !== undefined)
    return `Set hms.thrift.kerberos.servicePrincipal (now ${k.servicePrincipal}) to the metastore's hive.metastore.kerberos.principal; 'kvno <service principal>' checks that the KDC knows it. A metastore without SASL: remove hms.thrift.kerberos.`;
  return REMEDIES[code as keyof typeof REMEDIES] ?? '';
}

/** The hms probe's outcomes with Kerberos configured: reachable + auth, or a coded auth failure. */
export async function probeKerberizedHms(uri: string, timeoutMs: number, k: HmsKerberos): Promise<Outcome[]> {
  try {
    const p = await probeHms(uri, timeoutMs, k);
    const id = p.identity;
    const auth = id
      ? `kerberos (SASL/GSSAPI): ${id.clientPrincipal} → ${id.servicePrincipal}, ticket expires ${id.ticketExpiresAt}, from ${id.credentialSource === 'keytab' ? `keytab ${k.keytabFile ?? ''}` : 'the credential cache'}, protection ${p.protection ?? 'authentication'}`
      : 'kerberos';
    return [
      { check: 'reachable', version: p.version, latencyMs: p.latencyMs, detail: `${p.databases} databases` },
      { check: 'auth', detail: auth },
    ];
  } catch (e) {
    if (!isMigrationError(e) || !AUTH_CODES.has(e.code)) throw e;
    return [{ check: 'auth', status: 'fail', code: e.code, detail: e.message, remedy: kerberosRemedy(e.code, k, e.context) }];
  }
}
