// Hive Metastore (standalone, Thrift) for the local stack, 4.0.1 and 3.1.3: one shared install per
// version (the Maven Central bin tarball + the Hadoop/JDBC/S3A jars it does not ship), and a
// component factory used by components/hms-pg.ts, hms-mariadb.ts (4.0.1) and hms3-pg.ts (3.1.3).
// Recipe: docs/design/stack-components.md §7. Dev tooling.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Component, StackContext } from './types';
import { settings, versionOf } from './manifest';
import { S3_CHECKSUM_ENV, cred } from './env';
import { mavenCopy, mavenCopyDependencies } from './installers';
import { assertPortsFree, cachedInstall, dataDir, logFile, run, spawnDaemon, stopPid, waitFor, LEAN_JVM, StackError } from './util';
import { probeHms } from '../../adapters/hms/thrift/connection';
import type { HmsProbe } from '../../adapters/hms/thrift/connection';
import { ensureDatabase, recreateDatabase, schemaState } from './hms-db';

const Settings = z.object({
  backend: z.enum(['postgres', 'mariadb']),
  database: z.string().regex(/^[a-z][a-z0-9_]*$/),
  warehouse: z.string(),
  externalWarehouse: z.string(),
  heap: z.string().regex(/^\d+[mg]$/),
});
type HmsSettings = z.infer<typeof Settings>;

const HADOOP = '3.3.6';
const MAIN_CLASS = 'org.apache.hadoop.hive.metastore.HiveMetaStore';

/** What differs between the 3.x and 4.x standalone metastores (docs/design/hive-metastore.md §3.2, §3.3, §3.5). */
interface Flavor {
  /** Maven coordinates of the bin tarball and the file mavenCopy writes. */
  readonly tarball: string;
  readonly tarballFile: string;
  readonly schemaTool: string;
  /**
   * Jars of the tarball's lib/ that must go. Both: its PostgreSQL driver (lib/ comes first on the
   * classpath and would shadow the pinned one in ext/). 3.x also ships guava-19, which Hadoop 3.3.6
   * cannot run with (NoSuchMethodError on Preconditions.checkArgument, HIVE-22915): ext/ carries
   * Guava 27 instead.
   */
  readonly dropFromLib: RegExp;
}

function flavorOf(version: string): Flavor {
  if (version.startsWith('3.')) {
    return {
      tarball: `org.apache.hive:hive-standalone-metastore:${version}:tar.gz:bin`,
      tarballFile: `hive-standalone-metastore-${version}-bin.tar.gz`,
      schemaTool: 'org.apache.hadoop.hive.metastore.tools.MetastoreSchemaTool',
      dropFromLib: /^(postgresql-\d.*|guava-19\..*)\.jar$/,
    };
  }
  return {
    tarball: `org.apache.hive:hive-standalone-metastore-server:${version}:tar.gz:bin`,
    tarballFile: `hive-standalone-metastore-server-${version}-bin.tar.gz`,
    schemaTool: 'org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool',
    dropFromLib: /^postgresql-\d.*\.jar$/,
  };
}
const START_TIMEOUT_MS = 120_000;

const dep = (g: string, a: string, v: string, exclusions: ReadonlyArray<readonly [string, string]> = []): string => {
  const ex = exclusions.map(([eg, ea]) => `<exclusion><groupId>${eg}</groupId><artifactId>${ea}</artifactId></exclusion>`).join('');
  return `    <dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version>${ex ? `<exclusions>${ex}</exclusions>` : ''}</dependency>`;
};

/**
 * Hadoop artifacts come without logging backends (the tarball has log4j2 + its slf4j binding; a
 * second binding, slf4j-reload4j, arrives through mapreduce → yarn), web servers and coordination
 * clients. docs/design/stack-components.md §7 lists these for hadoop-common; hdfs-client and mapreduce-client-core drag the
 * same ones in, so they get the same list.
 */
const HADOOP_EXCLUSIONS: ReadonlyArray<readonly [string, string]> = [
  ['org.slf4j', '*'],
  ['ch.qos.reload4j', '*'],
  ['log4j', '*'],
  ['org.eclipse.jetty', '*'],
  ['org.eclipse.jetty.websocket', '*'],
  ['com.sun.jersey', '*'],
  ['com.sun.jersey.contribs', '*'],
  ['org.apache.zookeeper', '*'],
  ['org.apache.curator', '*'],
  ['org.apache.kerby', '*'],
  ['io.netty', '*'],
  ['com.github.pjfanning', '*'],
];

/**
 * The jars the tarball lacks (its assembly excludes Hadoop, slf4j and the MySQL/MariaDB drivers).
 * hadoop-hdfs as a bare jar: with its deps, a missing SnapshotException class kills the Thrift
 * handler and the client sees only a closed socket.
 */
const EXT_POM = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.hms-iceberg-migrator</groupId>
  <artifactId>hms-ext</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
${dep('org.apache.hadoop', 'hadoop-common', HADOOP, HADOOP_EXCLUSIONS)}
${dep('org.apache.hadoop', 'hadoop-hdfs-client', HADOOP, HADOOP_EXCLUSIONS)}
${dep('org.apache.hadoop', 'hadoop-hdfs', HADOOP, [['*', '*']])}
${dep('org.apache.hadoop', 'hadoop-mapreduce-client-core', HADOOP, HADOOP_EXCLUSIONS)}
${dep('org.slf4j', 'slf4j-api', '1.7.36')}
${dep('org.postgresql', 'postgresql', '42.7.14')}
${dep('org.mariadb.jdbc', 'mariadb-java-client', '3.5.11')}
${dep('org.apache.hadoop', 'hadoop-aws', HADOOP)}
${dep('com.amazonaws', 'aws-java-sdk-bundle', '1.12.367')}
  </dependencies>
</project>
`;

/** Install once for every HMS component of this version: `<cache>/hms-<version>/{lib,scripts,ext}`. */
export async function installHms(ctx: StackContext, component: string): Promise<string> {
  const version = versionOf(ctx, component);
  const flavor = flavorOf(version);
  return cachedInstall(ctx, 'hms', version, async (tmp) => {
    const dl = path.join(tmp, 'download');
    await mavenCopy(ctx, [flavor.tarball], dl);
    const tgz = path.join(dl, flavor.tarballFile);
    await run('tar', ['-xzf', tgz, '-C', tmp, '--strip-components=1']);
    await fs.rm(dl, { recursive: true, force: true });
    await mavenCopyDependencies(ctx, EXT_POM, path.join(tmp, 'ext'));
    // The same Hadoop 3.3.6 set serves 3.1.3 too: its S3A keeps directory markers (needed with
    // versitygw, see metastoreSiteXml), which Hadoop 3.1.x cannot.
    for (const f of await fs.readdir(path.join(tmp, 'lib'))) {
      if (flavor.dropFromLib.test(f)) await fs.rm(path.join(tmp, 'lib', f));
    }
    for (const need of ['lib', 'scripts/metastore/upgrade/postgres', 'scripts/metastore/upgrade/mysql', 'ext']) {
      if (!existsSync(path.join(tmp, need))) throw new StackError('INSTALL_FAILED', `hms ${version}: ${need} missing after install`);
    }
  });
}

interface Backend {
  readonly driver: string;
  readonly url: string;
  readonly user: string;
  /** schematool -dbType */
  readonly dbType: 'postgres' | 'mysql';
}

function backendOf(ctx: StackContext, s: HmsSettings): Backend {
  return s.backend === 'postgres'
    ? {
        driver: 'org.postgresql.Driver',
        url: `jdbc:postgresql://127.0.0.1:${ctx.port('postgres')}/${s.database}`,
        user: 'postgres',
        dbType: 'postgres',
      }
    : {
        driver: 'org.mariadb.jdbc.Driver',
        url: `jdbc:mariadb://127.0.0.1:${ctx.port('mariadb')}/${s.database}`,
        user: 'root',
        dbType: 'mysql',
      };
}

const xmlEscape = (v: string): string => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function metastoreSiteXml(ctx: StackContext, name: string, extra: ReadonlyArray<[string, string]> = []): string {
  const s = settings(ctx, name, Settings);
  const b = backendOf(ctx, s);
  const props: Array<[string, string]> = [
    ['javax.jdo.option.ConnectionDriverName', b.driver],
    ['javax.jdo.option.ConnectionURL', b.url],
    ['javax.jdo.option.ConnectionUserName', b.user],
    // No javax.jdo.option.ConnectionPassword here: Hadoop's Configuration drops an empty <value>, so
    // HMS would send its default password 'mine' (MariaDB: "Access denied ... using password: YES").
    // The empty password goes in as a system property instead (see JVM_PROPS).
    ['metastore.thrift.port', String(ctx.port(name))],
    // Default binds every interface.
    ['metastore.thrift.bind.host', '127.0.0.1'],
    // Hive 4 refuses external table locations inside the managed root: keep the trees apart.
    ['metastore.warehouse.dir', s.warehouse],
    ['metastore.warehouse.external.dir', s.externalWarehouse],
    ['metastore.expression.proxy', 'org.apache.hadoop.hive.metastore.DefaultPartitionExpressionProxy'],
    ['metastore.task.threads.always', 'org.apache.hadoop.hive.metastore.events.EventCleanerTask'],
    ['hive.metastore.event.db.notification.api.auth', 'false'],
    ['metastore.schema.verification', 'true'],
    // A single space disables the transformer: tables are stored exactly as sent (no managed →
    // external translation for capability-less clients, ACID allowed).
    ['metastore.metadata.transformer.class', ' '],
    // Transactions need nothing more here: the schema tool creates TXNS, TXN_TO_WRITE_ID and
    // NEXT_WRITE_ID, and the metastore answers open_txns, allocate_table_write_ids, commit_txn,
    // abort_txns and get_valid_write_ids as it is (dev/seed/acid.ts, test/e2e/acid-insert-only.test.ts).
    // hive.txn.manager (DbTxnManager) is a HiveServer2/CLI setting, and metastore.create.as.acid only
    // changes what a plain CREATE TABLE becomes; neither is read by these calls.
    // Async log4j2 needs the LMAX disruptor jar, which the tarball does not ship (NoClassDefFoundError
    // com/lmax/disruptor/EventTranslatorVararg as soon as our metastore-log4j2.properties is found).
    ['metastore.async.log.enabled', 'false'],
    ['fs.s3a.endpoint', `http://127.0.0.1:${ctx.port('s3')}`],
    ['fs.s3a.endpoint.region', cred(ctx, 's3Region')],
    ['fs.s3a.path.style.access', 'true'],
    ['fs.s3a.connection.ssl.enabled', 'false'],
    ['fs.s3a.access.key', cred(ctx, 's3AccessKey')],
    ['fs.s3a.secret.key', cred(ctx, 's3SecretKey')],
    // S3A's default marker policy deletes the parent directory markers after every write with a
    // bulk DeleteObjects; versitygw (posix) answers ErrDirectoryNotEmpty per key for a non-empty
    // directory and S3A retries with back-off: mkdirs (create_database/create_table) then takes
    // minutes. Keeping markers (Hadoop >= 3.3.1) skips that delete.
    ['fs.s3a.directory.marker.retention', 'keep'],
    // Only the configured keys: no environment, profile or instance-metadata probing.
    ['fs.s3a.aws.credentials.provider', 'org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider'],
    // Iceberg writes s3:// locations (S3FileIO); an HMS that holds Iceberg tables maps the scheme
    // to S3A, as Hadoop-based deployments do, or create_table fails with "No FileSystem for scheme s3".
    ['fs.s3.impl', 'org.apache.hadoop.fs.s3a.S3AFileSystem'],
    ...extra,
  ];
  const body = props.map(([k, v]) => `  <property><name>${k}</name><value>${xmlEscape(v)}</value></property>`).join('\n');
  return `<?xml version="1.0"?>\n<!-- Written by dev/stack/hms.ts on every start; edit temporal-dev.yml instead. -->\n<configuration>\n${body}\n</configuration>\n`;
}

// HiveMetaStore.main initialises log4j2 from metastore-log4j2.properties on the classpath.
const LOG4J2 = `status = WARN
name = hms
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{ISO8601} %5p [%t] %c{2}: %m%n
rootLogger.level = WARN
rootLogger.appenderRef.console.ref = console
logger.hms.name = org.apache.hadoop.hive.metastore.HiveMetaStore
logger.hms.level = INFO
# One INFO line per Thrift call: raise to INFO when debugging a client.
logger.audit.name = org.apache.hadoop.hive.metastore.HiveMetaStore.audit
logger.audit.level = WARN
`;

/** MetastoreConf copies metastore system properties over the XML, and keeps an empty value. */
const JVM_PROPS = ['-Djavax.jdo.option.ConnectionPassword='];

const confDir = (ctx: StackContext, name: string): string => path.join(dataDir(ctx, name), 'conf');
const schemaMarker = (ctx: StackContext, name: string): string => path.join(dataDir(ctx, name), 'schema-initialised');

function classpath(ctx: StackContext, name: string, home: string): string {
  return [confDir(ctx, name), path.join(home, 'lib', '*'), path.join(home, 'ext', '*')].join(path.delimiter);
}

function javaEnv(ctx: StackContext, home: string): NodeJS.ProcessEnv {
  return { METASTORE_HOME: home, AWS_REGION: cred(ctx, 's3Region'), AWS_EC2_METADATA_DISABLED: 'true', ...S3_CHECKSUM_ENV };
}

/**
 * First start: create the schema with schematool. The marker file short-cuts later starts; without
 * it the database itself is asked (VERSION row present → done), and a half-made schema from an
 * interrupted run is dropped and made again.
 */
async function ensureSchema(ctx: StackContext, name: string, home: string): Promise<void> {
  const marker = schemaMarker(ctx, name);
  if (existsSync(marker)) return;
  const s = settings(ctx, name, Settings);
  await ensureDatabase(ctx, s);
  const state = await schemaState(ctx, s);
  if (state.kind === 'partial') {
    ctx.log(
      `${name}: ${s.backend} database '${s.database}' has ${state.tables} tables but no schema VERSION (interrupted init?): re-creating it`,
    );
    await recreateDatabase(ctx, s);
  }
  if (state.kind !== 'ready') {
    const t0 = Date.now();
    ctx.log(`${name}: initialising the metastore schema in ${s.backend} database '${s.database}' ...`);
    const tool = flavorOf(versionOf(ctx, name)).schemaTool;
    await run(
      'java',
      ['-Xmx512m', ...LEAN_JVM, ...JVM_PROPS, '-cp', classpath(ctx, name, home), tool, '-dbType', backendOf(ctx, s).dbType, '-initSchema'],
      {
        env: javaEnv(ctx, home),
        logTo: logFile(ctx, name),
        timeoutMs: 300_000,
      },
    );
    ctx.log(`${name}: schema initialised in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const after = await schemaState(ctx, s);
  if (after.kind !== 'ready')
    throw new StackError('START_FAILED', `${name}: schematool finished but the database has no schema VERSION; see ${logFile(ctx, name)}`);
  await fs.writeFile(marker, `${after.version}\n`);
}

const uriOf = (ctx: StackContext, name: string): string => `thrift://127.0.0.1:${ctx.port(name)}`;

/** What a secured HMS adds (components/hms-krb.ts): site properties, files in its conf dir, JVM flags, its own probe. */
export interface HmsSecurity {
  readonly siteProps: (ctx: StackContext) => ReadonlyArray<[string, string]>;
  readonly confFiles: (ctx: StackContext) => Readonly<Record<string, string>>;
  readonly jvmProps: (ctx: StackContext) => readonly string[];
  readonly probe: (ctx: StackContext, uri: string, timeoutMs: number) => Promise<HmsProbe>;
}

export function hmsComponent(name: string, security?: HmsSecurity): Component {
  return {
    name,
    async install(ctx) {
      await installHms(ctx, name);
    },
    async start(ctx) {
      await assertPortsFree(ctx, name);
      const home = await installHms(ctx, name);
      await fs.mkdir(confDir(ctx, name), { recursive: true });
      await fs.writeFile(path.join(confDir(ctx, name), 'metastore-site.xml'), metastoreSiteXml(ctx, name, security?.siteProps(ctx)));
      for (const [file, text] of Object.entries(security?.confFiles(ctx) ?? {}))
        await fs.writeFile(path.join(confDir(ctx, name), file), text);
      await fs.writeFile(path.join(confDir(ctx, name), 'metastore-log4j2.properties'), LOG4J2);
      await ensureSchema(ctx, name, home);
      const heap = settings(ctx, name, Settings).heap;
      const pid = await spawnDaemon(
        ctx,
        name,
        'java',
        [
          `-Xmx${heap}`,
          ...LEAN_JVM,
          ...JVM_PROPS,
          ...(security?.jvmProps(ctx) ?? []),
          '-cp',
          classpath(ctx, name, home),
          MAIN_CLASS,
          '-p',
          String(ctx.port(name)),
        ],
        {
          env: javaEnv(ctx, home),
          cwd: dataDir(ctx, name),
        },
      );
      const t0 = Date.now();
      await waitFor(ctx, name, async () => (await this.health(ctx)).ok, START_TIMEOUT_MS, pid);
      ctx.log(`${name}: Thrift answering after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    },
    async health(ctx) {
      try {
        const p = await (security ? security.probe(ctx, uriOf(ctx, name), 5000) : probeHms(uriOf(ctx, name), 5000));
        const v = p.version ?? versionOf(ctx, name);
        return {
          ok: true,
          detail: `Hive Metastore ${v}, ${p.databases} database(s), ${p.latencyMs} ms`,
          ...(p.version ? { serverVersion: p.version } : {}),
        };
      } catch (e) {
        return { ok: false, detail: (e as Error).message };
      }
    },
    async stop(ctx) {
      // The framework stops dependents first, so the backing database is still up: the shutdown
      // hook then returns promptly (with the DB gone it hangs ~45 s).
      await stopPid(ctx, name, 60_000);
    },
    endpoints(ctx) {
      return { thrift: uriOf(ctx, name) };
    },
  };
}
