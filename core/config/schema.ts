// The one configuration schema (YAML file + environment + flags merge into this before any work
// starts; docs/architecture.md "One config schema"). Pure; no I/O. Secrets are not part of it: S3 keys
// come from the standard AWS environment, catalog tokens from the variable named here.
import { z } from 'zod';
import { readersSchema } from './readers';
import { rewriteSchema } from './rewrite';
import { catalogAuthSchema, uriSecret } from './catalog-auth';
import { loggingSchema, metricsSchema } from './observe';

const thriftUri = z.string().regex(/^thrift:\/\/[^:/]+:\d+$/, 'expected thrift://host:port');
const httpUrl = z.string().regex(/^https?:\/\/[^/]+/, 'expected http(s)://host[:port][/path]');
const timeoutMs = z.number().int().min(100).max(600_000);
/** Hadoop's names for the SASL quality of protection (hadoop.rpc.protection; RFC 4752 §3.1 layers). */
const saslProtection = z.enum(['authentication', 'integrity', 'privacy']);

export const hmsSchema = z
  .object({
    /** The metastore's Thrift endpoint: plain Thrift, or SASL/Kerberos with `kerberos`. */
    thrift: z
      .object({
        /** thrift://host:port of the Hive Metastore. */
        uri: thriftUri,
        /** Deadline of a TCP connect + handshake, milliseconds. */
        connectTimeoutMs: timeoutMs.default(10_000),
        /** Deadline of one Thrift call, milliseconds (large partition lists take longest). */
        callTimeoutMs: timeoutMs.default(60_000),
        /**
         * Kerberos (SASL/GSSAPI) for a metastore with hive.metastore.sasl.enabled=true; also used by a
         * hive catalog's Thrift connections. Names and paths only: never key material. The realm's KDC
         * comes from the usual krb5.conf (KRB5_CONFIG). docs/deploying.md.
         */
        kerberos: z
          .object({
            /** The metastore's principal, its hive.metastore.kerberos.principal (e.g. hive/_HOST@EXAMPLE.COM): `_HOST` becomes the host of the uri, lower-cased. */
            servicePrincipal: z.string().regex(/^[^/@\s]+\/[^/@\s]+(@[^/@\s]+)?$/, 'expected service/host@REALM'),
            /** The principal to authenticate as, e.g. migrator@EXAMPLE.COM (default: the credential cache's, or the keytab's first). */
            clientPrincipal: z
              .string()
              .regex(/^[^@\s]+(@[^/@\s]+)?$/, 'expected name[/instance]@REALM')
              .optional(),
            /** Path of a keytab holding clientPrincipal: tickets come from it into a private in-memory cache and are renewed from it. Without it: the user's credential cache (KRB5CCNAME; `kinit`). */
            keytabFile: z.string().min(1).optional(),
            /** The MIT GSSAPI library to load, a file name the dynamic linker finds or an absolute path (default libgssapi_krb5.so.2; e.g. /usr/lib64/libgssapi_krb5.so.2). */
            gssapiLibrary: z.string().min(1).optional(),
            /**
             * SASL quality of protection, in order of preference, in Hadoop's names (copy the metastore's hadoop.rpc.protection):
             * the first the metastore offers is used. `integrity` signs and `privacy` also encrypts every Thrift message (GSSAPI
             * wrap); `authentication` only authenticates. A YAML list, e.g. [privacy] to refuse anything weaker.
             */
            protection: z
              .array(saslProtection)
              .min(1)
              .refine((a) => new Set(a).size === a.length, 'each value once')
              .default(['authentication', 'integrity', 'privacy']),
          })
          .strict()
          .optional(),
      })
      .strict(),
    /** Optional direct reader of the HMS backing database (faster inventory). */
    db: z
      .object({
        /** The metastore's backing database (postgres://… or mysql://…), read-only access is enough. */
        url: z.string().regex(/^(postgres|postgresql|mysql|mariadb):\/\//, 'expected postgres://… or mysql://…'),
        /** Postgres: connections reading partitions side by side on one exported snapshot (MySQL/MariaDB: always 1). */
        connections: z.number().int().min(1).max(8).default(2),
      })
      .strict()
      .optional(),
  })
  .strict();

export const catalogSchema = z
  .object({
    /** The name plans use to refer to this catalog. */
    name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
    /** rest: an Iceberg REST catalog; hive: the Hive Metastore (register or in-place); jdbc: Iceberg's JDBC catalog tables in Postgres or MySQL/MariaDB (uri postgres://… or mysql://…). */
    type: z.enum(['rest', 'hive', 'jdbc']),
    /** rest: http(s)://host[:port][/prefix]; hive: thrift://host:port; jdbc: postgres://… or mysql://… */
    uri: z.string(),
    /** The warehouse to ask a REST catalog for (sent as `warehouse` to GET /v1/config). */
    warehouse: z.string().optional(),
    /** Name of the environment variable holding a static bearer token (never the token itself); short for `auth: {type: bearer, tokenEnv}`. */
    tokenEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/)
      .optional(),
    /** REST catalog only: how it authenticates us — bearer, oauth2 (client credentials) or sigv4 (AWS Glue, S3 Tables). Replaces tokenEnv. */
    auth: catalogAuthSchema.optional(),
    /** Prefix for the target namespace of every migrated table: `<prefix><hms database>` (default none). */
    namespacePrefix: z
      .string()
      .regex(/^[a-z0-9_]*$/, 'lower-case letters, digits and underscores')
      .optional(),
    /**
     * Hive catalog only. `register` (default): a new HMS table per migrated table (needs a
     * namespacePrefix when the catalog is the source HMS). `in-place`: the Hive table itself becomes
     * the Iceberg table (partitioned ones keep their Hive original as `<name>__him_original`);
     * rollback restores the saved original.
     */
    mode: z.enum(['register', 'in-place']).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const uri = {
      rest: [/^https?:\/\//, 'a rest catalog needs an http(s):// uri'],
      hive: [/^thrift:\/\//, 'a hive catalog needs a thrift:// uri'],
      jdbc: [/^(postgres|postgresql|mysql|mariadb):\/\//, 'a jdbc catalog needs a postgres://… or mysql://… uri'],
    } as const;
    const [pattern, message] = uri[c.type];
    if (!pattern.test(c.uri)) ctx.addIssue({ code: 'custom', path: ['uri'], message });
    const secret = c.type === 'jdbc' ? null : uriSecret(c.uri);
    if (secret !== null)
      ctx.addIssue({
        code: 'custom',
        path: ['uri'],
        message: `catalog.uri carries ${secret}: the uri is printed (plan headers, doctor, logs); name a variable in catalog.auth (bearer tokenEnv, oauth2 clientSecretEnv) instead`,
      });
    if (c.auth !== undefined && c.type !== 'rest')
      ctx.addIssue({ code: 'custom', path: ['auth'], message: 'auth applies to a rest catalog only' });
    if (c.auth !== undefined && c.tokenEnv !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['tokenEnv'],
        message: 'set catalog.auth or catalog.tokenEnv (the same as auth: {type: bearer}), not both',
      });
    if (c.mode !== undefined && c.type !== 'hive')
      ctx.addIssue({ code: 'custom', path: ['mode'], message: 'mode applies to a hive catalog only' });
    if (c.mode === 'in-place' && (c.namespacePrefix ?? '') !== '')
      ctx.addIssue({
        code: 'custom',
        path: ['namespacePrefix'],
        message: 'an in-place catalog converts each table under its own name: no namespacePrefix',
      });
  });

export const storageSchema = z
  .object({
    /**
     * Absolute local directories whose `file:` (or bare `/…`) table locations may be migrated; unset or empty: none —
     * only object-store locations (s3, s3a, s3n) are planned and applied (LOCATION_NOT_ALLOWED). Compared after
     * percent-decoding, `..` and symlink resolution; set it on the workers too (apply re-checks with their config).
     */
    localRoots: z.array(z.string().regex(/^\//, 'an absolute directory (starting with /)')).optional(),
    /** S3 or an S3-compatible server (credentials from the standard AWS environment). */
    s3: z
      .object({
        /** Omit for AWS itself (https://s3.<region>.amazonaws.com); set for S3-compatible servers. */
        endpoint: httpUrl.optional(),
        /** The signing region; unset: AWS_REGION, AWS_DEFAULT_REGION, the active profile's region in ~/.aws/config, else us-east-1. */
        region: z.string().min(1).optional(),
        /**
         * Path-style addressing (https://host/bucket/key), which most S3-compatible servers need; false: virtual-hosted
         * (https://bucket.host/key, AWS's default; buckets with dots still go path-style).
         */
        forcePathStyle: z.boolean().default(false),
        /** A bucket doctor checks access to (HeadBucket). */
        probeBucket: z.string().optional(),
        /**
         * Deadline of one S3 request, milliseconds (then the SDK retries, then STORAGE_UNREACHABLE):
         * a stalled connection fails the step instead of holding it while it heartbeats.
         */
        requestTimeoutMs: z.number().int().min(100).max(600_000).default(60_000),
      })
      .strict()
      .optional(),
  })
  .strict();

export const temporalSchema = z
  .object({
    /** host:port of the Temporal frontend (gRPC). Unset: TEMPORAL_ADDRESS, then the profile's `address` (docs/deploying.md "Authentication: Temporal"). */
    address: z
      .string()
      .regex(/^[^:/]+:\d+$/, 'expected host:port')
      .optional(),
    /** The namespace (it needs the four Migration* search attributes: docs/deploying.md). Unset: TEMPORAL_NAMESPACE, the profile's, then `default`. */
    namespace: z.string().min(1).optional(),
    /** The task queue workers poll and the CLI starts workflows on. */
    taskQueue: z.string().min(1).default('hms-iceberg-migrator'),
    /** The Temporal web UI, for links printed by apply and status. */
    uiUrl: httpUrl.optional(),
    /** Profile of Temporal's client config file (TOML, `[profile.<name>]`); unset: TEMPORAL_PROFILE, then `default`. Values here win over the profile's. */
    profile: z.string().min(1).optional(),
    /** Path of Temporal's client config file (TOML); unset: TEMPORAL_CONFIG_FILE, then ~/.config/temporalio/temporal.toml when it exists. */
    configFile: z.string().min(1).optional(),
    /** Name of the environment variable holding the Temporal API key (sent as `authorization: Bearer`; turns TLS on). Unset: TEMPORAL_API_KEY, then the profile's `api_key`. Never the key itself. */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name (A-Z, 0-9, _)')
      .optional(),
    /** TLS to the frontend (present: on). Unset keys fall back to TEMPORAL_TLS_* and the profile's `tls` table. */
    tls: z
      .object({
        /** PEM file of the CA that signs the frontend's certificate; unset: the system CAs. */
        serverCaFile: z.string().min(1).optional(),
        /** Name to verify the server certificate against and send as SNI (an IP address, a load balancer in front). */
        serverName: z.string().min(1).optional(),
        /** PEM file of the client certificate for mTLS (with clientKeyFile). */
        clientCertFile: z.string().min(1).optional(),
        /** PEM file of the client certificate's private key (with clientCertFile). */
        clientKeyFile: z.string().min(1).optional(),
      })
      .strict()
      .refine((t) => (t.clientCertFile === undefined) === (t.clientKeyFile === undefined), {
        message: 'clientCertFile and clientKeyFile go together',
        path: ['clientKeyFile'],
      })
      .optional(),
  })
  .strict();

export const stateSchema = z
  .object({
    /** postgres://user[:password]@host:port/database of the state store; the database must exist, its tables are created on first use. */
    url: z.string().regex(/^postgres(ql)?:\/\//, 'expected postgres://…'),
  })
  .strict();

const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name (A-Z, 0-9, _)');
const keyFile = z.string().min(1);

/**
 * Plan signing (docs/plan-signing.md): `migrate plan` signs the plan hash with the current key;
 * `migrate apply` refuses an unsigned plan or one no accepted key verifies. `previous…` keys are
 * accepted for verification only (key rotation).
 */
export const planSigningSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('hmac'),
      /** Environment variable holding the shared key (at least 32 characters; never the key itself here). */
      keyEnv: envName,
      /** Variables holding earlier keys, accepted for verification only (key rotation). */
      previousKeyEnvs: z.array(envName).default([]),
    })
    .strict(),
  z
    .object({
      type: z.literal('ed25519'),
      /** PEM (PKCS#8) private key; needed by `migrate plan` only. */
      privateKeyFile: keyFile.optional(),
      /** PEM (SPKI) public key of the current signing key. */
      publicKeyFile: keyFile,
      /** Earlier public keys, accepted for verification only (key rotation). */
      previousPublicKeyFiles: z.array(keyFile).default([]),
    })
    .strict(),
]);
export type PlanSigningConfig = z.output<typeof planSigningSchema>;

/** `migrate assess` / `migrate plan`. Wave options, ownership and throughput are validated by
 * core/plan (parseWaveOptions, parseOwnership, parseThroughput) so their errors keep planner codes. */
export const planSchema = z
  .object({
    /** Catalog name recorded in the plan; defaults to catalog.name. */
    targetCatalog: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and dashes')
      .optional(),
    /** Databases to read (default: all). */
    databases: z.array(z.string().min(1)).optional(),
    /** Declared lineage YAML file (version: 1, jobs: [{name, reads, writes}]). */
    lineage: z.string().min(1).optional(),
    /** How tables are assessed. */
    assess: z
      .object({
        /** Convert bucketed tables as unbucketed Iceberg tables (otherwise CONVERT_BUCKETED). */
        allowUnbucketed: z.boolean().default(false),
        /** Parquet footers read per table for storage-only facts (INT96; 0 = no storage sampling). */
        sampleFiles: z.number().int().min(0).max(100).default(3),
      })
      .strict()
      .default({ allowUnbucketed: false, sampleFiles: 3 }),
    /** Which team owns a table: explicit mappings, then a table parameter, then the HMS owner. */
    ownership: z.record(z.string(), z.unknown()).default({}),
    /** Wave caps, canary, blast radius, pins, excludes and scope. */
    waves: z.record(z.string(), z.unknown()).default({}),
    /** Measured throughput, for the plan's time estimates (none: no estimates). */
    throughput: z.record(z.string(), z.unknown()).optional(),
    /** Plan signing (docs/plan-signing.md). */
    signing: planSigningSchema.optional(),
  })
  .strict();

/** Nightly validation: where each run's Parquet results and Markdown report go. */
export const validationSchema = z
  .object({
    /** Directory URI or absolute path (s3://bucket/prefix, /var/lib/migrate/results). */
    resultsLocation: z.string().min(1),
    /** Read-back proof (docs/migrating.md): one Spark job per batch reads a sample of each table's files through the new Iceberg table and through Hive's schema and partition values, and compares content checksums. Unset: off. */
    readBack: z
      .object({
        /** The engine that reads both sides: spark (the spark-submit command line of the rewrite section runs the job). */
        engine: z.enum(['spark']).default('spark'),
        /** Data files sampled per table (chosen by path hash, deterministic per plan); at least 1. */
        filesPerTable: z.number().int().min(1).max(1000).default(2),
        /** Tables per engine job (one Spark session reads them all). */
        tablesPerJob: z.number().int().min(1).max(10000).default(200),
      })
      .strict()
      .optional(),
  })
  .strict();

/** The audit log (docs/audit.md): external head anchor, chain key, who may approve waves. */
export const auditSchema = z
  .object({
    /** Directory URI (s3://bucket/prefix or an absolute path) for the immutable head anchors; one chain (state DB) per location. */
    anchorLocation: z.string().min(1).optional(),
    /** Name of the environment variable holding the HMAC key of the chain (≥ 32 bytes); unset: unkeyed sha256. */
    keyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name')
      .optional(),
    /** Who may approve waves (user names, or user@host); unset or empty: anyone. The worker's list is the one enforced. */
    approvers: z.array(z.string().min(1).max(256)).optional(),
    /** Per-wave approvers (wave number → names), in place of `approvers` for those waves; enforced by the worker. */
    waveApprovers: z
      .record(z.string().regex(/^[1-9][0-9]{0,8}$/, 'expected a wave number'), z.array(z.string().min(1).max(256)).min(1))
      .optional(),
    /** Whether a self-declared name (MIGRATE_ACTOR) counts for `approvers`; by default only an OS or authenticated identity does. */
    trustDeclaredActor: z.boolean().default(false),
  })
  .strict();

export type { CatalogAuthConfig } from './catalog-auth';
export { catalogAuthSchema, uriSecret } from './catalog-auth';
export type { ReadersConfig } from './readers';
export { readersSchema } from './readers';
export type { RewriteConfig } from './rewrite';
export { rewriteSchema } from './rewrite';

export const viewsSchema = z
  .object({
    /**
     * The name Trino's Iceberg connector has for the target catalog (its catalog properties file):
     * each view's `trino` representation reads its tables as `<trinoCatalog>.<namespace>.<table>`.
     * Default `iceberg`; null: views get no `trino` representation.
     */
    trinoCatalog: z
      .string()
      .regex(/^[a-z_][a-z0-9_]*$/, 'lower-case letters, digits and underscores')
      .nullable()
      .default('iceberg'),
  })
  .strict();

export const configSchema = z
  .object({
    /** Nightly validation: where results go. */
    validation: validationSchema.optional(),
    /** `migrate assess` and `migrate plan`: scope, waves, ownership, estimates, signing. */
    plan: planSchema.optional(),
    /** The source Hive Metastore (inventory, assess, plan, and the live re-checks of apply). */
    hms: hmsSchema.optional(),
    /** The target Iceberg catalog. */
    catalog: catalogSchema.optional(),
    /** Where the tables' data lives (read) and their Iceberg metadata is written. */
    storage: storageSchema.optional(),
    /** The Temporal cluster that runs apply, rollback and the nightly validation. */
    temporal: temporalSchema.optional(),
    /** The Postgres state store: plans, per-table records, the audit log. */
    state: stateSchema.optional(),
    /** The audit log: external anchor, chain key, approvers. */
    audit: auditSchema.optional(),
    /** The rewrite path through Spark for rewrite-required tables (opt-in). */
    rewrite: rewriteSchema.optional(),
    /** The engines a migrated table must read as Hive does (the reader matrix, docs/readers.md). */
    readers: readersSchema.optional(),
    /** Migrated Hive views (Iceberg views in a REST catalog). */
    views: viewsSchema.optional(),
    /** `migrate worker`'s log: level, format (json or text), file. */
    logging: loggingSchema.optional(),
    /** `migrate worker`'s Prometheus endpoint (and the Temporal SDK's). */
    metrics: metricsSchema.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    // In place means the catalog IS the source HMS; anything else would convert one HMS's tables into another's names.
    if (
      c.catalog?.mode === 'in-place' &&
      c.hms !== undefined &&
      c.catalog.uri.replace(/\/+$/, '') !== c.hms.thrift.uri.replace(/\/+$/, '')
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['catalog', 'uri'],
        message: `an in-place hive catalog must be the source HMS (hms.thrift.uri ${c.hms.thrift.uri})`,
      });
    }
  });

export type MigrateConfig = z.infer<typeof configSchema>;
