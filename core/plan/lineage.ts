// Declared lineage (jobs that read and write tables, as exported from Spark/Trino/Flink) into
// dependency edges. The caller parses the YAML text; this validates the resulting value against a
// strict schema with path-precise errors (`jobs[3].reads[0]: expected db.table`). Pure; no I/O.
import { z } from 'zod';
import { ErrorCode } from '../errors';
import type { PlanEdge } from './types';
import { issuesError } from './types';
import { compareIds } from './compare-ids';

const tableRef = z.string().regex(/^[^.\s]+\.[^.\s]+$/, 'expected db.table');

export const lineageSchema = z
  .object({
    version: z.literal(1),
    jobs: z.array(z.object({ name: z.string().min(1), reads: z.array(tableRef), writes: z.array(tableRef) }).strict()),
  })
  .strict();
export type Lineage = z.output<typeof lineageSchema>;

/** Validate a parsed lineage document; LINEAGE_INVALID names every failing path. */
export function parseLineage(doc: unknown, label = 'lineage'): Lineage {
  const r = lineageSchema.safeParse(doc);
  if (r.success) return r.data;
  throw issuesError(`invalid ${label}`, r.error.issues, () => ErrorCode.LINEAGE_INVALID);
}

/**
 * Every table a job writes depends on every table it reads (edge read → write). Names are
 * lower-cased (Hive identifiers are case-insensitive and HMS stores them lower-case). A job that
 * reads and writes the same table (incremental/merge jobs) adds no self-edge: that is not an
 * ordering constraint between tables. Result: one edge per pair, sorted.
 */
export function lineageEdges(lineage: Lineage): PlanEdge[] {
  const seen = new Set<string>();
  const edges: PlanEdge[] = [];
  for (const job of lineage.jobs) {
    for (const w of job.writes) {
      const to = w.toLowerCase();
      for (const r of job.reads) {
        const from = r.toLowerCase();
        const key = `${from}\u0000${to}`;
        if (from === to || seen.has(key)) continue;
        seen.add(key);
        edges.push({ from, to, reason: 'lineage' });
      }
    }
  }
  return edges.sort((a, b) => compareIds(a.from, b.from) || compareIds(a.to, b.to));
}
