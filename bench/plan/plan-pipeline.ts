// The `migrate plan` pipeline over any HmsReader, timed step by step, for plan-source.bench.ts:
// read the warehouse (every table of one database, with partitions, in the CLI's chunks) → assess
// (per-table rules, LOCATION_SHARED, view edges) → dependency graph → waves (the CLI's default caps)
// → build + serialize the plan file. Same functions as app/plan/build.ts buildPlanFromHms, minus
// the storage sample and the target catalog check (no S3 or catalog I/O) and minus the file write.
// The header is fixed (createdAt, source), so two sources that read the same warehouse produce
// the same plan text and hash.
import { performance } from 'node:perf_hooks';
import { assessWarehouse, readWarehouse, toPlanTable } from '../../app/plan/assess';
import type { AssessResult } from '../../app/plan/assess';
import { DEFAULT_THROUGHPUT, DEFAULT_WAVES } from '../../app/plan/build';
import { toolVersion } from '../../app/runtime/runtime';
import type { HmsReader, TableInventory } from '../../core/hive/model';
import { buildGraph } from '../../core/plan/graph';
import { parseOwnership } from '../../core/plan/ownership';
import { buildPlan, serializePlan } from '../../core/plan/plan-file';
import type { PlanFile } from '../../core/plan/plan-file';
import { planWaves } from '../../core/plan/waves';

export interface StepMs {
  /** listTables + getTables in chunks + close of the reader. */
  readonly read: number;
  readonly assess: number;
  readonly graph: number;
  readonly waves: number;
  /** buildPlan (estimates, schema check, hash) + serializePlan (canonical JSON). */
  readonly plan: number;
}

export interface PipelineOutput {
  readonly tables: number;
  readonly partitions: number;
  readonly ms: StepMs;
  readonly plan: PlanFile;
  readonly planBytes: number;
  readonly assessed: AssessResult;
  /** The warehouse as read (kept for measurements after the pipeline). */
  readonly inventory: readonly TableInventory[];
}

export async function timed<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await fn();
  return [out, performance.now() - t0];
}

/** Read `database` through `reader` (closed here), then plan it exactly as the CLI would with a default config. */
export async function runPlanPipeline(reader: HmsReader, database: string, sourceUri: string): Promise<PipelineOutput> {
  const [inventory, read] = await timed(async () => {
    try {
      return await readWarehouse(reader, [database]);
    } finally {
      await reader.close();
    }
  });
  // The config defaults: plan.assess.allowUnbucketed false, no ownership mapping, no lineage.
  const [assessed, assess] = await timed(() => assessWarehouse(inventory, { allowUnbucketed: false }, parseOwnership({})));
  const [graph, graphMs] = await timed(() => buildGraph(assessed.tables.map(toPlanTable), [...assessed.edges]));
  const [waves, wavesMs] = await timed(() => planWaves(graph, { ...DEFAULT_WAVES }));
  const header = {
    createdAt: '2026-01-01T00:00:00.000Z',
    toolVersion: toolVersion(),
    source: { uri: sourceUri, label: 'thrift' },
    targetCatalog: 'lake',
    target: null,
    throughput: DEFAULT_THROUGHPUT,
  };
  const [[plan, text], planMs] = await timed(() => {
    const p = buildPlan(header, waves);
    return [p, `${serializePlan(p)}\n`] as const;
  });
  const partitions = inventory.reduce((n, t) => n + t.partitions.length, 0);
  return {
    tables: inventory.length,
    partitions,
    ms: { read, assess, graph: graphMs, waves: wavesMs, plan: planMs },
    plan,
    planBytes: Buffer.byteLength(text),
    assessed,
    inventory,
  };
}

/** Per table, in id order: the fields two sources must agree on (wave from the plan, 0 = not planned). */
export function tableDigests(out: PipelineOutput): string[][] {
  const wave = new Map<string, number>();
  for (const w of out.plan.waves) for (const t of w.tables) wave.set(t.id, w.number);
  return out.assessed.tables.map((t) => [
    t.id,
    t.kind,
    t.class,
    t.risk,
    t.fingerprint,
    String(t.files),
    String(t.bytes),
    t.team ?? '',
    t.findings.map((f) => f.code).join(','),
    String(wave.get(t.id) ?? 0),
  ]);
}

/** Names of tableDigests' columns. */
export const DIGEST_FIELDS = ['id', 'kind', 'class', 'risk', 'fingerprint', 'files', 'bytes', 'team', 'findings', 'wave'] as const;
