// Who is running a command, and where that name came from (core/audit/chain.ts ActorSource), plus
// the approvers rule (audit.approvers). A name typed into MIGRATE_ACTOR is recorded as `declared`:
// nothing checks it, so by default it does not count as an approver (docs/audit.md).
import os from 'node:os';
import { ActorSource } from '../core/audit/chain';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError } from '../core/errors';

export interface ActorIdentity {
  /** The name recorded in the audit log: `alice` (declared) or `alice@host` (os). */
  readonly actor: string;
  readonly actorSource: ActorSource;
  /** The bare user name, matched against `audit.approvers` entries without `@host`. */
  readonly user: string;
}

/** The actor of a CLI command: MIGRATE_ACTOR (declared), else the OS account (`user@host`). */
export function actorOf(env: NodeJS.ProcessEnv = process.env): ActorIdentity {
  const declared = env.MIGRATE_ACTOR?.trim();
  if (declared !== undefined && declared !== '')
    return { actor: declared, actorSource: ActorSource.DECLARED, user: declared.split('@')[0] ?? declared };
  const user = os.userInfo().username;
  return { actor: `${user}@${os.hostname()}`, actorSource: ActorSource.OS, user };
}

/**
 * Throws AUDIT_APPROVER_REFUSED (exit 1) unless `who` may approve waves: `audit.approvers` unset or
 * empty allows anyone; otherwise an entry must equal the actor (`alice@host`) or its user (`alice`),
 * and a declared name counts only with `audit.trustDeclaredActor: true`. Call it before sending the
 * approval, so nothing is recorded for a refused approver.
 */
export function checkApprover(config: MigrateConfig, who: ActorIdentity): void {
  const approvers = config.audit?.approvers ?? [];
  if (approvers.length === 0) return;
  const ctx = { actor: who.actor, actorSource: who.actorSource, approvers };
  if (who.actorSource === ActorSource.DECLARED && config.audit?.trustDeclaredActor !== true) {
    throw new MigrationError(
      ErrorCode.AUDIT_APPROVER_REFUSED,
      `approvals are restricted to audit.approvers and '${who.actor}' is a self-declared name (MIGRATE_ACTOR): unset MIGRATE_ACTOR to approve as your OS account, or set audit.trustDeclaredActor: true`,
      ctx,
    );
  }
  if (!approvers.includes(who.actor) && !approvers.includes(who.user)) {
    throw new MigrationError(
      ErrorCode.AUDIT_APPROVER_REFUSED,
      `${who.actor} (${who.actorSource}) is not on audit.approvers (${approvers.join(', ')}): ask one of them to approve, or add this account to the list`,
      ctx,
    );
  }
}
