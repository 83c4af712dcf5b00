// Who may approve a wave: the rules a worker records for a plan (its own `audit.approvers`,
// `audit.waveApprovers`, `audit.trustDeclaredActor`) and the decision over one approval. The plan
// workflow's `approve` update applies them (workflows/plan.ts), so an approval sent by any client —
// the CLI, `temporal workflow update`, an SDK — meets the same rules; the CLI applies them too, for an
// early answer. Pure; no I/O (workflow code imports it).
import type { ActorSource } from './chain';

/** The approval rules of a plan, as the worker that started it read them from its config. */
export interface ApprovalRules {
  /** Anyone may approve when empty (and no wave list applies). */
  readonly approvers: readonly string[];
  /** Per wave (its number as a string), in place of `approvers`. */
  readonly waveApprovers: Readonly<Record<string, readonly string[]>>;
  readonly trustDeclaredActor: boolean;
}

/** An approver name longer than this is refused (the audit log stores it). */
export const MAX_ACTOR_LENGTH = 256;
const SOURCES: readonly string[] = ['declared', 'os', 'worker', 'temporal-identity', 'unspecified'];
// C0 and C1 control characters (newlines, ESC of ANSI sequences, DEL) and Unicode line/bidi controls.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Why the approval's input is malformed (null when it is well-formed): who and where-from, bounded and printable. */
export function approvalInputProblem(by: unknown, source: unknown): string | null {
  if (typeof by !== 'string' || by.trim() === '') return 'approval needs the approver (by)';
  if (by.length > MAX_ACTOR_LENGTH) return `the approver name is ${by.length} characters; at most ${MAX_ACTOR_LENGTH}`;
  if (CONTROL.test(by)) return 'the approver name holds control characters (newlines, escape sequences)';
  if (source !== undefined && (typeof source !== 'string' || !SOURCES.includes(source)))
    return `unknown actor source ${JSON.stringify(source).slice(0, 40)} (one of ${SOURCES.join(', ')})`;
  return null;
}

/** The list that applies to `wave`: its own, else the plan-wide one. */
export function approversFor(rules: ApprovalRules, wave: number): readonly string[] {
  return rules.waveApprovers[String(wave)] ?? rules.approvers;
}

/**
 * Why `by` (from `source`) may not approve `wave` under `rules`, or null. An entry matches the actor
 * exactly (`bob@jump-host-1`) or its user (`alice`, any host). A name whose source is `declared` or
 * `unspecified` (nothing vouches for it: MIGRATE_ACTOR, or a raw update that did not say) counts only
 * with trustDeclaredActor.
 */
export function approvalRefusal(rules: ApprovalRules, wave: number, by: string, source: ActorSource | undefined): string | null {
  const list = approversFor(rules, wave);
  if (list.length === 0) return null;
  const src = source ?? 'unspecified';
  const scope = rules.waveApprovers[String(wave)] === undefined ? 'audit.approvers' : `audit.waveApprovers[${wave}]`;
  if ((src === 'declared' || src === 'unspecified') && !rules.trustDeclaredActor)
    return `approvals of wave ${wave} are restricted to ${scope} and '${by}' is a ${src === 'declared' ? 'self-declared name (MIGRATE_ACTOR)' : 'name with no stated source'}: approve with migrate approve as your OS account, or set audit.trustDeclaredActor: true on the worker`;
  const user = by.split('@')[0] ?? by;
  if (!list.includes(by) && !list.includes(user))
    return `${by} (${src}) is not on ${scope} (${list.join(', ')}) of the worker: ask one of them to approve, or add this account to the worker's list`;
  return null;
}

/** The rules of a config's `audit` section. */
export function approvalRulesOf(
  audit:
    | { approvers?: readonly string[]; waveApprovers?: Readonly<Record<string, readonly string[]>>; trustDeclaredActor?: boolean }
    | undefined,
): ApprovalRules {
  return {
    approvers: audit?.approvers ?? [],
    waveApprovers: audit?.waveApprovers ?? {},
    trustDeclaredActor: audit?.trustDeclaredActor ?? false,
  };
}
