// What `migrate --version` reports: this tool's version (its package.json), the Node running it,
// the Temporal SDK installed beside it and the Hive Metastore Thrift IDL it speaks. Reads two small
// package.json files and loads no SDK: --version answers in about the time Node takes to start.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HMS_IDL_VERSION } from '../../adapters/hms/thrift/idl-version';

const NAME = 'hms-iceberg-migrator';

function readJson(file: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
  } catch {
    return undefined;
  }
}

/** This package's package.json: the nearest one above this file named hms-iceberg-migrator (sources: the checkout; compiled: above dist/). */
function ownPackage(): { name?: string; version?: string } | undefined {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const pkg = readJson(path.join(dir, 'package.json'));
    if (pkg?.name === NAME) return pkg;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The tool's version from its package.json ('0.0.0' when it cannot be read). */
export function toolVersion(): string {
  return ownPackage()?.version ?? '0.0.0';
}

/** The installed Temporal TypeScript SDK (the @temporalio/client package the tool resolves). */
export function temporalSdkVersion(): string {
  try {
    return readJson(require.resolve('@temporalio/client/package.json'))?.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export interface VersionInfo {
  readonly tool: string;
  readonly node: string;
  readonly temporalSdk: string;
  readonly hmsIdl: string;
}

export function versionInfo(): VersionInfo {
  return { tool: toolVersion(), node: process.versions.node, temporalSdk: temporalSdkVersion(), hmsIdl: HMS_IDL_VERSION };
}
