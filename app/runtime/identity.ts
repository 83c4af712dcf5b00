// Who is running a command, and where that name came from (core/audit/chain.ts ActorSource), plus
// the approvers rule (audit.approvers). A name typed into MIGRATE_ACTOR is recorded as `declared`:
// nothing checks it, so by default it does not count as an approver (docs/audit.md).
import os from 'node:os';
import { ActorSource } from '../../core/audit/chain';
import { approvalRefusal, approvalRulesOf, approversFor } from '../../core/audit/approval';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';

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
 * Throws AUDIT_APPROVER_REFUSED (exit 1) unless `who` may approve `wave` under this config's rules
 * (core/audit/approval.ts). The worker applies the same rules, from its own config, to every
 * approval whatever client sent it; this early check answers before anything is sent.
 */
export function checkApprover(config: MigrateConfig, who: ActorIdentity, wave = 0): void {
  const why = approvalRefusal(approvalRulesOf(config.audit), wave, who.actor, who.actorSource);
  if (why !== null)
    throw new MigrationError(ErrorCode.AUDIT_APPROVER_REFUSED, why, {
      actor: who.actor,
      actorSource: who.actorSource,
      approvers: approversFor(approvalRulesOf(config.audit), wave),
    });
}
