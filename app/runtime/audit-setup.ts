// The audit options of the state store from the resolved config: the chain key (from the variable
// named by audit.keyEnv) and the external head anchor (audit.anchorLocation, through the object
// stores). Used by every command and worker that opens the state store.
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { ChainKey } from '../../core/audit/keyed';
import { chainKeyFrom, MIN_KEY_BYTES } from '../../core/audit/keyed';
import { utf8 } from '../../core/hash';
import type { StateStoreOptions } from '../../adapters/state/postgres';
import type { ObjectStore } from '../../core/storage/object-store';
import { ObjectStoreAuditAnchor } from '../../adapters/storage/audit-anchor';

/** The chain key, or undefined when audit.keyEnv is not configured; a named but unset or short variable is CONFIG_INVALID. */
export function chainKeyOf(config: MigrateConfig, env: NodeJS.ProcessEnv): ChainKey | undefined {
  const name = config.audit?.keyEnv;
  if (name === undefined) return undefined;
  const text = env[name];
  if (text === undefined || text === '')
    throw new MigrationError(
      ErrorCode.CONFIG_INVALID,
      `audit.keyEnv names ${name}, which is not set: set it to the audit chain key (every process that writes or verifies the audit log needs it)`,
      { path: 'audit.keyEnv' },
    );
  if (utf8(text).length < MIN_KEY_BYTES)
    throw new MigrationError(
      ErrorCode.CONFIG_INVALID,
      `the audit chain key in ${name} is shorter than ${MIN_KEY_BYTES} bytes: use a random key (e.g. openssl rand -hex 32)`,
      { path: 'audit.keyEnv' },
    );
  return chainKeyFrom(text);
}

/** What app/runtime/runtime.ts openStores returns (passed in: runtime imports this file). */
type OpenStores = (
  config: MigrateConfig,
  env: NodeJS.ProcessEnv,
) => { storeFor: (prefixes: readonly string[]) => ObjectStore; close(): void };

/** Key, anchor and the anchor-failure warning for PostgresStateStore.open. */
export function auditStateOptions(
  config: MigrateConfig,
  env: NodeJS.ProcessEnv,
  openStores: OpenStores,
  warn: (line: string) => void = (l) => void process.stderr.write(l),
): StateStoreOptions {
  const key = chainKeyOf(config, env);
  const location = config.audit?.anchorLocation;
  if (location === undefined) return key === undefined ? {} : { key };
  let stores: ReturnType<OpenStores> | undefined;
  const open = (): ObjectStore => (stores ??= openStores(config, env)).storeFor([]);
  const anchor = new ObjectStoreAuditAnchor(open, location, () => stores?.close(), key);
  return {
    ...(key === undefined ? {} : { key }),
    anchor,
    onAnchorError: (e, seq) =>
      warn(`warning: audit event ${seq} is recorded but its anchor could not be written to ${anchor.location}: ${(e as Error).message}\n`),
  };
}

/**
 * A worker's start-up check (app/worker/worker.ts): with audit.keyEnv configured, the chain's newest event
 * must be keyed (or the chain empty: the first append activates the key). Otherwise every append
 * would be refused mid-migration, after the step's work was done; AUDIT_KEY_NOT_ACTIVE now, before
 * the worker polls.
 */
export async function assertAuditKeyActive(
  config: MigrateConfig,
  env: NodeJS.ProcessEnv,
  state: { auditHead(): Promise<{ seq: number; alg: string } | null> },
): Promise<void> {
  if (chainKeyOf(config, env) === undefined) return;
  const head = await state.auditHead();
  if (head === null || head.alg === 'hmac-sha256') return;
  throw new MigrationError(
    ErrorCode.AUDIT_KEY_NOT_ACTIVE,
    `the worker does not start: audit.keyEnv is configured but the audit chain's newest event (${head.seq}) is not keyed, so every step's audit event would be refused. Run \`migrate audit verify\`; when it is intact and the key is new, \`migrate audit activate-key\` once, then start the worker`,
    { seq: head.seq, path: 'audit.keyEnv' },
    { retryable: false },
  );
}
