// `audit verify`: re-hash the whole audit chain (keyed events with the configured key) and check
// it against the newest head anchor written outside the database (docs/audit.md).
import type { AnchorRecord } from '../core/audit/anchor';
import type { AuditEvent, ChainVerdict } from '../core/audit/chain';
import { verifyChain } from '../core/audit/chain';
import type { MigrateConfig } from '../core/config/schema';
import { chainKeyOf } from './audit-setup';
import { openState } from './runtime';

export interface AuditReport {
  readonly verdict: ChainVerdict;
  readonly anchorLocation: string | null;
  readonly anchorPath: string | null;
}

/** Reads the newest anchor before the chain: a concurrent append commits before it anchors, so the chain read after is never behind it. */
export async function verifyAudit(config: MigrateConfig, env: NodeJS.ProcessEnv): Promise<AuditReport> {
  const key = chainKeyOf(config, env);
  const state = await openState(config, env);
  try {
    const newest = await state.anchor?.newest();
    const anchor: AnchorRecord | undefined = newest === undefined ? undefined : { seq: newest.seq, hash: newest.hash, at: newest.at };
    const events: AuditEvent[] = [];
    for await (const e of state.readAudit()) events.push(e);
    return {
      verdict: verifyChain(events, { ...(key === undefined ? {} : { key }), ...(anchor === undefined ? {} : { anchor }) }),
      anchorLocation: state.anchor?.location ?? null,
      anchorPath: newest?.path ?? null,
    };
  } finally {
    await state.close();
  }
}
