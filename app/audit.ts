// `audit verify`: re-hash the whole audit chain (keyed events with the configured key) and check it
// against every anchor written outside the database (docs/audit.md). `audit anchor` and
// `audit activate-key`: the two audited operator actions on the chain itself.
import type { AnchorRecord, StoredAnchor } from '../core/audit/anchor';
import type { AuditEvent, ChainVerdict } from '../core/audit/chain';
import { AuditAction, verifyChain } from '../core/audit/chain';
import type { ChainKey } from '../core/audit/keyed';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError } from '../core/errors';
import type { StateStore } from '../core/state/store';
import { chainKeyOf } from './runtime/audit-setup';
import { actorOf } from './runtime/identity';
import { openState } from './runtime/runtime';

export interface AuditReport {
  readonly verdict: ChainVerdict;
  readonly anchorLocation: string | null;
  readonly anchorPath: string | null;
}

/** A writer anchors right after its commit: unanchored events seen by a verify that raced it get this long to be anchored. */
const ANCHOR_RACE_MS = 1_000;

const bare = (a: StoredAnchor): AnchorRecord => {
  const { path, ...rest } = a;
  void path;
  return rest;
};

/** The verdict over `state`'s chain and anchors (anchors read before the chain, and once more when unanchored events could be a concurrent append's). */
async function verifyOpen(state: StateStore, key: ChainKey | undefined): Promise<AuditReport> {
  let anchors = await state.anchor?.all();
  const events: AuditEvent[] = [];
  for await (const e of state.readAudit()) events.push(e);
  const verify = (): ChainVerdict =>
    verifyChain(events, { ...(key === undefined ? {} : { key }), ...(anchors === undefined ? {} : { anchors: anchors.map(bare) }) });
  let verdict = verify();
  if (!verdict.ok && (verdict.unanchoredUnkeyed ?? 0) > 0 && state.anchor !== undefined) {
    await new Promise((r) => setTimeout(r, ANCHOR_RACE_MS));
    anchors = (await state.anchor.all()).filter((a) => a.seq <= events.length);
    verdict = verify();
  }
  const newest = verdict.anchor === undefined ? undefined : anchors?.find((a) => a.seq === verdict.anchor?.seq);
  return { verdict, anchorLocation: state.anchor?.location ?? null, anchorPath: newest?.path ?? null };
}

export async function verifyAudit(config: MigrateConfig, env: NodeJS.ProcessEnv): Promise<AuditReport> {
  const key = chainKeyOf(config, env);
  const state = await openState(config, env);
  try {
    return await verifyOpen(state, key);
  } finally {
    await state.close();
  }
}

/**
 * `migrate audit anchor`: after a failed anchor write left unkeyed events newer than the newest
 * anchor (verify fails on them), an operator who reviewed them records that (an `audit.anchored`
 * event naming the range) and its anchor covers them. Refused when the chain fails for any other
 * reason, when no anchor location is configured, and when there is nothing to anchor.
 */
export async function anchorAudit(config: MigrateConfig, env: NodeJS.ProcessEnv): Promise<AuditReport & { readonly anchored: number }> {
  const key = chainKeyOf(config, env);
  const state = await openState(config, env);
  try {
    if (state.anchor === undefined)
      throw new MigrationError(ErrorCode.CONFIG_INVALID, 'audit anchor needs audit.anchorLocation: there is nowhere to anchor the chain', {
        path: 'audit.anchorLocation',
      });
    const before = await verifyOpen(state, key);
    const v = before.verdict;
    const pending = v.unanchoredUnkeyed ?? (v.ok ? (v.unanchored ?? 0) : 0);
    if (!v.ok && (v.unanchoredUnkeyed ?? 0) === 0) return { ...before, anchored: 0 };
    if (pending === 0 && v.anchor !== undefined) return { ...before, anchored: 0 };
    const who = actorOf(env);
    const from = (v.anchor?.seq ?? 0) + 1;
    await state.appendAudit({
      at: new Date().toISOString(),
      actor: who.actor,
      actorSource: who.actorSource,
      action: AuditAction.AUDIT_ANCHORED,
      object: `audit:${state.anchor.location}`,
      planHash: null,
      beforeDigest: null,
      afterDigest: null,
      details: { from, to: v.events, events: v.events - from + 1 },
    });
    return { ...(await verifyOpen(state, key)), anchored: v.events - from + 1 };
  } finally {
    await state.close();
  }
}

/**
 * `migrate audit activate-key`: starts the keyed chain on a chain whose head is not keyed (a
 * writer with a key refuses to append to such a chain, so a downgrade cannot be blessed quietly).
 * Refused when no key is configured, when the chain does not verify, or when it is already keyed.
 */
export async function activateKey(config: MigrateConfig, env: NodeJS.ProcessEnv): Promise<AuditReport & { readonly activated: boolean }> {
  const key = chainKeyOf(config, env);
  if (key === undefined)
    throw new MigrationError(ErrorCode.CONFIG_INVALID, 'audit activate-key needs audit.keyEnv: there is no key to activate', {
      path: 'audit.keyEnv',
    });
  const state = await openState(config, env);
  try {
    // Verified without the key: a chain that is not keyed yet is what activation expects.
    const before = await verifyOpen(state, undefined);
    // CONFIG_INVALID without the key: the chain already holds keyed events (verify them with it).
    if (before.verdict.code === ErrorCode.CONFIG_INVALID) return { ...(await verifyOpen(state, key)), activated: false };
    if (!before.verdict.ok) return { ...before, activated: false };
    const who = actorOf(env);
    await state.appendAudit({
      at: new Date().toISOString(),
      actor: who.actor,
      actorSource: who.actorSource,
      action: AuditAction.AUDIT_KEY_ACTIVATED,
      object: `audit:key:${key.id}`,
      planHash: null,
      beforeDigest: null,
      afterDigest: null,
      details: { keyId: key.id, afterSeq: before.verdict.events },
    });
    return { ...(await verifyOpen(state, key)), activated: true };
  } finally {
    await state.close();
  }
}
