// Trino 476 as a third independent reader of the migrated tables: the server tarball
// from Maven (sha256 pinned in the manifest), only the Iceberg plugin extracted, run with Java 25 on
// 127.0.0.1 with one catalog `iceberg` on the stack's REST catalog and S3. Dev tooling; the product
// never talks to Trino. Queried by dev/verifier/trino_client.py (HTTP client protocol).
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Component, StackContext } from '../types';
import { settings, versionOf } from '../manifest';
import { cred, installDir } from '../env';
import { mavenCopy } from '../installers';
import { assertPortsFree, cachedInstall, dataDir, httpGet, run, spawnDaemon, stopPid, waitFor, LEAN_JVM, StackError } from '../util';

const NAME = 'trino';
const Settings = z.object({
  maven: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  javaHome: z.string(),
  heap: z.string().regex(/^\d+[mg]$/),
  plugins: z.array(z.string().regex(/^[a-z0-9-]+$/)).min(1),
});

async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/**
 * mvn copies the tarball (Maven checks the registry's sha1 on download), then we check the pinned
 * sha256 and extract lib/ and the wanted plugins only; the tarball itself is not kept in the install.
 */
async function build(ctx: StackContext, tmp: string): Promise<void> {
  const s = settings(ctx, NAME, Settings);
  const dl = path.join(tmp, 'download');
  await mavenCopy(ctx, [s.maven], dl);
  const [, artifact, version] = s.maven.split(':');
  const tgz = path.join(dl, `${artifact}-${version}.tar.gz`);
  if (!existsSync(tgz)) throw new StackError('INSTALL_FAILED', `${NAME}: mvn did not write ${tgz}`);
  const got = await sha256File(tgz);
  if (got !== s.sha256) {
    throw new StackError('INSTALL_FAILED', `${NAME}: ${path.basename(tgz)} has sha256 ${got}, the manifest pins ${s.sha256}`);
  }
  // The tarball stores the plugins' shared jars as hard links into other plugins' directories, so
  // lib/ and plugin/ are extracted whole and the plugins not wanted removed afterwards (the kept
  // links stay valid: a hard link is the file).
  const top = `${artifact}-${version}`;
  await run('tar', ['-xzf', tgz, '-C', tmp, '--strip-components=1', `${top}/lib`, `${top}/plugin`], {
    logTo: path.join(ctx.cacheDir, 'install.log'),
  });
  for (const p of await fs.readdir(path.join(tmp, 'plugin'))) {
    if (!s.plugins.includes(p)) await fs.rm(path.join(tmp, 'plugin', p), { recursive: true, force: true });
  }
  for (const p of s.plugins) {
    if (!existsSync(path.join(tmp, 'plugin', p)))
      throw new StackError('INSTALL_FAILED', `${NAME}: ${path.basename(tgz)} has no plugin/${p}`);
  }
  await fs.rm(dl, { recursive: true, force: true });
}

function java(ctx: StackContext): string {
  return path.join(settings(ctx, NAME, Settings).javaHome, 'bin', 'java');
}

function props(entries: Record<string, string>): string {
  return `${Object.entries(entries)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`;
}

/** etc/ under the state dir: server config and the one catalog. Rewritten at every start. */
async function writeConfig(ctx: StackContext, etc: string): Promise<void> {
  const port = ctx.port(NAME);
  await fs.mkdir(path.join(etc, 'catalog'), { recursive: true });
  await fs.writeFile(
    path.join(etc, 'config.properties'),
    props({
      coordinator: 'true',
      'node-scheduler.include-coordinator': 'true',
      'http-server.http.port': String(port),
      'discovery.uri': `http://127.0.0.1:${port}`,
      'catalog.config-dir': path.join(etc, 'catalog'),
      'plugin.dir': path.join(installDir(ctx, NAME), 'plugin'),
      // A 1 GiB heap: per-query memory well under it (defaults assume a large heap).
      'query.max-memory': '400MB',
      'query.max-memory-per-node': '400MB',
      // Two shared cores: fewer task threads than the defaults sized for servers.
      'task.concurrency': '2',
      'task.max-worker-threads': '4',
    }),
  );
  await fs.writeFile(
    path.join(etc, 'catalog', 'iceberg.properties'),
    props({
      'connector.name': 'iceberg',
      'iceberg.catalog.type': 'rest',
      'iceberg.rest-catalog.uri': `http://127.0.0.1:${ctx.port('iceberg-rest')}`,
      'fs.native-s3.enabled': 'true',
      's3.endpoint': `http://127.0.0.1:${ctx.port('s3')}`,
      's3.region': cred(ctx, 's3Region'),
      's3.path-style-access': 'true',
      's3.aws-access-key': cred(ctx, 's3AccessKey'),
      's3.aws-secret-key': cred(ctx, 's3SecretKey'),
    }),
  );
}

function jvmArgs(ctx: StackContext, etc: string): string[] {
  const s = settings(ctx, NAME, Settings);
  const data = dataDir(ctx, NAME);
  return [
    `-Xmx${s.heap}`,
    ...LEAN_JVM,
    '-XX:+ExitOnOutOfMemoryError',
    '-XX:-OmitStackTraceInFastThrow',
    '-XX:ReservedCodeCacheSize=256M',
    '-XX:+EnableDynamicAgentLoading',
    '--enable-native-access=ALL-UNNAMED',
    '-Djdk.attach.allowAttachSelf=true',
    '-Dfile.encoding=UTF-8',
    `-Dconfig=${path.join(etc, 'config.properties')}`,
    '-Dnode.environment=him',
    `-Dnode.id=him-${ctx.port(NAME)}`,
    `-Dnode.data-dir=${path.join(data, 'var')}`,
    // Airlift binds its HTTP connector to node.bind-ip (default: every address).
    '-Dnode.bind-ip=127.0.0.1',
    '-Dnode.internal-address=127.0.0.1',
    '-cp',
    `${path.join(installDir(ctx, NAME), 'lib')}${path.sep}*`,
    'io.trino.server.TrinoServer',
  ];
}

function baseUrl(ctx: StackContext): string {
  return `http://127.0.0.1:${ctx.port(NAME)}`;
}

export const component: Component = {
  name: NAME,
  async install(ctx) {
    await cachedInstall(ctx, NAME, versionOf(ctx, NAME), (tmp) => build(ctx, tmp));
  },
  async start(ctx) {
    await assertPortsFree(ctx, NAME);
    if (!existsSync(java(ctx))) {
      throw new StackError(
        'TOOL_MISSING',
        `${NAME}: ${java(ctx)} is missing: Trino ${versionOf(ctx, NAME)} needs Java 25 (set settings.javaHome)`,
      );
    }
    const etc = path.join(dataDir(ctx, NAME), 'etc');
    await writeConfig(ctx, etc);
    const pid = await spawnDaemon(ctx, NAME, java(ctx), jvmArgs(ctx, etc), { cwd: dataDir(ctx, NAME) });
    await waitFor(ctx, NAME, async () => (await this.health(ctx)).ok, 180_000, pid);
  },
  async health(ctx) {
    try {
      // /v1/info answers before the server is ready; `starting: false` means it accepts queries.
      const res = await httpGet(`${baseUrl(ctx)}/v1/info`, 2000);
      if (res.status !== 200) return { ok: false, detail: `GET /v1/info answered ${res.status}` };
      const info = JSON.parse(res.body) as { starting?: boolean; nodeVersion?: { version?: string } };
      if (info.starting !== false) return { ok: false, detail: 'starting' };
      const version = info.nodeVersion?.version;
      return { ok: true, detail: `Trino ${version ?? '?'}, catalog iceberg`, ...(version ? { serverVersion: version } : {}) };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  },
  async stop(ctx) {
    await stopPid(ctx, NAME, 30_000);
  },
  endpoints(ctx) {
    return { http: baseUrl(ctx) };
  },
};
