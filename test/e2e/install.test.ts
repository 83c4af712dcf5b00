// The packed tool installs and runs without the repo. `npm pack` (prepack builds dist/),
// then `npm install -g --prefix <tmp>` of the tarball from a directory outside the checkout; the
// installed `migrate` then runs with an environment that cannot reach the repo's node_modules (cwd
// in the temporary directory, NODE_PATH unset, PATH = the prefix's bin and Node's own directory,
// only the stack's variables): it prints its versions, passes doctor against the stack, starts a
// worker on the prebuilt workflow bundle (no bundling at start) and converts one seeded table
// (registered and validated) — its footer threads start from the package's compiled files and
// nothing is written into its node_modules. Dependencies come from the npm registry (the local npm
// cache first). Seeding and clean-up use the repo's own tools.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { RestCatalog } from '../../adapters/catalog/rest';
import { HMS_IDL_VERSION } from '../../adapters/hms/thrift/idl-version';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const stack = testStack();
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
};
const prefix = uniqueName('himi').toLowerCase();
const sales = `${prefix}_sales`;
const nsPrefix = `${prefix}_`;
let tmp = '';
let installDir = '';
let bin = '';
let cfg = '';

/** The environment outside the repo: only PATH (the prefix's bin, Node's directory), HOME and the stack's variables. */
function outsideEnv(): NodeJS.ProcessEnv {
  return {
    PATH: [path.join(tmp, 'prefix', 'bin'), path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    HOME: process.env.HOME ?? os.homedir(),
    ...stack,
  };
}

/** How this machine reaches the package registry (proxy, extra CAs): npm needs it, the tool does not. */
const NETWORK_VARS = ['NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy'];
function networkEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(NETWORK_VARS.filter((v) => process.env[v] !== undefined).map((v) => [v, process.env[v]]));
}

/** A command outside the repo: cwd `tmp`, only PATH, HOME and the stack's variables (no NODE_PATH, NODE_OPTIONS). */
async function outside(cmd: string, args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
  const env = { ...outsideEnv(), ...extraEnv };
  return promisify(execFile)(cmd, [...args], { env, cwd: tmp, maxBuffer: 64 << 20, timeout: 600_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** Every directory named `name` under `dir` (no symlinks followed). */
function dirsNamed(dir: string, name: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const p = path.join(dir, e.name);
    if (e.name === name) out.push(p);
    out.push(...dirsNamed(p, name));
  }
  return out;
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'him-install-'));
  expect(path.relative(ROOT, tmp).startsWith('..')).toBe(true);
  const packed = await run('npm', ['pack', '--json', '--pack-destination', tmp]);
  if (packed.code !== 0) throw new Error(`npm pack: ${packed.stderr}`);
  const tarball = path.join(tmp, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  // With --prefix, npm would read its global config from <prefix>/etc/npmrc and lose this machine's
  // (a registry CA file, a proxy): name the real one, as an operator installing into /opt would.
  const globalConfig = (await run('npm', ['config', 'get', 'globalconfig'])).stdout.trim();
  const installed = await outside(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      path.join(tmp, 'prefix'),
      tarball,
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--globalconfig',
      globalConfig,
    ],
    networkEnv(),
  );
  if (installed.code !== 0) throw new Error(`npm install: ${installed.stderr}`);
  installDir = path.join(tmp, 'prefix', 'lib', 'node_modules', pkg.name);
  bin = path.join(tmp, 'prefix', 'bin', 'migrate');
  const s = await run(TSX, ['dev/seed/main.ts', '--hms', stack.HIM_HMS_PG_URI as string, '--prefix', prefix]);
  if (s.code !== 0) throw new Error(s.stderr);
  cfg = path.join(tmp, 'migrate.yaml');
  const base = readFileSync(path.join(stack.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8');
  writeFileSync(cfg, base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`));
}, 900_000);

afterAll(async () => {
  const catalog = await RestCatalog.connect({ uri: stack.HIM_ICEBERG_REST_URI as string });
  for (const t of await catalog.listTables([`${nsPrefix}${sales}`]).catch(() => [])) await catalog.dropTable(t);
  await catalog.dropNamespace([`${nsPrefix}${sales}`]).catch(() => undefined);
  await run(TSX, ['dev/seed/main.ts', '--hms', stack.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
}, 300_000);

describe('the packed tarball, installed into a temporary prefix', () => {
  it('holds the compiled tool and its prebuilt workflow bundle, not the sources or the dev tools', () => {
    for (const f of [
      'dist/cli/main.js',
      'dist/workflow-bundle.js',
      'dist/adapters/storage/object-read/footer-worker.bundle.js',
      'jobs/rewrite.py',
      'jobs/canonical.py',
      'LICENSE',
    ])
      expect(existsSync(path.join(installDir, f))).toBe(true);
    // node-sql-parser is inlined (its Hive grammar only) into the compiled view parser: a dev dependency.
    for (const f of [
      'cli/main.ts',
      'bin/migrate',
      'dev',
      'test',
      'node_modules/tsx',
      'node_modules/esbuild',
      'node_modules/node-sql-parser',
    ])
      expect(existsSync(path.join(installDir, f))).toBe(false);
  });

  it("reads views' SQL with the inlined Hive grammar: assess finds the view-on-view edge", async () => {
    const r = await outside(bin, ['assess', '-c', cfg, '--database', sales, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { edges: { from: string; to: string; reason: string }[] };
    expect(out.edges).toEqual(
      expect.arrayContaining([
        { from: `${sales}.orders`, to: `${sales}.v_orders_eu`, reason: 'view' },
        { from: `${sales}.v_orders_eu`, to: `${sales}.v_orders_eu_big`, reason: 'view' },
      ]),
    );
  });

  it('migrate --version names the tool, Node, Temporal SDK and HMS IDL versions', async () => {
    const r = await outside(bin, ['--version']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(
      `migrate ${pkg.version}\nnode ${process.versions.node}\ntemporal-sdk ${pkg.dependencies['@temporalio/client']}\nhms-idl ${HMS_IDL_VERSION} (Hive Metastore Thrift IDL)\n`,
    );
  });

  it('migrate doctor passes against the stack', async () => {
    const r = await outside(bin, ['doctor', '-c', cfg, '--json']);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout) as { ok: boolean; checks: { component: string; ok: boolean }[] };
    expect(d.ok).toBe(true);
    expect(d.checks.map((c) => c.component)).toEqual(expect.arrayContaining(['hms', 'catalog', 'storage', 'temporal', 'state']));
  });

  it('migrate doctor authenticates to the Kerberized HMS (hms-krb) with the Kerberos binding of the installed package', async () => {
    const set = (k: string, v: string | undefined): string[] => ['--set', `hms.thrift.${k}=${v ?? ''}`];
    const krb = [
      ...set('uri', stack.HIM_HMS_KRB_URI),
      ...set('kerberos.servicePrincipal', stack.HIM_KRB_SERVICE_PRINCIPAL),
      ...set('kerberos.clientPrincipal', stack.HIM_KRB_CLIENT_PRINCIPAL),
      ...set('kerberos.keytabFile', stack.HIM_KRB_CLIENT_KEYTAB),
    ];
    const r = await outside('/usr/bin/env', [`KRB5_CONFIG=${stack.HIM_KRB5_CONFIG}`, bin, 'doctor', '-c', cfg, '--json', ...krb]);
    const hms = (JSON.parse(r.stdout) as { checks: { component: string; check: string; ok: boolean; detail: string }[] }).checks.filter(
      (c) => c.component === 'hms',
    );
    expect(hms.map((c) => [c.check, c.ok])).toEqual([
      ['reachable', true],
      ['auth', true],
    ]);
    expect(hms[1]?.detail).toContain(`${stack.HIM_KRB_CLIENT_PRINCIPAL} → ${stack.HIM_KRB_SERVICE_PRINCIPAL}`);
  });

  it('migrate worker starts on the prebuilt workflow bundle and stops on SIGTERM', async () => {
    const queue = uniqueName('him-install-q');
    const child = spawn(bin, ['worker', '-c', cfg, '--role', 'workflows', '--json', '--set', `temporal.taskQueue=${queue}`], {
      cwd: tmp,
      env: outsideEnv(),
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const started = (): string | undefined => out.split('\n').find((l) => l.startsWith('{"ok":true'));
    for (let i = 0; i < 600 && started() === undefined; i++) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(JSON.parse(started() ?? 'null')).toMatchObject({ ok: true, role: 'workflows', taskQueue: queue });
    // What the SDK logs when Worker.create bundles workflowsPath itself (as from the sources).
    expect(out).not.toContain('Workflow bundle created');
  }, 120_000);

  it('migrate table converts, registers and validates one table, writing nothing into node_modules', async () => {
    const r = await outside(bin, ['table', `${sales}.orders`, '-c', cfg, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: true,
      registration: 'registered',
      dataFiles: 10,
      records: 65,
      validation: { ok: true },
    });
    const catalog = await RestCatalog.connect({ uri: stack.HIM_ICEBERG_REST_URI as string });
    expect(await catalog.tableExists({ namespace: [`${nsPrefix}${sales}`], name: 'orders' })).toBe(true);
    // The footer threads run the bundle the build shipped: nothing is bundled or cached at run time.
    expect(dirsNamed(path.join(tmp, 'prefix'), '.cache')).toEqual([]);
  });

  it('migrate plan (report, SVG graph) and apply --wait on a worker of the installed tool migrate the rest of the database', async () => {
    // After the test above: orders is in the catalog already, so the plan leaves it out (IN_TARGET_CATALOG).
    const planFile = path.join(tmp, 'plan.json');
    const p = await outside(bin, [
      'plan',
      '-c',
      cfg,
      '--database',
      sales,
      '--out',
      planFile,
      '--report',
      path.join(tmp, 'plan.md'),
      '--graph',
      path.join(tmp, 'plan.svg'),
    ]);
    expect(p.code).toBe(0);
    expect(readFileSync(path.join(tmp, 'plan.svg'), 'utf8')).toContain('<svg');
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { waves: { tables: { id: string }[] }[] };
    const planned = plan.waves.flatMap((w) => w.tables.map((t) => t.id));
    expect(planned.length).toBeGreaterThan(0);
    expect(planned).not.toContain(`${sales}.orders`);

    const queue = uniqueName('him-install-apply');
    const set = ['--set', `temporal.taskQueue=${queue}`];
    const worker = spawn(bin, ['worker', '-c', cfg, ...set], { cwd: tmp, env: outsideEnv(), stdio: 'ignore' });
    try {
      const a = await outside(bin, ['apply', planFile, '-c', cfg, ...set, '--auto-approve', '--wait', '--max-failed', '99', '--json']);
      expect(a.code).toBe(0);
      const body = JSON.parse(a.stdout) as { ok: boolean; result: { state: string; waves: unknown[] } };
      expect(body).toMatchObject({ ok: true, result: { state: 'succeeded' } });
      // While it waited: one JSON line per event on stderr — each planned table's outcome once, each wave's start and end.
      const events = a.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: string; table?: string });
      const outcomes = events.filter((e) => e.event === 'table').map((e) => e.table);
      expect([...outcomes].sort()).toEqual([...planned].sort());
      expect(events.filter((e) => e.event === 'wave-ended')).toHaveLength(body.result.waves.length);
      expect(events.filter((e) => e.event === 'wave-started')).toHaveLength(body.result.waves.length);
      const catalog = await RestCatalog.connect({ uri: stack.HIM_ICEBERG_REST_URI as string });
      const registered = (await catalog.listTables([`${nsPrefix}${sales}`])).map((t) => `${sales}.${t.name}`);
      // Planned views are skipped (nothing to register); every other planned table that did not fail is registered.
      expect(registered.filter((t) => planned.includes(t)).length).toBeGreaterThan(0);
    } finally {
      worker.kill('SIGTERM');
    }
    expect(dirsNamed(path.join(tmp, 'prefix'), '.cache')).toEqual([]);
  }, 600_000);
});
