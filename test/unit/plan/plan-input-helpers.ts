// Shared builders for the plan-input tests: a built plan (optionally pinned), a temp dir to write
// plan files into, configs with or without plan.signing, and the coded error a call ends with.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configSchema } from '../../../core/config/schema';
import type { MigrateConfig } from '../../../core/config/schema';
import { buildGraph } from '../../../core/plan/graph';
import { buildPlan, planHash } from '../../../core/plan/plan-file';
import type { PlanFile } from '../../../core/plan/plan-file';
import type { PlanTarget } from '../../../core/plan/target';
import { planWaves } from '../../../core/plan/waves';
import { baseOptions, edge, table } from './fixtures';
export { errorOf } from '../../helpers/errors';

export const TARGET: PlanTarget = { catalog: 'lake', type: 'rest', mode: null, namespacePrefix: 'mig_' };

/** Two waves (s.a, then the view s.v), s.gone not planned (CLASS_SKIP). */
export function makePlan(target: PlanTarget | null = TARGET): PlanFile {
  const header = {
    createdAt: '2026-12-01T10:00:00.000Z',
    toolVersion: '0.1.0',
    source: { uri: 'thrift://hms:9083', label: 'thrift' },
    targetCatalog: 'lake',
    target,
    throughput: { filesPerSecond: 100, bytesPerSecond: 1e6, perTableOverheadSeconds: 1 },
  };
  return buildPlan(
    header,
    planWaves(
      buildGraph(
        [table('s.a', { files: 10, bytes: 1000 }), table('s.v', { kind: 'view', files: 0, bytes: 0 }), table('s.gone', { class: 'skip' })],
        [edge('s.a', 's.v')],
      ),
      baseOptions,
    ),
  );
}

/** The document with its hash recomputed the way anyone can (plain sha256): what a forger writes. */
export function rehashed(doc: Record<string, unknown>): Record<string, unknown> {
  return { ...doc, hash: planHash(doc) };
}

export const tempDir = (): string => mkdtempSync(path.join(os.tmpdir(), 'him-planfile-'));

export function writePlan(dir: string, name: string, content: string | Buffer | object): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content));
  return file;
}

/** A full config (defaults filled) with the given plan.signing (or none). */
export function configWith(signing?: unknown): MigrateConfig {
  return configSchema.parse(signing === undefined ? { plan: {} } : { plan: { signing } });
}
