// Apache Iceberg's reference REST catalog (the iceberg-open-api 1.10.1 fat jar): JdbcCatalog on a
// SQLite file in the state dir, S3FileIO against the stack's S3. Dev tooling; the product talks to
// it only through the REST API.
import { createHash } from 'node:crypto';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Component, StackContext } from '../types';
import { settings, versionOf } from '../manifest';
import { S3_CHECKSUM_ENV, cred } from '../env';
import { mavenCopy } from '../installers';
import { assertPortsFree, cachedInstall, dataDir, httpGet, run, spawnDaemon, stopPid, waitFor, LEAN_JVM, StackError } from '../util';

const NAME = 'iceberg-rest';
const Settings = z.object({ maven: z.string(), warehouse: z.string(), heap: z.string().regex(/^\d+[mg]$/) });

/**
 * The jar's own main class (RESTCatalogServer) binds 0.0.0.0 and reads no host setting (checked
 * with javap on 1.10.1: `new Server(port)`). This launcher, compiled against the jar, repeats its
 * start sequence with a Jetty connector bound to 127.0.0.1. Keyed by a hash of its source so an
 * edit recompiles it without re-copying the 202 MiB jar.
 */
const LAUNCHER_SRC = path.join(__dirname, '..', 'java', 'LoopbackRestCatalogServer.java');
const LAUNCHER_CLASS = 'LoopbackRestCatalogServer';

function jarName(coordinates: string): string {
  const [, artifact, version] = coordinates.split(':');
  if (!artifact || !version) throw new StackError('MANIFEST_INVALID', `${NAME}: settings.maven must be g:a:v, got '${coordinates}'`);
  return `${artifact}-${version}.jar`;
}

function launcherKey(ctx: StackContext): string {
  const sha = createHash('sha256').update(readFileSync(LAUNCHER_SRC)).digest('hex').slice(0, 12);
  return `${versionOf(ctx, NAME)}-${sha}`;
}

async function installJar(ctx: StackContext): Promise<string> {
  const s = settings(ctx, NAME, Settings);
  const dir = await cachedInstall(ctx, NAME, versionOf(ctx, NAME), (tmp) => mavenCopy(ctx, [s.maven], tmp));
  return path.join(dir, jarName(s.maven));
}

async function installLauncher(ctx: StackContext, jar: string): Promise<string> {
  return cachedInstall(ctx, `${NAME}-launcher`, launcherKey(ctx), async (tmp) => {
    await run('javac', ['-cp', jar, '-d', tmp, LAUNCHER_SRC], { logTo: path.join(ctx.cacheDir, 'install.log') });
  });
}

function serverEnv(ctx: StackContext): NodeJS.ProcessEnv {
  const s = settings(ctx, NAME, Settings);
  // CATALOG_* → catalog properties: prefix dropped, `__` → `-`, `_` → `.`, lower-cased
  // (RCKUtils.environmentCatalogConfig; see docs/design/iceberg-spec.md §7).
  return {
    CATALOG_URI: `jdbc:sqlite:file:${path.join(dataDir(ctx, NAME), 'catalog.db')}`,
    // As the upstream Docker image: namespaces exist only when created, not implied by tables.
    CATALOG_JDBC_STRICT__MODE: 'true',
    // One pooled SQLite connection: with the default two, concurrent registers (apply at 24 tables
    // in flight) hit SQLITE_BUSY and one connection was left holding the write lock, after which
    // every write answered 500 until the server restarted. SQLite serialises writes anyway.
    CATALOG_CLIENTS: '1',
    // Views (REST /v1/{prefix}/namespaces/{ns}/views): JdbcCatalog 1.10.1 serves them only with its
    // V1 schema (an `iceberg_type` column; JdbcCatalog.newViewOps throws "initialized without view
    // support" otherwise). V1 also migrates an existing V0 catalog.db: `ALTER TABLE iceberg_tables ADD
    // COLUMN iceberg_type` (JdbcUtil.V1_UPDATE_CATALOG_SQL), rows without a type stay tables.
    CATALOG_JDBC_SCHEMA__VERSION: 'V1',
    CATALOG_WAREHOUSE: s.warehouse,
    CATALOG_IO__IMPL: 'org.apache.iceberg.aws.s3.S3FileIO',
    CATALOG_S3_ENDPOINT: `http://127.0.0.1:${ctx.port('s3')}`,
    CATALOG_S3_PATH__STYLE__ACCESS: 'true',
    CATALOG_REST_PORT: String(ctx.port(NAME)),
    AWS_ACCESS_KEY_ID: cred(ctx, 's3AccessKey'),
    AWS_SECRET_ACCESS_KEY: cred(ctx, 's3SecretKey'),
    // Without a region create_table answers 500 "Unable to load region from any of the providers".
    AWS_REGION: cred(ctx, 's3Region'),
    AWS_EC2_METADATA_DISABLED: 'true',
    ...S3_CHECKSUM_ENV,
  };
}

function baseUrl(ctx: StackContext): string {
  return `http://127.0.0.1:${ctx.port(NAME)}`;
}

export const component: Component = {
  name: NAME,
  async install(ctx) {
    await installLauncher(ctx, await installJar(ctx));
  },
  async start(ctx) {
    await assertPortsFree(ctx, NAME);
    const jar = await installJar(ctx);
    const launcher = await installLauncher(ctx, jar);
    if (!existsSync(path.join(launcher, `${LAUNCHER_CLASS}.class`))) {
      throw new StackError(
        'INSTALL_FAILED',
        `${NAME}: ${launcher} has no ${LAUNCHER_CLASS}.class; delete that directory and run install again`,
      );
    }
    await fs.mkdir(dataDir(ctx, NAME), { recursive: true });
    const heap = settings(ctx, NAME, Settings).heap;
    const pid = await spawnDaemon(
      ctx,
      NAME,
      'java',
      [`-Xmx${heap}`, ...LEAN_JVM, '-Drest.host=127.0.0.1', '-cp', `${launcher}${path.delimiter}${jar}`, LAUNCHER_CLASS],
      {
        env: serverEnv(ctx),
        cwd: dataDir(ctx, NAME),
      },
    );
    await waitFor(ctx, NAME, async () => (await this.health(ctx)).ok, 60_000, pid);
  },
  async health(ctx) {
    try {
      const res = await httpGet(`${baseUrl(ctx)}/v1/config`, 2000);
      if (res.status !== 200) return { ok: false, detail: `GET /v1/config answered ${res.status}` };
      const body = JSON.parse(res.body) as { defaults?: unknown; overrides?: unknown; endpoints?: unknown[] };
      if (typeof body.defaults !== 'object' || typeof body.overrides !== 'object') {
        return { ok: false, detail: 'GET /v1/config: no defaults/overrides in the answer' };
      }
      return { ok: true, detail: `REST catalog, ${body.endpoints?.length ?? 0} endpoints` };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  },
  async stop(ctx) {
    await stopPid(ctx, NAME, 15_000);
  },
  endpoints(ctx) {
    return { rest: baseUrl(ctx) };
  },
};
