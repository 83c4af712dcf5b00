// The rewrite path's worker settings from the config (`rewrite:`): the spark-submit argv and its
// environment, where new tables go, and the Iceberg Spark catalog properties the job gets — derived
// from `catalog` and `storage.s3` (no secrets: the job reads S3 keys from the worker's environment),
// with `rewrite.catalogProperties` on top.
import os from 'node:os';
import path from 'node:path';
import type { MigrateConfig } from '../../core/config/schema';
import type { OpsDeps } from '../../ops/context';

export function rewriteCatalogProperties(config: MigrateConfig): Record<string, string> {
  const c = config.catalog;
  const s3 = config.storage?.s3;
  const derived: Record<string, string> = {};
  if (c?.type === 'rest') Object.assign(derived, { type: 'rest', uri: c.uri }, c.warehouse === undefined ? {} : { warehouse: c.warehouse });
  if (c?.type === 'hive') Object.assign(derived, { type: 'hive', uri: c.uri });
  derived['io-impl'] = 'org.apache.iceberg.aws.s3.S3FileIO';
  if (s3?.endpoint !== undefined) derived['s3.endpoint'] = s3.endpoint;
  if (s3?.forcePathStyle === true) derived['s3.path-style-access'] = 'true';
  const region = s3?.region ?? process.env.AWS_REGION;
  if (region !== undefined) derived['client.region'] = region;
  return { ...derived, ...(config.rewrite?.catalogProperties ?? {}) };
}

/** OpsDeps.rewrite; undefined without a `rewrite:` section (rewrite tables then fail REWRITE_NOT_CONFIGURED). */
export function rewriteDepsOf(config: MigrateConfig): OpsDeps['rewrite'] {
  const r = config.rewrite;
  if (r === undefined) return undefined;
  return {
    command: r.command,
    env: r.env,
    warehouse: r.warehouse,
    catalogProperties: rewriteCatalogProperties(config),
    timeoutMinutes: r.timeoutMinutes,
    viewCheck: r.viewCheck,
    workDir: process.env.HIM_REWRITE_WORK_DIR ?? path.join(os.tmpdir(), 'him-rewrite'),
  };
}
