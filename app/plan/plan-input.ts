// Reading a plan file as `apply` must (docs/plan-signing.md): a regular file of at most
// MAX_PLAN_BYTES (read with a bound, so /dev/zero or a growing file cannot exhaust memory), UTF-8,
// parsed and upgraded by parsePlan, signature verified when plan.signing is configured, and at least
// one wave. Every refusal is a coded MigrationError that exits 2 (PLAN_INPUT_CODES).
import os from 'node:os';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError, isMigrationError } from '../../core/errors';
import { parsePlan } from '../../core/plan/plan-file';
import type { PlanFile } from '../../core/plan/plan-file';
import { MAX_PLAN_BYTES } from '../../core/plan/plan-limits';
import { signPlan, verifyPlanSignature } from '../../core/plan/signing';
import type { PlanSignerInfo, PlanSigningKey } from '../../core/plan/signing';
import { openPlanSigning } from '../../adapters/crypto/signing';
import { readBoundedFile } from '../../adapters/input/bounded-file';

/** Codes a plan file (or a plan id) the user gave can end with: exit 2 (the set lives with the exit codes, in core). */
export { PLAN_INPUT_CODES } from '../../core/exit-codes';

export interface PlanForApply {
  readonly plan: PlanFile;
  /** Who signed it (for the audit log); null when plan.signing is not configured. */
  readonly signer: PlanSignerInfo | null;
}

/** The file's text: a regular file of at most MAX_PLAN_BYTES (read with that bound), valid UTF-8. */
export function readPlanText(file: string): string {
  const bytes = readBoundedFile(file, {
    what: 'plan file',
    code: ErrorCode.USAGE,
    maxBytes: MAX_PLAN_BYTES,
    tooLargeCode: ErrorCode.PLAN_TOO_LARGE,
  });
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new MigrationError(ErrorCode.PLAN_INVALID, `${file}: not UTF-8 text (a plan file is JSON)`, { file, paths: ['(root)'] });
  }
}

/** parsePlan over a file, its errors prefixed with the file name. */
export function readPlanFile(file: string): PlanFile {
  const text = readPlanText(file);
  try {
    return parsePlan(text);
  } catch (e) {
    if (isMigrationError(e)) throw new MigrationError(e.code, `${file}: ${e.message}`, { ...e.context, file });
    throw e;
  }
}

/**
 * The plan `apply` may submit: readable, within the limits, parsed and upgraded, signed by an
 * accepted key when plan.signing is configured (else PLAN_UNSIGNED / PLAN_SIGNATURE_INVALID), with
 * at least one wave (else PLAN_EMPTY). Keys are loaded before the file is trusted.
 */
export function readPlanForApply(file: string, config: MigrateConfig, env: NodeJS.ProcessEnv = process.env): PlanForApply {
  const signing = config.plan?.signing === undefined ? undefined : openPlanSigning(config.plan.signing, env);
  const plan = readPlanFile(file);
  let signer: PlanSignerInfo | null = null;
  if (signing !== undefined) {
    try {
      signer = verifyPlanSignature(plan, signing.verifier);
    } catch (e) {
      if (isMigrationError(e)) throw new MigrationError(e.code, `${file}: ${e.message}`, { ...e.context, file });
      throw e;
    }
  }
  if (plan.waves.length === 0) throw new MigrationError(ErrorCode.PLAN_EMPTY, `${file}: the plan has no waves: nothing to apply`, { file });
  return { plan, signer };
}

/** Who is signing: MIGRATE_ACTOR, else user@host (self-declared; the key is what authenticates). */
export function signerName(env: NodeJS.ProcessEnv = process.env): string {
  return env.MIGRATE_ACTOR ?? `${os.userInfo().username}@${os.hostname()}`;
}

/** The signing key `migrate plan` uses, loaded (and checked) before any connection; undefined when signing is off. */
export function planSigningKey(
  config: MigrateConfig,
  env: NodeJS.ProcessEnv = process.env,
): { key: PlanSigningKey; check: (p: PlanFile) => PlanSignerInfo } | undefined {
  const cfg = config.plan?.signing;
  if (cfg === undefined) return undefined;
  const signing = openPlanSigning(cfg, env);
  return { key: signing.signingKey(), check: (p) => verifyPlanSignature(p, signing.verifier) };
}

/** Sign a built plan; the signature is verified with the configured keys before it is returned. */
export function signBuiltPlan(
  plan: PlanFile,
  s: { key: PlanSigningKey; check: (p: PlanFile) => PlanSignerInfo },
  env: NodeJS.ProcessEnv = process.env,
): PlanFile {
  const signed = signPlan(plan, s.key, signerName(env));
  s.check(signed);
  return signed;
}
