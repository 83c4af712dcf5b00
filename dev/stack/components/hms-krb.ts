// Hive Metastore 4.0.1 behind SASL/Kerberos (GSSAPI), on hms-pg's backing database (tables seeded
// through the plain HMS are seen through both). Service principal and keytab from the stack's KDC
// (components/kdc.ts, ../krb.ts); its health probe is our own SASL client with the client keytab.
import type { Component, StackContext } from '../types';
import { hmsComponent } from '../hms';
import { CLIENT_PRINCIPAL, HMS_SERVICE_PRINCIPAL, krbPaths } from '../krb';
import { probeHms } from '../../../adapters/hms/thrift/connection';

const xml = (props: ReadonlyArray<[string, string]>): string =>
  `<?xml version="1.0"?>\n<!-- Written by dev/stack/components/hms-krb.ts on every start. -->\n<configuration>\n${props
    .map(([k, v]) => `  <property><name>${k}</name><value>${v}</value></property>`)
    .join('\n')}\n</configuration>\n`;

const security = (ctx: StackContext): ReadonlyArray<[string, string]> => [
  ['hadoop.security.authentication', 'kerberos'],
  // Both QOPs offered (SaslPropertiesResolver takes a list): "auth" (messages framed, unwrapped) for
  // clients that prefer it, the default's choice; "auth-conf" (every message gss_wrap'ed, encrypted)
  // for hms.thrift.kerberos.protection: [privacy]. Integrity alone is not offered, so a client that
  // insists on it is refused — test/adapters/hms-thrift/kerberos.test.ts relies on both.
  ['hadoop.rpc.protection', 'authentication,privacy'],
  ['metastore.sasl.enabled', 'true'],
  ['metastore.kerberos.keytab.file', krbPaths(ctx).serviceKeytab],
  // Named, not hive/_HOST@…: Hadoop would put the machine's canonical hostname there, not localhost.
  ['metastore.kerberos.principal', HMS_SERVICE_PRINCIPAL],
];

export const component: Component = hmsComponent('hms-krb', {
  siteProps: security,
  confFiles: (ctx) => ({ 'core-site.xml': xml(security(ctx)) }),
  jvmProps: (ctx) => [`-Djava.security.krb5.conf=${krbPaths(ctx).krb5Conf}`, '-Djavax.security.auth.useSubjectCredsOnly=false'],
  probe: (ctx, uri, timeoutMs) => {
    // libgssapi reads the realm's KDC from KRB5_CONFIG (dev tooling: this process only talks to the stack).
    process.env.KRB5_CONFIG = krbPaths(ctx).krb5Conf;
    return probeHms(uri, timeoutMs, {
      servicePrincipal: HMS_SERVICE_PRINCIPAL,
      clientPrincipal: CLIENT_PRINCIPAL,
      keytabFile: krbPaths(ctx).clientKeytab,
    });
  },
});
