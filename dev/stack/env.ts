// Connection settings of a running stack, as environment variables (for tests, scripts and the
// verifier) and as a `migrate` config file (for the CLI). One place, so they cannot disagree.
import path from 'node:path';
import type { StackContext } from './types';
import { krbStackEnv } from './krb';
import { temporalTlsEnv } from './temporal-tls-certs';
import { dataDir } from './util';

export function cred(ctx: StackContext, key: string): string {
  const v = ctx.manifest.credentials[key];
  if (v === undefined) throw new Error(`temporal-dev.yml credentials.${key} missing`);
  return v;
}

/** Where a component installs in the cache (same rule as cachedInstall). */
export function installDir(ctx: StackContext, component: string): string {
  const c = ctx.manifest.components[component];
  return path.join(ctx.cacheDir, `${component}-${c?.version ?? 'unknown'}`);
}

/**
 * For every AWS SDK client the stack starts or the tests run (pyarrow/PyIceberg, Spark's and the REST
 * catalog's S3FileIO, the Hive Metastore): send checksums only where S3 requires them. With the SDKs'
 * default (WHEN_SUPPORTED) aws-sdk-cpp sends each upload part as aws-chunked inside
 * `Transfer-Encoding: chunked` with a checksum trailer; versitygw 1.8.0 answers before the final
 * `0\r\n\r\n` chunk arrives and then parses those five bytes as the next request on the kept-alive
 * connection (400, connection closed), so the following CompleteMultipartUpload fails. With
 * WHEN_REQUIRED the part goes with a Content-Length and the gateway can keep connections alive
 * (components/s3.ts). Our own S3 client sets the same in code (adapters/storage/s3-store.ts).
 */
export const S3_CHECKSUM_ENV = {
  AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
  AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
} as const;

/**
 * The verifier's fork server socket (dev/verifier/pyfork_server.py), in the component's state
 * directory; none when that path is too long for a Unix socket (the scripts then run in processes of
 * their own, as without the server).
 */
export function pyforkSocket(ctx: StackContext): string | undefined {
  const p = path.join(dataDir(ctx, 'verifier'), 'pyfork.sock');
  return Buffer.byteLength(p) < 100 ? p : undefined;
}

export function stackEnv(ctx: StackContext): Record<string, string> {
  const p = (c: string, n?: string): number => ctx.port(c, n);
  return {
    HIM_STATE_DIR: ctx.stateDir,
    HIM_CACHE_DIR: ctx.cacheDir,
    AWS_ACCESS_KEY_ID: cred(ctx, 's3AccessKey'),
    AWS_SECRET_ACCESS_KEY: cred(ctx, 's3SecretKey'),
    AWS_REGION: cred(ctx, 's3Region'),
    AWS_EC2_METADATA_DISABLED: 'true',
    ...S3_CHECKSUM_ENV,
    // @aws-sdk/client-s3 is pinned (docs/design/stack-components.md §3); its Node-22 notice is known and says nothing new.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    HIM_S3_ENDPOINT: `http://127.0.0.1:${p('s3')}`,
    HIM_S3_STS_ENDPOINT: `http://127.0.0.1:${p('s3-sts')}`,
    HIM_S3_STS_IDENTITY: path.join(ctx.stateDir, 'data', 's3-sts', 'identity.json'),
    HIM_POSTGRES_URL: `postgres://postgres@127.0.0.1:${p('postgres')}/migrator`,
    HIM_HMS_POSTGRES_URL: `postgres://postgres@127.0.0.1:${p('postgres')}/hms`,
    HIM_MARIADB_URL: `mysql://root@127.0.0.1:${p('mariadb')}/hms`,
    HIM_TEMPORAL_ADDRESS: `127.0.0.1:${p('temporal')}`,
    HIM_TEMPORAL_UI: `http://127.0.0.1:${p('temporal', 'ui')}`,
    HIM_TEMPORAL_BIN: path.join(installDir(ctx, 'temporal'), 'bin', 'temporal'),
    ...temporalTlsEnv(ctx),
    HIM_ICEBERG_REST_URI: `http://127.0.0.1:${p('iceberg-rest')}`,
    HIM_HMS_PG_URI: `thrift://127.0.0.1:${p('hms-pg')}`,
    HIM_HMS_MARIADB_URI: `thrift://127.0.0.1:${p('hms-mariadb')}`,
    HIM_HMS3_PG_URI: `thrift://127.0.0.1:${p('hms3-pg')}`,
    ...krbStackEnv(ctx),
    HIM_TOXIPROXY_URL: `http://127.0.0.1:${p('toxiproxy')}`,
    HIM_OAUTH_URL: `http://127.0.0.1:${p('oauth')}`,
    HIM_CATALOG_GATEWAY_URI: `http://127.0.0.1:${p('catalog-gateway')}`,
    HIM_CATALOG_GATEWAY_SIGV4_URI: `http://127.0.0.1:${p('catalog-gateway', 'sigv4')}`,
    HIM_TRINO_URI: `http://127.0.0.1:${p('trino')}`,
    HIM_VERIFIER_PYTHON: path.join(installDir(ctx, 'verifier'), 'venv', 'bin', 'python'),
    // Its fork server: the verifier scripts without their ~0.6 s of imports (dev/seed/python.ts verifierCommand).
    ...(pyforkSocket(ctx) ? { HIM_VERIFIER_PYFORK: pyforkSocket(ctx) as string } : {}),
    HIM_CHROMIUM: String(ctx.manifest.components['browser']?.settings['binary'] ?? 'chromium-headless-shell'),
    HIM_SPARK_JARS_DIR: path.join(installDir(ctx, 'verifier'), 'jars'),
    // The rewrite job's extra jars (S3A): with HIM_SPARK_JARS_DIR, the stack's spark-submit classpath.
    HIM_SPARK_REWRITE_JARS_DIR: path.join(installDir(ctx, 'verifier'), 'rewrite-jars'),
    // The long-lived Spark (component spark-verifier): the verifier scripts send it their Spark reads and
    // run in their own process when it does not answer (dev/verifier/spark_client.py).
    HIM_SPARK_VERIFIER_URL: `http://127.0.0.1:${p('spark-verifier')}`,
  };
}

/** A `migrate` config (YAML text) pointing every endpoint at this stack. */
export function migrateConfigYaml(ctx: StackContext): string {
  const e = stackEnv(ctx);
  return `# Written by 'npm run stack -- up': points migrate at the local stack.
# S3 credentials come from the environment: eval "$(npm run -s stack -- env)".
hms:
  thrift:
    uri: ${e.HIM_HMS_PG_URI}
catalog:
  name: local-rest
  type: rest
  uri: ${e.HIM_ICEBERG_REST_URI}
  warehouse: s3://warehouse/rest/
storage:
  s3:
    endpoint: ${e.HIM_S3_ENDPOINT}
    region: ${e.AWS_REGION}
    forcePathStyle: true
    probeBucket: warehouse
temporal:
  address: ${e.HIM_TEMPORAL_ADDRESS}
  namespace: default
  uiUrl: ${e.HIM_TEMPORAL_UI}
state:
  url: ${e.HIM_POSTGRES_URL}
# The audit chain's head is anchored outside the state DB (docs/audit.md): one anchor location per state DB.
audit:
  anchorLocation: s3://results/audit-anchors/
`;
}
