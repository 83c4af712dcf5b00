// MIT Kerberos KDC (Debian packages) with the test realm HIM.TEST: database, principals and keytabs in
// the state dir (see ../krb.ts), krb5kdc in the foreground on 127.0.0.1. Principals and keytabs are
// made idempotently (kadmin.local on the database; keytabs exported with -norandkey so a re-run never
// invalidates one already handed out). Dev tooling.
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import { z } from 'zod';
import type { Component, StackContext } from '../types';
import { settings } from '../manifest';
import { aptEnsure } from '../installers';
import {
  CLIENT_PRINCIPAL,
  HMS_SERVICE_PRINCIPAL,
  OTHER_SERVICE_PRINCIPAL,
  REALM,
  kdcConfText,
  krb5ConfText,
  krbEnv,
  krbPaths,
} from '../krb';
import { assertPortsFree, logFile, run, spawnDaemon, stopPid, tcpOpen, waitFor } from '../util';

const NAME = 'kdc';
const Settings = z.object({ aptPackages: z.array(z.string()) });

async function kadmin(ctx: StackContext, query: string): Promise<string> {
  return run('/usr/sbin/kadmin.local', ['-r', REALM, '-q', query], { env: krbEnv(ctx), logTo: logFile(ctx, NAME) });
}

async function ensurePrincipal(ctx: StackContext, principal: string): Promise<void> {
  const out = await kadmin(ctx, `getprinc ${principal}`);
  if (!out.includes(`Principal: ${principal}`)) await kadmin(ctx, `addprinc -randkey ${principal}`);
}

async function ensureKeytab(ctx: StackContext, principal: string, keytab: string): Promise<void> {
  if (existsSync(keytab)) return;
  await kadmin(ctx, `ktadd -norandkey -k ${keytab} ${principal}`);
  await fs.chmod(keytab, 0o600);
}

async function ensureDatabase(ctx: StackContext): Promise<void> {
  const p = krbPaths(ctx);
  if (existsSync(p.stash)) return;
  // The master key only protects this dev database; it goes into the stash file and nowhere else.
  const master = randomBytes(24).toString('base64url');
  await run('/usr/sbin/kdb5_util', ['create', '-s', '-r', REALM, '-P', master], { env: krbEnv(ctx), logTo: logFile(ctx, NAME) });
}

async function writeConfig(ctx: StackContext): Promise<void> {
  const p = krbPaths(ctx);
  await fs.mkdir(p.dir, { recursive: true });
  await fs.writeFile(p.krb5Conf, krb5ConfText(ctx));
  await fs.writeFile(p.kdcConf, kdcConfText(ctx, p, `${logFile(ctx, NAME)}.kdc`));
  await fs.writeFile(p.acl, `*/admin@${REALM} *\n`);
}

export const component: Component = {
  name: NAME,
  async install(ctx) {
    await aptEnsure(ctx, '/usr/sbin/kadmin.local', settings(ctx, NAME, Settings).aptPackages);
  },
  async start(ctx) {
    await assertPortsFree(ctx, NAME);
    await writeConfig(ctx);
    await ensureDatabase(ctx);
    const p = krbPaths(ctx);
    // -n: stay in the foreground, so the pid we record is the KDC's own.
    const pid = await spawnDaemon(ctx, NAME, '/usr/sbin/krb5kdc', ['-n', '-r', REALM], { env: krbEnv(ctx) });
    await waitFor(ctx, NAME, () => tcpOpen(ctx.port(NAME)), 30_000, pid);
    for (const principal of [HMS_SERVICE_PRINCIPAL, OTHER_SERVICE_PRINCIPAL, CLIENT_PRINCIPAL]) await ensurePrincipal(ctx, principal);
    await ensureKeytab(ctx, HMS_SERVICE_PRINCIPAL, p.serviceKeytab);
    await ensureKeytab(ctx, CLIENT_PRINCIPAL, p.clientKeytab);
    await waitFor(ctx, NAME, async () => (await this.health(ctx)).ok, 30_000, pid);
  },
  /** A real AS exchange: a ticket for the client principal from its keytab, into a throw-away memory cache. */
  async health(ctx) {
    const p = krbPaths(ctx);
    try {
      await run('/usr/bin/kinit', ['-kt', p.clientKeytab, '-c', `MEMORY:him-health-${process.pid}`, CLIENT_PRINCIPAL], {
        env: krbEnv(ctx),
        timeoutMs: 10_000,
      });
      return { ok: true, detail: `MIT KDC, realm ${REALM}, ${CLIENT_PRINCIPAL} gets a ticket` };
    } catch (e) {
      return { ok: false, detail: (e as Error).message.split('\n')[0] ?? 'kinit failed' };
    }
  },
  async stop(ctx) {
    await stopPid(ctx, NAME, 10_000);
  },
  endpoints(ctx) {
    const p = krbPaths(ctx);
    return { kdc: `127.0.0.1:${ctx.port(NAME)}`, realm: REALM, krb5Conf: p.krb5Conf };
  },
};
