// Where the stack's Kerberos realm lives: one MIT KDC (components/kdc.ts) and the files it writes
// into the state dir (krb5.conf, kdc.conf, keytabs), read by the Kerberized HMS (components/hms-krb.ts),
// `stack env` and the tests. Only paths and principal names leave this module, never key material.
// Dev tooling.
import path from 'node:path';
import type { StackContext } from './types';
import { dataDir } from './util';

export const REALM = 'HIM.TEST';
/** The HMS service principal. Hadoop's `_HOST` would become the machine's canonical hostname, so the stack names it. */
export const HMS_SERVICE_PRINCIPAL = `hive/localhost@${REALM}`;
/** The migrator's client principal (keytab: clientKeytab). */
export const CLIENT_PRINCIPAL = `migrator@${REALM}`;
/** A service principal the KDC knows but the HMS does not hold a key for (the "wrong principal" tests). */
export const OTHER_SERVICE_PRINCIPAL = `hive/otherhost@${REALM}`;

export interface KrbPaths {
  readonly dir: string;
  readonly krb5Conf: string;
  readonly kdcConf: string;
  readonly database: string;
  readonly stash: string;
  readonly acl: string;
  readonly serviceKeytab: string;
  readonly clientKeytab: string;
}

export function krbPaths(ctx: StackContext): KrbPaths {
  const dir = dataDir(ctx, 'kdc');
  return {
    dir,
    krb5Conf: path.join(dir, 'krb5.conf'),
    kdcConf: path.join(dir, 'kdc.conf'),
    database: path.join(dir, 'principal'),
    stash: path.join(dir, 'stash'),
    acl: path.join(dir, 'kadm5.acl'),
    serviceKeytab: path.join(dir, 'hive.keytab'),
    clientKeytab: path.join(dir, 'migrator.keytab'),
  };
}

/**
 * Client and KDC side: TCP only (Java's Kerberos prefers UDP otherwise), no DNS, no reverse lookups
 * (rdns=false: the service host is taken as written, as Hadoop's clients do).
 */
export function krb5ConfText(ctx: StackContext): string {
  const port = ctx.port('kdc');
  return `# Written by dev/stack/components/kdc.ts on every start.
[libdefaults]
  default_realm = ${REALM}
  dns_lookup_realm = false
  dns_lookup_kdc = false
  dns_canonicalize_hostname = false
  rdns = false
  udp_preference_limit = 1
  ticket_lifetime = 24h
  renew_lifetime = 7d
  forwardable = true

[realms]
  ${REALM} = {
    kdc = 127.0.0.1:${port}
  }

[domain_realm]
  localhost = ${REALM}
  127.0.0.1 = ${REALM}
`;
}

export function kdcConfText(ctx: StackContext, p: KrbPaths, logFile: string): string {
  const port = ctx.port('kdc');
  return `# Written by dev/stack/components/kdc.ts on every start.
[kdcdefaults]
  kdc_listen = 127.0.0.1:${port}
  kdc_tcp_listen = 127.0.0.1:${port}

[realms]
  ${REALM} = {
    database_name = ${p.database}
    key_stash_file = ${p.stash}
    acl_file = ${p.acl}
    max_life = 24h
    max_renewable_life = 7d
    master_key_type = aes256-cts-hmac-sha1-96
    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
  }

[logging]
  kdc = FILE:${logFile}
  default = FILE:${logFile}
`;
}

/** The environment every MIT tool (kadmin.local, krb5kdc, kinit) and libgssapi of this stack reads. */
export function krbEnv(ctx: StackContext): Record<string, string> {
  const p = krbPaths(ctx);
  return { KRB5_CONFIG: p.krb5Conf, KRB5_KDC_PROFILE: p.kdcConf };
}

/**
 * `stack env`: the Kerberized HMS and what a client needs for it (paths and names, never keys). The
 * realm's config is HIM_KRB5_CONFIG, not KRB5_CONFIG, so evaluating `stack env` does not move a
 * shell's own Kerberos setup: give it as KRB5_CONFIG to the process that talks to hms-krb.
 */
export function krbStackEnv(ctx: StackContext): Record<string, string> {
  const p = krbPaths(ctx);
  return {
    HIM_HMS_KRB_URI: `thrift://localhost:${ctx.port('hms-krb')}`,
    HIM_KRB5_CONFIG: p.krb5Conf,
    HIM_KRB_REALM: REALM,
    HIM_KRB_SERVICE_PRINCIPAL: HMS_SERVICE_PRINCIPAL,
    HIM_KRB_OTHER_SERVICE_PRINCIPAL: OTHER_SERVICE_PRINCIPAL,
    HIM_KRB_CLIENT_PRINCIPAL: CLIENT_PRINCIPAL,
    HIM_KRB_CLIENT_KEYTAB: p.clientKeytab,
  };
}
