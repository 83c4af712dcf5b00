// The application layer's assembly of the outside world: from the one resolved config, the HMS
// reader (Thrift, or the backing database), catalog, object stores, state store and Temporal
// connection every use case (app/*) works with. Credentials come from the environment (AWS_*,
// the catalog token or OAuth2 client variables named in config: app/runtime/catalog-auth.ts) and never
// leave this process. What a command may not need is imported when it is opened (the Temporal SDK
// and its connection checks, the HMS backing-database readers, the JDBC catalog, the Postgres state
// store): `migrate plan` never loads the Temporal SDK, and starts with ~40 % less CPU (docs/timings.md).
import type { S3Client } from '@aws-sdk/client-s3';
import type { Client, Connection } from '@temporalio/client';
import type { IcebergCatalog } from '../../core/catalog/catalog';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { ObjectStore } from '../../core/storage/object-store';
import type { HiveIcebergCatalog } from '../../adapters/catalog/hive';
import type { RestCatalog } from '../../adapters/catalog/rest';
import type { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import type { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { redactUrl } from '../../adapters/hms/db/session';
import type { HmsReader } from '../../core/hive/model';
import type { StateStore } from '../../core/state/store';
import type { S3RangedGet } from '../../adapters/storage/object-read/s3-ranged-get';
import { resolveS3Region } from '../../adapters/storage/s3-region';
import type { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { auditStateOptions } from './audit-setup';
import { restAuthFor } from './catalog-auth';

export { toolVersion } from './version';

function need<T>(v: T | undefined, what: string): T {
  if (v === undefined)
    throw new MigrationError(ErrorCode.CONFIG_INVALID, `${what} is not configured (add it to migrate.yaml; see migrate --help)`, {
      path: what,
    });
  return v;
}

/* eslint-disable @typescript-eslint/no-require-imports -- the loaders below, each run when first needed */
// The S3 SDK, the Thrift client and the catalogs load when a command first opens them, not when it
// imports this module: `migrate status`, `plans`, `approve` and the other Temporal-only commands
// never load them (docs/timings.md). require() keeps the open* calls synchronous; the types come
// from the type-only imports above.
const s3Sdk = (): { S3Client: typeof S3Client } => require('@aws-sdk/client-s3');
const thriftReader = (): { ThriftHmsReader: typeof ThriftHmsReader } => require('../../adapters/hms/thrift/reader');
const thriftWriter = (): { ThriftHmsWriter: typeof ThriftHmsWriter } => require('../../adapters/hms/thrift/writer');
const hiveCatalog = (): { HiveIcebergCatalog: typeof HiveIcebergCatalog } => require('../../adapters/catalog/hive');
const restCatalog = (): { RestCatalog: typeof RestCatalog } => require('../../adapters/catalog/rest');
const rangedGets = (): { S3RangedGet: typeof S3RangedGet } => require('../../adapters/storage/object-read/s3-ranged-get');
const routingStore = (): { RoutingObjectStore: typeof RoutingObjectStore } => require('../../adapters/storage/routing-store');
/* eslint-enable @typescript-eslint/no-require-imports */

/** The product's default Thrift call rate (protects a production HMS; `inventory --calls-per-second`). */
export const DEFAULT_CALLS_PER_SECOND = 200;

export function openHmsReader(config: MigrateConfig, callsPerSecond = DEFAULT_CALLS_PER_SECOND): ThriftHmsReader {
  const t = need(config.hms, 'hms').thrift;
  const kerberos = t.kerberos === undefined ? {} : { kerberos: t.kerberos };
  return new (thriftReader().ThriftHmsReader)({
    uri: t.uri,
    connectTimeoutMs: t.connectTimeoutMs,
    callTimeoutMs: t.callTimeoutMs,
    callsPerSecond,
    ...kerberos,
  });
}

export type HmsSource = 'thrift' | 'db';

export interface OpenedReader {
  readonly reader: HmsReader;
  readonly source: HmsSource;
  /** Where it reads, credentials redacted (plan header, inventory report). */
  readonly endpoint: string;
}

/**
 * A reader of the whole warehouse for plan, assess and inventory: the HMS backing database when
 * `source` is 'db' (or, with no source asked for, whenever `hms.db` is configured: one snapshot,
 * batched SQL, no RPC per table), else Thrift. Both give the same model (the parity tests).
 */
export async function openWarehouseReader(
  config: MigrateConfig,
  o: { source?: HmsSource; callsPerSecond?: number } = {},
): Promise<OpenedReader> {
  const hms = config.hms;
  if (hms === undefined)
    throw new MigrationError(ErrorCode.USAGE, 'this command needs an HMS: set hms.thrift.uri in the config (see migrate.example.yaml)');
  const source = o.source ?? (hms.db !== undefined ? 'db' : 'thrift');
  if (source === 'thrift') return { reader: openHmsReader(config, o.callsPerSecond), source, endpoint: hms.thrift.uri };
  const url = hms.db?.url;
  if (url === undefined)
    throw new MigrationError(
      ErrorCode.USAGE,
      '--source db needs hms.db.url in the config (postgres://… or mysql://… of the HMS backing database)',
    );
  const opts = {
    connectTimeoutMs: hms.thrift.connectTimeoutMs,
    queryTimeoutMs: hms.thrift.callTimeoutMs,
    parallel: hms.db?.connections ?? 2,
  };
  const reader = /^postgres(ql)?:/.test(url)
    ? await (await import('../../adapters/hms/db/postgres')).PostgresHmsReader.open(url, opts)
    : await (await import('../../adapters/hms/db/mysql')).MysqlHmsReader.open(url.replace(/^mariadb:/, 'mysql:'), opts);
  return { reader, source, endpoint: redactUrl(url) };
}

/**
 * The configured catalog. A hive catalog opens its own HMS connections (closed by `close()`) and
 * reads metadata.json through `stores` (given, or opened for it).
 */
export async function openCatalog(config: MigrateConfig, env: NodeJS.ProcessEnv = process.env, stores?: Stores): Promise<IcebergCatalog> {
  const c = need(config.catalog, 'catalog');
  if (c.type === 'hive') {
    const t = config.hms?.thrift;
    // A hive catalog authenticates as the source metastore does (hms.thrift.kerberos; `_HOST` → its own host).
    const kerberos = t?.kerberos === undefined ? {} : { kerberos: t.kerberos };
    const opts = { uri: c.uri, connectTimeoutMs: t?.connectTimeoutMs, callTimeoutMs: t?.callTimeoutMs, ...kerberos };
    const reader = new (thriftReader().ThriftHmsReader)(opts);
    const writer = new (thriftWriter().ThriftHmsWriter)(reader.caller);
    const own = stores === undefined ? openStores(config, env) : undefined;
    const onClose = async (): Promise<void> => {
      await reader.close(); // the writer shares its connections
      own?.close();
    };
    return new (hiveCatalog().HiveIcebergCatalog)({
      name: c.name,
      reader,
      writer,
      store: (stores ?? (own as Stores)).storeFor([]),
      mode: c.mode ?? 'register',
      onClose,
    });
  }
  if (c.type === 'jdbc') {
    const own = stores === undefined ? openStores(config, env) : undefined;
    const { JdbcIcebergCatalog } = await import('../../adapters/catalog/jdbc');
    const catalog = await JdbcIcebergCatalog.connect({ url: c.uri, catalogName: c.name, store: (stores ?? (own as Stores)).storeFor([]) });
    return own === undefined ? catalog : withClose(catalog, () => own.close());
  }
  // catalog.auth (bearer, oauth2, sigv4) or catalog.tokenEnv: app/runtime/catalog-auth.ts.
  return restCatalog().RestCatalog.connect({ name: c.name, uri: c.uri, warehouse: c.warehouse, auth: restAuthFor(c, env) });
}

/** `catalog` whose close() also runs `after` (stores opened for it alone). */
function withClose(catalog: IcebergCatalog, after: () => void): IcebergCatalog {
  const close = catalog.close?.bind(catalog);
  return Object.assign(catalog, {
    close: async (): Promise<void> => {
      try {
        await close?.();
      } finally {
        after();
      }
    },
  });
}

export interface Stores {
  readonly storeFor: (metadataPrefixes: readonly string[]) => ObjectStore;
  close(): void;
}

/** One S3 client shared by per-table stores (each guarded to its own metadata prefix). */
export function openStores(config: MigrateConfig, env: NodeJS.ProcessEnv = process.env): Stores {
  const s3 = config.storage?.s3;
  const region = resolveS3Region(s3?.region, env).region;
  const pathStyle = s3?.forcePathStyle ?? false;
  const timeoutMs = s3?.requestTimeoutMs ?? 60_000;
  // Every request has a deadline: a stalled connection fails its step (retried by Temporal)
  // instead of holding it while the activity heartbeats.
  const client = new (s3Sdk().S3Client)({
    endpoint: s3?.endpoint,
    region,
    forcePathStyle: pathStyle,
    requestHandler: { requestTimeout: timeoutMs, connectionTimeout: 10_000 },
  });
  // One keep-alive socket pool for every table's footer reads: a pool per store leaked its idle
  // sockets (a worker crashed out of file descriptors after ~500 tables against a keep-alive S3).
  // Built the same way for AWS (no endpoint) and custom endpoints: the benchmarked path is AWS's.
  const rangedGet = new (rangedGets().S3RangedGet)(client, region, s3?.endpoint, pathStyle, 64, timeoutMs);
  return {
    storeFor: (metadataPrefixes) =>
      new (routingStore().RoutingObjectStore)({
        metadataPrefixes,
        s3: {
          client,
          endpoint: s3?.endpoint,
          region,
          forcePathStyle: pathStyle,
          rangedGet,
        },
      }),
    close: () => {
      rangedGet.destroy();
      client.destroy();
    },
  };
}

/** The state store, with the audit chain key and head anchor of `config.audit` (docs/audit.md). */
export async function openState(config: MigrateConfig, env: NodeJS.ProcessEnv = process.env): Promise<StateStore> {
  const url = need(config.state, 'state').url;
  const options = auditStateOptions(config, env, openStores);
  const { PostgresStateStore } = await import('../../adapters/state/postgres');
  return PostgresStateStore.open(url, options);
}

export interface TemporalHandle {
  readonly client: Client;
  readonly connection: Connection;
  readonly taskQueue: string;
  readonly namespace: string;
  readonly uiUrl: string | undefined;
  /** Run `fn` with a deadline on every call it makes (a blackholed connection must not hang). */
  deadline<T>(ms: number, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function openTemporal(config: MigrateConfig, env: NodeJS.ProcessEnv = process.env): Promise<TemporalHandle> {
  // Config merged with TEMPORAL_* and the profile file; TCP and TLS pre-checks fail fast with their
  // cause and code (app/runtime/temporal-connect.ts), before the gRPC connect's 10 s deadline.
  const { connectionOptions, preCheckTemporal, resolveTemporal, temporalConnectError } = await import('./temporal-connect');
  const { Client, Connection } = await import('@temporalio/client');
  const s = resolveTemporal(config, env);
  let connection: Connection;
  try {
    await preCheckTemporal(s, 10_000);
    connection = await Connection.connect({ ...connectionOptions(s), connectTimeout: '10s' });
  } catch (e) {
    throw temporalConnectError(s, e);
  }
  const client = new Client({ connection, namespace: s.namespace.value });
  return {
    client,
    connection,
    taskQueue: s.taskQueue,
    namespace: s.namespace.value,
    uiUrl: s.uiUrl,
    deadline: (ms, fn) => connection.withDeadline(Date.now() + ms, fn),
    close: () => connection.close(),
  };
}
