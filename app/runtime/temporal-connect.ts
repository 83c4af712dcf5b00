// How every part of the tool reaches Temporal (CLI client, worker, schedules, doctor): one resolution
// of the connection settings from our config merged with Temporal's environment configuration
// (@temporalio/envconfig: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*,
// and a profile of the TOML client config file). Precedence per value: config, then environment,
// then profile, then the default; each value keeps where it came from (doctor prints it). Then the
// pre-checks (TCP, and the TLS handshake with the same material) and the error translation of a
// failed connect. The API key and key material stay in memory: never logged, never in an error.
import { existsSync } from 'node:fs';
import { readBoundedFile } from '../../adapters/input/bounded-file';
import path from 'node:path';
import { loadClientConfigProfile } from '@temporalio/envconfig';
import type { ClientConfigProfile, ConfigDataSource } from '@temporalio/envconfig';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, isMigrationError, MigrationError } from '../../core/errors';
import { tcpConnect } from '../../adapters/temporal/tcp';
import { tlsHandshake } from '../../adapters/temporal/tls';
import type { TlsHandshake, TlsMaterial } from '../../adapters/temporal/tls';

/** A resolved value and where it came from: `config temporal.x`, `env NAME`, `profile 'p' in FILE`, `default`. */
export interface Sourced<T> {
  readonly value: T;
  readonly source: string;
}

export interface TemporalTlsSettings {
  /** Why TLS is on: the config's `temporal.tls`, TEMPORAL_TLS, a profile's `tls` table, or an API key. */
  readonly enabledBy: string;
  readonly serverCa?: Sourced<Buffer>;
  readonly serverName?: Sourced<string>;
  readonly clientCert?: Sourced<Buffer>;
  readonly clientKey?: Sourced<Buffer>;
}

export interface TemporalSettings {
  readonly address: Sourced<string>;
  readonly namespace: Sourced<string>;
  readonly taskQueue: string;
  readonly uiUrl: string | undefined;
  /** undefined: plain TCP. */
  readonly tls: TemporalTlsSettings | undefined;
  /** The API key (secret: print `source` only). */
  readonly apiKey: Sourced<string> | undefined;
  /** Extra gRPC headers from TEMPORAL_GRPC_META_* or the profile's `grpc_meta`. */
  readonly grpcMeta: Readonly<Record<string, string>> | undefined;
}

/** The environment variable envconfig reads for each value (for the `source` of what came from there). */
const ENV_NAMES = {
  address: 'TEMPORAL_ADDRESS',
  namespace: 'TEMPORAL_NAMESPACE',
  apiKey: 'TEMPORAL_API_KEY',
  serverName: 'TEMPORAL_TLS_SERVER_NAME',
  serverCa: 'TEMPORAL_TLS_SERVER_CA_CERT',
  clientCert: 'TEMPORAL_TLS_CLIENT_CERT',
  clientKey: 'TEMPORAL_TLS_CLIENT_KEY',
} as const;

const invalid = (p: string, message: string, cause?: unknown): MigrationError =>
  new MigrationError(ErrorCode.CONFIG_INVALID, message, { path: p }, cause === undefined ? {} : { cause });

/** The TOML file envconfig reads (for messages): the config's, TEMPORAL_CONFIG_FILE, or the default path. */
function profileFile(t: NonNullable<MigrateConfig['temporal']>, env: NodeJS.ProcessEnv): string | undefined {
  if (t.configFile !== undefined) return t.configFile;
  if (env.TEMPORAL_CONFIG_FILE !== undefined) return env.TEMPORAL_CONFIG_FILE;
  const base = env.XDG_CONFIG_HOME || (env.HOME ? path.join(env.HOME, '.config') : undefined);
  return base === undefined ? undefined : path.join(base, 'temporalio', 'temporal.toml');
}

interface Layers {
  readonly fromEnv: ClientConfigProfile;
  readonly fromFile: ClientConfigProfile;
  readonly fileLabel: string;
}

/** The environment's and the profile file's values, separately (so each value can say where it came from). */
function loadLayers(t: NonNullable<MigrateConfig['temporal']>, env: NodeJS.ProcessEnv): Layers {
  const vars = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const file = profileFile(t, env);
  const profile = t.profile ?? env.TEMPORAL_PROFILE;
  const fileLabel = `profile '${profile ?? 'default'}' in ${file ?? '(no config file)'}`;
  if (t.configFile !== undefined && !existsSync(t.configFile))
    throw invalid('temporal.configFile', `temporal.configFile ${t.configFile} does not exist`);
  let fromFile: ClientConfigProfile;
  try {
    fromFile = loadClientConfigProfile({
      profile,
      ...(t.configFile !== undefined ? { configSource: { path: t.configFile } } : {}),
      disableEnv: true,
      overrideEnvVars: vars,
    });
  } catch (e) {
    throw invalid('temporal.profile', `Temporal client config ${fileLabel}: ${(e as Error).message}`, e);
  }
  const fromEnv = loadClientConfigProfile({ disableFile: true, overrideEnvVars: vars });
  return { fromEnv, fromFile, fileLabel };
}

/** The first of config, environment, profile that has the value. */
function pick<T>(candidates: readonly [T | undefined, string][]): Sourced<T> | undefined {
  for (const [value, source] of candidates) if (value !== undefined) return { value, source };
  return undefined;
}

/** A certificate or key file: a regular file of at most 1 MiB (adapters/input/bounded-file.ts). */
const readPemFile = (file: string): Buffer => readBoundedFile(file, { what: 'file', code: ErrorCode.CONFIG_INVALID, maxBytes: 1 << 20 });

/** Bytes of a file named in our config, or a CONFIG_INVALID naming the key. */
function readConfigFile(key: string, file: string): Sourced<Buffer> {
  try {
    return { value: readPemFile(file), source: `config temporal.tls.${key} (${file})` };
  } catch (e) {
    throw invalid(`temporal.tls.${key}`, `temporal.tls.${key}: ${(e as Error).message}`, e);
  }
}

/** Bytes of an envconfig data source (a path or inline PEM), labelled with where it came from. */
function readSource(src: ConfigDataSource | undefined, label: (kind: 'path' | 'data') => string): Sourced<Buffer> | undefined {
  if (src === undefined) return undefined;
  if ('data' in src) return { value: Buffer.from(src.data), source: label('data') };
  try {
    return { value: readPemFile(src.path), source: `${label('path')} (${src.path})` };
  } catch (e) {
    throw invalid('temporal.tls', `${label('path')}: ${(e as Error).message}`, e);
  }
}

type PemKey = 'serverCa' | 'clientCert' | 'clientKey';
const CONFIG_KEY: Record<PemKey, 'serverCaFile' | 'clientCertFile' | 'clientKeyFile'> = {
  serverCa: 'serverCaFile',
  clientCert: 'clientCertFile',
  clientKey: 'clientKeyFile',
};
const PROFILE_KEY: Record<PemKey, 'serverCACert' | 'clientCert' | 'clientKey'> = {
  serverCa: 'serverCACert',
  clientCert: 'clientCert',
  clientKey: 'clientKey',
};

function pem(k: PemKey, t: NonNullable<MigrateConfig['temporal']>, l: Layers): Sourced<Buffer> | undefined {
  const file = t.tls?.[CONFIG_KEY[k]];
  if (file !== undefined) return readConfigFile(CONFIG_KEY[k], file);
  const tomlKey = k === 'serverCa' ? 'server_ca_cert' : k === 'clientCert' ? 'client_cert' : 'client_key';
  return (
    readSource(l.fromEnv.tls?.[PROFILE_KEY[k]], (kind) => `env ${ENV_NAMES[k]}_${kind.toUpperCase()}`) ??
    readSource(l.fromFile.tls?.[PROFILE_KEY[k]], (kind) => `${l.fileLabel} tls.${tomlKey}_${kind}`)
  );
}

/** Whether TLS is on, and why: config section > TEMPORAL_TLS > the profile's tls table > an API key (as envconfig does). */
function tlsEnabledBy(t: NonNullable<MigrateConfig['temporal']>, l: Layers, apiKey: boolean): string | undefined {
  if (t.tls !== undefined) return 'config temporal.tls';
  const envTls = l.fromEnv.tls;
  if (envTls?.disabled !== undefined) return envTls.disabled ? undefined : 'env TEMPORAL_TLS';
  if (envTls !== undefined) return 'env TEMPORAL_TLS_*';
  if (l.fromFile.tls !== undefined) return l.fromFile.tls.disabled === true ? undefined : `${l.fileLabel} tls`;
  return apiKey ? 'an API key (always over TLS)' : undefined;
}

function resolveTls(t: NonNullable<MigrateConfig['temporal']>, l: Layers, apiKey: boolean): TemporalTlsSettings | undefined {
  const enabledBy = tlsEnabledBy(t, l, apiKey);
  if (enabledBy === undefined) return undefined;
  const serverName = pick<string>([
    [t.tls?.serverName, 'config temporal.tls.serverName'],
    [l.fromEnv.tls?.serverName, `env ${ENV_NAMES.serverName}`],
    [l.fromFile.tls?.serverName, `${l.fileLabel} tls.server_name`],
  ]);
  const [serverCa, clientCert, clientKey] = (['serverCa', 'clientCert', 'clientKey'] as const).map((k) => pem(k, t, l));
  if ((clientCert === undefined) !== (clientKey === undefined))
    throw invalid('temporal.tls', `a client certificate needs its key and the other way round (have ${(clientCert ?? clientKey)?.source})`);
  return { enabledBy, serverCa, serverName, clientCert, clientKey };
}

function resolveApiKey(t: NonNullable<MigrateConfig['temporal']>, l: Layers, env: NodeJS.ProcessEnv): Sourced<string> | undefined {
  if (t.apiKeyEnv !== undefined) {
    const v = env[t.apiKeyEnv];
    if (v === undefined || v === '')
      throw invalid('temporal.apiKeyEnv', `temporal.apiKeyEnv names ${t.apiKeyEnv}, which is not set (or empty) in this environment`);
    return { value: v, source: `env ${t.apiKeyEnv} (config temporal.apiKeyEnv)` };
  }
  return pick<string>([
    [l.fromEnv.apiKey || undefined, `env ${ENV_NAMES.apiKey}`],
    [l.fromFile.apiKey || undefined, `${l.fileLabel} api_key`],
  ]);
}

/** The connection settings of `config.temporal` merged with Temporal's environment configuration. */
export function resolveTemporal(config: MigrateConfig, env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const t = config.temporal;
  if (t === undefined)
    throw invalid('temporal', 'temporal is not configured (add a temporal: section to migrate.yaml; see migrate --help)');
  const l = loadLayers(t, env);
  const address = pick<string>([
    [t.address, 'config temporal.address'],
    [l.fromEnv.address, `env ${ENV_NAMES.address}`],
    [l.fromFile.address, `${l.fileLabel} address`],
  ]);
  if (address === undefined || !/^[^:/]+:\d+$/.test(address.value))
    throw invalid(
      'temporal.address',
      address === undefined
        ? 'no Temporal address: set temporal.address, TEMPORAL_ADDRESS or a profile address'
        : `temporal address from ${address.source}: expected host:port, got '${address.value}'`,
    );
  const namespace = pick<string>([
    [t.namespace, 'config temporal.namespace'],
    [l.fromEnv.namespace, `env ${ENV_NAMES.namespace}`],
    [l.fromFile.namespace, `${l.fileLabel} namespace`],
    ['default', 'default'],
  ]) as Sourced<string>;
  const apiKey = resolveApiKey(t, l, env);
  const grpcMeta = l.fromEnv.grpcMeta ?? l.fromFile.grpcMeta;
  return { address, namespace, taskQueue: t.taskQueue, uiUrl: t.uiUrl, tls: resolveTls(t, l, apiKey !== undefined), apiKey, grpcMeta };
}

/** What the TLS pre-check and the SDKs need. */
export function tlsMaterial(s: TemporalSettings): TlsMaterial | undefined {
  const t = s.tls;
  if (t === undefined) return undefined;
  return { serverCa: t.serverCa?.value, serverName: t.serverName?.value, clientCert: t.clientCert?.value, clientKey: t.clientKey?.value };
}

/** Options for `Connection.connect` and `NativeConnection.connect` (the same shape in both SDK packages). */
export function connectionOptions(s: TemporalSettings): {
  address: string;
  tls?: { serverNameOverride?: string; serverRootCACertificate?: Buffer; clientCertPair?: { crt: Buffer; key: Buffer } } | true;
  apiKey?: string;
  metadata?: Record<string, string>;
} {
  const m = tlsMaterial(s);
  const pair = m?.clientCert !== undefined && m.clientKey !== undefined ? { crt: m.clientCert, key: m.clientKey } : undefined;
  const tls =
    m === undefined
      ? undefined
      : {
          ...(m.serverName !== undefined ? { serverNameOverride: m.serverName } : {}),
          ...(m.serverCa !== undefined ? { serverRootCACertificate: m.serverCa } : {}),
          ...(pair !== undefined ? { clientCertPair: pair } : {}),
        };
  return {
    address: s.address.value,
    ...(tls !== undefined ? { tls } : {}),
    ...(s.apiKey !== undefined ? { apiKey: s.apiKey.value } : {}),
    ...(s.grpcMeta !== undefined ? { metadata: { ...s.grpcMeta } } : {}),
  };
}

/**
 * TCP, then (with TLS) the handshake the SDK is about to make: a refused port, an untrusted server
 * or a refused client certificate fails here in milliseconds with its own code, not after the
 * gRPC connect's 10 s deadline with "Failed to connect before the deadline".
 */
export async function preCheckTemporal(s: TemporalSettings, timeoutMs: number): Promise<TlsHandshake | undefined> {
  try {
    await tcpConnect(s.address.value, timeoutMs);
  } catch (e) {
    throw new MigrationError(
      ErrorCode.TEMPORAL_UNREACHABLE,
      `cannot reach Temporal at ${s.address.value}: ${(e as Error).message}`,
      { address: s.address.value },
      { cause: e },
    );
  }
  const m = tlsMaterial(s);
  return m === undefined ? undefined : tlsHandshake(s.address.value, m, timeoutMs);
}

/** gRPC status codes (grpc/status.proto) that mean our credentials were refused. */
const UNAUTHENTICATED = 16;
const PERMISSION_DENIED = 7;
/** The worker's NativeConnection (Rust core, tonic) reports the same two statuses only by their descriptions. */
const NATIVE_REFUSED = /does not have valid authentication credentials|does not have permission to execute/;

/** A failed connect or call as a coded error: refused credentials, else unreachable. Coded errors pass through. */
export function temporalConnectError(s: TemporalSettings, e: unknown, what = 'cannot reach Temporal at'): MigrationError {
  if (isMigrationError(e)) return e;
  // Connection.connect wraps the gRPC error of its first call ("Failed to connect to Temporal server"): look underneath.
  const grpc = (e as { cause?: unknown }).cause ?? e;
  const code = (grpc as { code?: unknown }).code ?? (e as { code?: unknown }).code;
  const ctx = { address: s.address.value, namespace: s.namespace.value };
  if (code === UNAUTHENTICATED || code === PERMISSION_DENIED || NATIVE_REFUSED.test((e as Error).message ?? '')) {
    const how =
      s.apiKey !== undefined ? `the API key from ${s.apiKey.source}` : s.tls?.clientCert ? 'our client certificate' : 'no credentials';
    return new MigrationError(
      ErrorCode.TEMPORAL_AUTH_FAILED,
      `Temporal ${s.address.value} (namespace ${s.namespace.value}) refused ${how}: ${(grpc as Error).message}`,
      ctx,
      { cause: e },
    );
  }
  return new MigrationError(ErrorCode.TEMPORAL_UNREACHABLE, `${what} ${s.address.value}: ${(e as Error).message}`, ctx, { cause: e });
}
