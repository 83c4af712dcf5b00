// The target a plan pins (plan file version 2): catalog name, catalog type, Hive catalog mode and
// namespace prefix, taken from the config at plan time. Every table step compares the worker's own
// catalog config with it (`targetMismatch`) before any write, so two workers configured differently
// cannot act differently on one plan. Pure; no I/O.
import { z } from 'zod';
import type { MigrateConfig } from '../config/schema';

export const planTargetSchema = z
  .object({
    catalog: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
    type: z.enum(['rest', 'hive']),
    /** Hive catalogs only (`register` when the config leaves it out); null for REST. */
    mode: z.enum(['register', 'in-place']).nullable(),
    /** `''` when the config sets none. */
    namespacePrefix: z.string().regex(/^[a-z0-9_]*$/, 'lower-case letters, digits and underscores'),
  })
  .strict();

export type PlanTarget = z.output<typeof planTargetSchema>;

/** What a worker knows of its own target: its config's `catalog` section, as is (unset fields undefined). */
export interface TargetConfig {
  readonly catalogName: string;
  readonly type: string;
  readonly mode?: string | null;
  readonly namespacePrefix?: string | null;
}

/** The resolved target of a `catalog` section: defaults filled in as apply would fill them. */
function resolve(c: TargetConfig): PlanTarget {
  const type = c.type as PlanTarget['type'];
  return {
    catalog: c.catalogName,
    type,
    mode: type === 'hive' ? ((c.mode ?? 'register') as PlanTarget['mode']) : null,
    namespacePrefix: c.namespacePrefix ?? '',
  };
}

/** The target to pin in a plan made with this config; null when the config names no catalog. */
export function pinnedTarget(config: Pick<MigrateConfig, 'catalog'>): PlanTarget | null {
  const c = config.catalog;
  if (c === undefined) return null;
  return resolve({ catalogName: c.name, type: c.type, mode: c.mode, namespacePrefix: c.namespacePrefix });
}

/** `TargetConfig` from a config's catalog section (undefined when there is none). */
export function targetConfigOf(config: Pick<MigrateConfig, 'catalog'>): TargetConfig | undefined {
  const c = config.catalog;
  return c === undefined ? undefined : { catalogName: c.name, type: c.type, mode: c.mode, namespacePrefix: c.namespacePrefix };
}

/**
 * Null when this worker may act on the plan's tables: the plan pins no target (`target` null or
 * absent: a version 1 plan, or one made without a catalog section), or every pinned field equals
 * the worker's. Otherwise one line naming each field that differs, pinned value first; the caller
 * refuses the table with TARGET_MISMATCH before any write. A worker without a catalog section
 * mismatches every pinned plan.
 */
export function targetMismatch(plan: { readonly target?: PlanTarget | null }, worker: TargetConfig | undefined): string | null {
  const pinned = plan.target ?? null;
  if (pinned === null) return null;
  if (worker === undefined) return `the plan pins catalog ${pinned.catalog} (${pinned.type}) but this worker has no catalog configured`;
  const mine = resolve(worker);
  const fields = ['catalog', 'type', 'mode', 'namespacePrefix'] as const;
  const diffs = fields
    .filter((f) => pinned[f] !== mine[f])
    .map((f) => `${f}: plan ${JSON.stringify(pinned[f])}, worker ${JSON.stringify(mine[f])}`);
  return diffs.length === 0 ? null : `this worker's catalog config differs from the target pinned in the plan (${diffs.join('; ')})`;
}
