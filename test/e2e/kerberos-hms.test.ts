// A Kerberized Hive Metastore: the stack's MIT KDC (realm HIM.TEST) and hms-krb (HMS 4.0.1
// with hive.metastore.sasl.enabled, sharing hms-pg's backing database). A tiny warehouse seeded
// through the plain HMS is read through hms-krb: `migrate doctor` reports the method and identity,
// `inventory`, `plan` and `apply` (a real worker, the stack's REST catalog) work with a ticket from a
// client keytab, `inventory` with one from the user's credential cache (kinit), and with
// hms.thrift.kerberos.protection [privacy] (every message encrypted) the same totals; a protection
// the metastore does not offer is a doctor failure naming the offer. Each way it can go
// wrong fails fast with its code and a remedy that says what to run: no ticket, an expired ticket, a
// wrong service principal (unknown to the KDC; known but not the metastore's), plain Thrift against
// SASL and SASL against plain Thrift. Backing-database reads need no ticket. No keytab bytes in any
// output.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import type { Run } from '../helpers/cli';
import { MIGRATE, ROOT, TSX, run, withCatalogSection } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import type { Check } from '../../app/doctor/doctor';

const env = testStack();
const prefix = uniqueName('himkrb').toLowerCase();
const db = `${prefix}_scale_2x2x1`;
const nsPrefix = `${prefix}_`;
const KRB_URI = env.HIM_HMS_KRB_URI as string;
const KEYTAB = env.HIM_KRB_CLIENT_KEYTAB as string;
const CLIENT = env.HIM_KRB_CLIENT_PRINCIPAL as string;
const SERVICE = env.HIM_KRB_SERVICE_PRINCIPAL as string;
let dir = '';
let emptyCache = '';
let worker: ChildProcess | undefined;
let workerLog = '';

interface Krb {
  servicePrincipal: string;
  clientPrincipal?: string;
  keytabFile?: string;
  gssapiLibrary?: string;
  protection?: string[];
}
const KEYTAB_AUTH: Krb = { servicePrincipal: `hive/_HOST@${env.HIM_KRB_REALM}`, clientPrincipal: CLIENT, keytabFile: KEYTAB };

/** The stack's config with hms.thrift pointing at `uri` (with `krb`, if given), our task queue and namespace prefix. */
function config(name: string, uri: string, krb: Krb | undefined): string {
  const auth = krb
    ? `\n    kerberos:\n${Object.entries(krb)
        .map(([k, v]) => `      ${k}: ${Array.isArray(v) ? `[${v.join(', ')}]` : String(v)}\n`)
        .join('')}`
    : '\n';
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8')
    .replace(/thrift:\n\s+uri: .*\n/, `thrift:\n    uri: ${uri}${auth}`)
    .replace(/namespace: default/, `namespace: default\n  taskQueue: him-krb-${prefix}`)
    .replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`);
  const file = path.join(dir, name);
  writeFileSync(file, `${base}\nplan:\n  databases: [${db}]\n  assess:\n    sampleFiles: 0\n`);
  return file;
}

/** KRB5_CONFIG names the stack's realm; KRB5CCNAME an empty cache unless a test gives its own. */
const krbEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  KRB5_CONFIG: env.HIM_KRB5_CONFIG as string,
  KRB5CCNAME: `FILE:${emptyCache}`,
  ...extra,
});
const migrate = (args: string[], extra: Record<string, string> = {}): Promise<Run> => run(MIGRATE, args, 300_000, krbEnv(extra));

/** The coded error of a --json run, or what happened instead (readable in a failed expectation). */
function failure(r: Run): { code: string; message: string } {
  try {
    const e = (JSON.parse(r.stdout) as { error?: { code: string; message: string } }).error;
    return e ?? { code: `no error: ${r.stdout.trim()}`, message: '' };
  } catch {
    return { code: `not JSON: ${r.stdout}${r.stderr}`, message: '' };
  }
}

async function doctor(cfg: string, extra: Record<string, string> = {}): Promise<{ r: Run; hms: Check[] }> {
  const r = await migrate(['doctor', '--config', cfg, '--json', '--timeout', '5000'], extra);
  const checks = (JSON.parse(r.stdout) as { checks: Check[] }).checks;
  return { r, hms: checks.filter((c) => c.component === 'hms') };
}

function startWorker(cfg: string): void {
  worker = spawn(MIGRATE, ['worker', '--config', cfg], {
    env: { ...process.env, ...env, ...krbEnv() },
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  worker.stdout?.on('data', (d: Buffer) => (workerLog += d.toString()));
  worker.stderr?.on('data', (d: Buffer) => (workerLog += d.toString()));
}

async function stopWorker(): Promise<void> {
  const w = worker;
  if (w?.pid === undefined || w.exitCode !== null) return;
  const exited = new Promise((r) => w.once('exit', r));
  process.kill(-w.pid, 'SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (w.exitCode === null) process.kill(-w.pid, 'SIGKILL');
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-krb-'));
  emptyCache = path.join(dir, 'no-such-ccache');
  const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', '2,2,1']);
  if (s.code !== 0) throw new Error(s.stderr);
}, 600_000);

afterAll(async () => {
  await stopWorker();
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
  await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
  await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', '2,2,1', '--drop']);
  rmSync(dir, { recursive: true, force: true });
}, 600_000);

describe('Kerberized HMS (SASL/GSSAPI)', () => {
  it('doctor reports kerberos, the client and service principal and the ticket expiry; no keytab bytes in its output', async () => {
    const { r, hms } = await doctor(config('keytab.yaml', KRB_URI, KEYTAB_AUTH));
    expect(hms.map((c) => [c.check, c.status])).toEqual([
      ['reachable', 'ok'],
      ['auth', 'ok'],
    ]);
    const auth = hms[1]?.detail ?? '';
    expect(auth).toContain(`kerberos (SASL/GSSAPI): ${CLIENT} → ${SERVICE}, ticket expires `);
    const expires = Date.parse(/ticket expires (\S+),/.exec(auth)?.[1] ?? '');
    expect(expires).toBeGreaterThan(Date.now() + 3_600_000);
    expect(auth).toContain(`from keytab ${KEYTAB}`);
    const key = readFileSync(KEYTAB);
    for (const enc of ['hex', 'base64'] as const) expect(r.stdout + r.stderr).not.toContain(key.toString(enc).slice(-48));
  });

  it('inventory through hms-krb with a keytab sees the warehouse seeded through the plain HMS', async () => {
    const r = await migrate(['inventory', '--config', config('keytab.yaml', KRB_URI, KEYTAB_AUTH), '--json', '--database', db]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, source: 'thrift', totals: { tables: 2, partitions: 4 } });
  });

  it('protection [privacy]: inventory sees the same totals as with authentication; doctor names the protection of each', async () => {
    const plainCfg = config('keytab.yaml', KRB_URI, KEYTAB_AUTH);
    const privateCfg = config('privacy.yaml', KRB_URI, { ...KEYTAB_AUTH, protection: ['privacy'] });
    const plain = await migrate(['inventory', '--config', plainCfg, '--json', '--database', db]);
    const sealed = await migrate(['inventory', '--config', privateCfg, '--json', '--database', db]);
    expect(sealed.code).toBe(0);
    const totals = (r: Run): unknown => (JSON.parse(r.stdout) as { totals: unknown }).totals;
    expect(totals(sealed)).toEqual(totals(plain));
    expect(totals(sealed)).toMatchObject({ tables: 2, partitions: 4 });
    const { hms } = await doctor(privateCfg);
    expect(hms.map((c) => [c.check, c.status])).toEqual([
      ['reachable', 'ok'],
      ['auth', 'ok'],
    ]);
    expect(hms[1]?.detail).toMatch(/, protection privacy$/);
    expect((await doctor(plainCfg)).hms[1]?.detail).toMatch(/, protection authentication$/);
  });

  it('protection [integrity], which hms-krb does not offer: doctor fails auth naming the offer and the key to set', async () => {
    const { hms } = await doctor(config('integrity.yaml', KRB_URI, { ...KEYTAB_AUTH, protection: ['integrity'] }));
    expect(hms).toHaveLength(1);
    expect(hms[0]).toMatchObject({ check: 'auth', status: 'fail', code: 'HMS_KERBEROS_AUTH_FAILED' });
    expect(hms[0]?.detail).toContain('the metastore offers protection authentication, privacy (its hadoop.rpc.protection)');
    expect(hms[0]?.remedy).toContain('The metastore offers protection authentication, privacy');
    expect(hms[0]?.remedy).toContain('set hms.thrift.kerberos.protection to a list that includes authentication or privacy');
  });

  it("inventory with a ticket from the user's credential cache (kinit), no keytab configured", async () => {
    const cache = `FILE:${path.join(dir, 'kinit-cache')}`;
    execFileSync('kinit', ['-kt', KEYTAB, '-c', cache, CLIENT], { env: { ...process.env, KRB5_CONFIG: env.HIM_KRB5_CONFIG } });
    const cfg = config('ccache.yaml', KRB_URI, { servicePrincipal: SERVICE });
    const r = await migrate(['inventory', '--config', cfg, '--json', '--database', db], { KRB5CCNAME: cache });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, totals: { tables: 2, partitions: 4 } });
    const { hms } = await doctor(cfg, { KRB5CCNAME: cache });
    expect(hms[1]?.detail).toContain(`${CLIENT} → ${SERVICE}`);
    expect(hms[1]?.detail).toContain('from the credential cache');
  });

  it('plan and apply (a worker on hms-krb, the REST catalog) migrate every table', async () => {
    const cfg = config('keytab.yaml', KRB_URI, KEYTAB_AUTH);
    const planFile = path.join(dir, 'plan.json');
    const p = await migrate(['plan', '--config', cfg, '--out', planFile]);
    expect(p.code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { waves: { tables: { id: string }[] }[] };
    expect(plan.waves.flatMap((w) => w.tables.map((t) => t.id)).sort()).toEqual([`${db}.t0`, `${db}.t1`]);
    expect(readFileSync(planFile, 'utf8')).not.toContain(KEYTAB);
    startWorker(cfg);
    const a = await migrate(['apply', planFile, '--config', cfg, '--auto-approve', '--wait', '--json']);
    if (a.code !== 0) throw new Error(`${a.stdout}\n${a.stderr}\n${workerLog.slice(-3000)}`);
    expect(JSON.parse(a.stdout)).toMatchObject({ ok: true, result: { state: 'succeeded' } });
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    expect((await catalog.listTables([`${nsPrefix}${db}`])).map((t) => t.name).sort()).toEqual(['t0', 't1']);
    await stopWorker();
  }, 600_000);

  it('no ticket (empty credential cache, no keytab): HMS_KERBEROS_NO_TICKET naming `kinit -kt`, exit 1; doctor fails auth with that remedy', async () => {
    const cfg = config('no-ticket.yaml', KRB_URI, { servicePrincipal: SERVICE, clientPrincipal: CLIENT });
    const t0 = Date.now();
    const r = await migrate(['inventory', '--config', cfg, '--json', '--database', db]);
    expect(r.code).toBe(1);
    expect(failure(r).code).toBe('HMS_KERBEROS_NO_TICKET');
    expect(failure(r).message).toContain(`kinit -kt <keytab> ${CLIENT}`);
    expect(Date.now() - t0).toBeLessThan(20_000);
    const { r: d, hms } = await doctor(cfg);
    expect(d.code).toBe(1);
    expect(hms).toEqual([expect.objectContaining({ check: 'auth', status: 'fail', code: 'HMS_KERBEROS_NO_TICKET' })]);
    expect(hms[0]?.remedy).toContain(`kinit -kt <keytab> ${CLIENT}`);
  });

  it('a GSSAPI library that cannot be loaded: HMS_KERBEROS_UNAVAILABLE naming it, exit 1; doctor fails auth with the install remedy', async () => {
    const missing = path.join(dir, 'no-such-libgssapi_krb5.so.2');
    const cfg = config('no-library.yaml', KRB_URI, { ...KEYTAB_AUTH, gssapiLibrary: missing });
    const r = await migrate(['inventory', '--config', cfg, '--json', '--database', db]);
    expect([r.code, failure(r).code]).toEqual([1, 'HMS_KERBEROS_UNAVAILABLE']);
    expect(failure(r).message).toContain(`the GSSAPI library ${missing} cannot be loaded`);
    const { r: d, hms } = await doctor(cfg);
    expect(d.code).toBe(1);
    expect(hms).toEqual([expect.objectContaining({ check: 'auth', status: 'fail', code: 'HMS_KERBEROS_UNAVAILABLE' })]);
    expect(hms[0]?.remedy).toContain('libgssapi-krb5-2');
    expect(hms[0]?.remedy).toContain('hms.thrift.kerberos.gssapiLibrary');
    // The same setting with the library's real path works (an absolute path is loaded as given).
    const real = execFileSync('sh', ['-c', 'ldconfig -p | grep -m1 "libgssapi_krb5.so.2 " | sed "s/.*=> //"']).toString().trim();
    const ok = await migrate([
      'inventory',
      '--config',
      config('library.yaml', KRB_URI, { ...KEYTAB_AUTH, gssapiLibrary: real }),
      '--json',
      '--database',
      db,
    ]);
    expect(ok.code).toBe(0);
  });

  it('an expired ticket in the credential cache: HMS_KERBEROS_NO_TICKET, exit 1', async () => {
    const cache = `FILE:${path.join(dir, 'short-cache')}`;
    execFileSync('kinit', ['-l', '2s', '-kt', KEYTAB, '-c', cache, CLIENT], { env: { ...process.env, KRB5_CONFIG: env.HIM_KRB5_CONFIG } });
    await new Promise((r) => setTimeout(r, 3000));
    const r = await migrate(['inventory', '--config', config('ccache.yaml', KRB_URI, { servicePrincipal: SERVICE }), '--json'], {
      KRB5CCNAME: cache,
    });
    expect([r.code, failure(r).code]).toEqual([1, 'HMS_KERBEROS_NO_TICKET']);
    expect(failure(r).message).toContain('Ticket expired');
    expect(failure(r).message).toContain("run 'kinit -kt <keytab> <principal>'");
  });

  it('a wrong service principal: HMS_KERBEROS_AUTH_FAILED, whether the KDC does not know it or the metastore is not it', async () => {
    for (const [principal, said] of [
      [`hive/nowhere@${env.HIM_KRB_REALM}`, 'Server not found in Kerberos database'],
      [env.HIM_KRB_OTHER_SERVICE_PRINCIPAL as string, "the metastore refused it: 'GSS initiate failed'"],
    ] as const) {
      const cfg = config('wrong-principal.yaml', KRB_URI, { ...KEYTAB_AUTH, servicePrincipal: principal });
      const r = await migrate(['inventory', '--config', cfg, '--json', '--database', db]);
      expect([r.code, failure(r).code]).toEqual([1, 'HMS_KERBEROS_AUTH_FAILED']);
      expect(failure(r).message).toContain(said);
      const { hms } = await doctor(cfg);
      expect(hms).toEqual([expect.objectContaining({ check: 'auth', status: 'fail', code: 'HMS_KERBEROS_AUTH_FAILED' })]);
      expect(hms[0]?.remedy).toContain(`now ${principal}`);
    }
  });

  it('doctor with a hive catalog on hms-krb: its Thrift connection authenticates too', async () => {
    const cfg = config('hive-catalog.yaml', KRB_URI, KEYTAB_AUTH);
    const hive = `catalog:\n  name: krb-hive\n  type: hive\n  uri: ${KRB_URI}\n  namespacePrefix: ${nsPrefix}\n`;
    writeFileSync(cfg, withCatalogSection(readFileSync(cfg, 'utf8'), hive));
    const r = await migrate(['doctor', '--config', cfg, '--json', '--timeout', '5000']);
    const catalog = (JSON.parse(r.stdout) as { checks: Check[] }).checks.filter((c) => c.component === 'catalog');
    expect(catalog).toEqual([expect.objectContaining({ check: 'reachable', status: 'ok' })]);
    expect(catalog[0]?.detail).toContain('hive catalog (register)');
  });

  it('plain Thrift against hms-krb is HMS_UNSUPPORTED_AUTH; SASL against the plain HMS is HMS_KERBEROS_AUTH_FAILED; neither hangs', async () => {
    const t0 = Date.now();
    const plain = await migrate(['inventory', '--config', config('plain.yaml', KRB_URI, undefined), '--json', '--database', db]);
    expect([plain.code, failure(plain).code]).toEqual([1, 'HMS_UNSUPPORTED_AUTH']);
    expect(failure(plain).message).toContain('hms.thrift.kerberos');
    const sasl = await migrate([
      'inventory',
      '--config',
      config('sasl.yaml', env.HIM_HMS_PG_URI as string, { ...KEYTAB_AUTH, servicePrincipal: SERVICE }),
      '--json',
    ]);
    expect([sasl.code, failure(sasl).code]).toEqual([1, 'HMS_KERBEROS_AUTH_FAILED']);
    expect(failure(sasl).message).toContain('remove hms.thrift.kerberos');
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it('backing-database reads need no Kerberos: --source db with no ticket at all', async () => {
    const cfg = config('no-ticket.yaml', KRB_URI, { servicePrincipal: SERVICE, clientPrincipal: CLIENT });
    const args = ['inventory', '--config', cfg, '--json', '--source', 'db', '--set', `hms.db.url=${env.HIM_HMS_POSTGRES_URL}`];
    const r = await migrate([...args, '--database', db]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, source: 'db', totals: { tables: 2, partitions: 4 } });
  });
});
