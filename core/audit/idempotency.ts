// The idempotency key of an audit event (docs/audit.md "Idempotent appends"): the same for every
// attempt of one logical step, so a step that appended its event and then lost its attempt (a
// worker frozen past its heartbeat or start-to-close timeout, Temporal retrying elsewhere) appends
// nothing more when it is resumed. The state store appends "at most once per key" under the lock
// that computes the chain link. Pure; no I/O.
import { canonicalJson, sha256Hex } from '../hash';

/** Where an activity's event comes from: the workflow run and the activity, as Temporal names them (never the attempt). */
export interface StepIdentity {
  readonly workflowId: string;
  /** The run: a re-applied plan's new run of the same workflow id is a new step. */
  readonly runId: string;
  /** Stable across the attempts of one scheduled activity (a new scheduling is a new step). */
  readonly activityId: string;
}

/** The parts a key is made of: the step, what happened to what, and a discriminator for a step that records the same action twice. */
export interface KeyParts extends StepIdentity {
  readonly action: string;
  readonly object: string;
  readonly discriminator?: string | null;
}

/** `step:` and the sha256 of the parts (fixed length; the parts themselves are in the event's content). */
export function idempotencyKey(p: KeyParts): string {
  const parts = {
    workflowId: p.workflowId,
    runId: p.runId,
    activityId: p.activityId,
    action: p.action,
    object: p.object,
    discriminator: p.discriminator ?? null,
  };
  return `step:${sha256Hex(canonicalJson(parts))}`;
}
