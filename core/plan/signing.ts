// Plan signatures (docs/plan-signing.md): what is signed, the signature block a plan file carries,
// and the sign/verify flow over two ports a crypto adapter implements (adapters/crypto/signing.ts).
// The plan hash covers everything but `hash` and `signature`; the signature covers the hash, the
// algorithm, the key id and the signer, so none of them can be changed without the key. Pure; no I/O.
import { z } from 'zod';
import { ErrorCode, MigrationError } from '../errors';

export const SignatureType = { HMAC_SHA256: 'hmac-sha256', ED25519: 'ed25519' } as const;
export type SignatureType = (typeof SignatureType)[keyof typeof SignatureType];

export const planSignatureSchema = z
  .object({
    type: z.enum([SignatureType.HMAC_SHA256, SignatureType.ED25519]),
    /** 16 lower-case hex digits naming the key (docs/plan-signing.md "Key ids"). */
    keyId: z.string().regex(/^[0-9a-f]{16}$/, 'expected 16 lower-case hex digits'),
    /** Who ran `migrate plan` (MIGRATE_ACTOR or user@host): self-declared, but covered by the signature. */
    signer: z.string().min(1).max(200),
    /** Base64 of the MAC or signature bytes. */
    value: z.string().regex(/^[A-Za-z0-9+/]{1,200}={0,2}$/, 'expected base64'),
  })
  .strict();
export type PlanSignature = z.output<typeof planSignatureSchema>;

/** Signs with one key (the current one). */
export interface PlanSigningKey {
  readonly type: SignatureType;
  readonly keyId: string;
  /** Base64 signature of the UTF-8 bytes of `message`. */
  sign(message: string): string;
}

/** Verifies with every key the config accepts (the current one and any kept for rotation). */
export interface PlanVerifier {
  readonly type: SignatureType;
  readonly keyIds: readonly string[];
  /** False for a key id it does not hold, a malformed value, or a signature that does not verify. */
  verify(keyId: string, message: string, value: string): boolean;
}

/** Who signed a plan, as the audit log records it. */
export interface PlanSignerInfo {
  readonly type: SignatureType;
  readonly keyId: string;
  readonly signer: string;
}

/** The exact bytes signed (UTF-8): a domain tag, then one field per line. */
export function signingMessage(hash: string, s: Omit<PlanSignature, 'value'>): string {
  return ['hms-iceberg-migrator plan signature v1', hash, s.type, s.keyId, s.signer].join('\n');
}

/** The plan with a `signature` over its (already computed) hash. */
export function signPlan<P extends { readonly hash: string }>(
  plan: P,
  key: PlanSigningKey,
  signer: string,
): P & { signature: PlanSignature } {
  const head = { type: key.type, keyId: key.keyId, signer };
  return { ...plan, signature: { ...head, value: key.sign(signingMessage(plan.hash, head)) } };
}

/**
 * Check a parsed plan's signature (its hash was already checked against its content): unsigned →
 * PLAN_UNSIGNED; another algorithm, a key id the verifier does not hold, or a value that does not
 * verify → PLAN_SIGNATURE_INVALID.
 */
export function verifyPlanSignature(
  plan: { readonly hash: string; readonly signature?: PlanSignature },
  verifier: PlanVerifier,
): PlanSignerInfo {
  const s = plan.signature;
  if (s === undefined) {
    throw new MigrationError(
      ErrorCode.PLAN_UNSIGNED,
      'signature: plan signing is configured (plan.signing) and this plan is not signed; make it again with migrate plan',
      { paths: ['signature'] },
    );
  }
  const refuse = (why: string): never => {
    throw new MigrationError(ErrorCode.PLAN_SIGNATURE_INVALID, `signature: ${why}`, {
      paths: ['signature'],
      keyId: s.keyId,
      signer: s.signer,
    });
  };
  if (s.type !== verifier.type) refuse(`signed with ${s.type}, but plan.signing expects ${verifier.type}`);
  if (!verifier.keyIds.includes(s.keyId))
    refuse(`signed with key ${s.keyId}, which plan.signing does not hold (it holds ${verifier.keyIds.join(', ')})`);
  if (!verifier.verify(s.keyId, signingMessage(plan.hash, s), s.value))
    refuse(`the signature by key ${s.keyId} does not verify: the plan was changed after signing`);
  return { type: s.type, keyId: s.keyId, signer: s.signer };
}
