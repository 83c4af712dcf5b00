// The plan file (docs/architecture.md "migrate apply accepts only a plan file"): strict zod schema with
// `version: z.literal(3)`, canonical JSON, and a sha256 over the canonical JSON of everything but
// `hash` and `signature`, so any edit after planning is detected (and, with plan.signing, any edit
// at all is refused: docs/plan-signing.md). Version 2 pins the target (core/plan/target.ts); version 3
// pins each table's conversion (core/plan/pin.ts) and summarises its partitions (partition-set.ts).
// Pure; no I/O; time comes in as `createdAt`.
import { z } from 'zod';
import { ErrorCode, MigrationError } from '../errors';
import { estimateWave, parseThroughput, throughputSchema } from './estimates';
import type { Throughput } from './estimates';
import { canonicalJson, sha256Hex } from '../hash';
import { MAX_PLAN_TABLES, MAX_WAVES, MAX_WAVE_NUMBER, checkJsonDepth, checkPlanTree } from './plan-limits';
import { plannedPartitionsSchema } from './partition-set';
import { conversionPinSchema } from './types';
import { planSignatureSchema } from './signing';
import { planTargetSchema } from './target';
import type { PlanTarget } from './target';
import type { PlanDocument } from './upgrade';
import { upgradePlanDocument } from './upgrade';
import type { WavePlan } from './waves';
import { FindingCode, NotPlannedReason, issuesError, waveOptionsSchema } from './types';
import { TableClass } from '../assess/types';

/** Safe integers only (zod's int()): counts never lose precision or overflow. */
const count = z.number().int().nonnegative();
/** `db.table`: exactly one dot, no whitespace or control characters (as lineage and ownership read ids). */
const tableId = z
  .string()
  .max(512)
  .regex(/^[^.\s\p{Cc}]+\.[^.\s\p{Cc}]+$/u, 'expected db.table')
  // HMS keeps database and table names in lower case and compares them so: an id in another case
  // would name a new catalog namespace while the real table is missed.
  .refine((id) => id === id.toLowerCase(), { message: 'expected db.table in lower case, as HMS stores names' });
const values = <T extends Record<string, string>>(o: T): [T[keyof T], ...T[keyof T][]] => Object.values(o) as [T[keyof T], ...T[keyof T][]];

const planTableSchema = z
  .object({
    id: tableId,
    team: z.string().nullable(),
    class: z.enum(values(TableClass)),
    fingerprint: z.string(),
    files: count,
    bytes: count,
    /** What decides the conversion; null = not pinned (an upgraded version 2 plan: apply checks `fingerprint`). */
    pin: conversionPinSchema.nullable(),
    /** The partitions the plan saw (count, names digest, newest createTime); null in an upgraded version 2 plan. */
    partitions: plannedPartitionsSchema.nullable(),
  })
  .strict();

const waveSchema = z
  .object({
    number: z.number().int().min(1).max(MAX_WAVE_NUMBER),
    tables: z.array(planTableSchema).min(1, 'a wave has at least one table').max(MAX_PLAN_TABLES),
    estimates: z.object({ files: count, bytes: count, expectedSeconds: count }).strict(),
  })
  .strict();

/**
 * What the plan's report and graph are rendered from besides the waves (`migrate plan --report/--graph`,
 * and `migrate show` from the saved plan, byte for byte): every assessed table's class, kind and
 * finding codes, and the dependency edges. Optional: plans made without it show nothing more.
 */
export const planReviewSchema = z
  .object({
    tables: z
      .array(
        z.object({ id: z.string(), class: z.string(), kind: z.enum(['table', 'view']).optional(), codes: z.array(z.string()) }).strict(),
      )
      .max(2 * MAX_PLAN_TABLES),
    edges: z.array(z.object({ from: z.string(), to: z.string(), reason: z.enum(['view', 'lineage']) }).strict()),
  })
  .strict();
export type PlanReview = z.output<typeof planReviewSchema>;

const findingSchema = z
  .object({ code: z.enum(values(FindingCode)), severity: z.enum(['info', 'warning']), message: z.string(), tables: z.array(z.string()) })
  .strict();

export const planFileSchema = z
  .object({
    version: z.literal(3),
    createdAt: z.iso.datetime(),
    toolVersion: z.string().min(1),
    source: z.object({ uri: z.string().min(1), label: z.string() }).strict(),
    targetCatalog: z.string().min(1),
    /** Where tables go, from the config at plan time; null = not pinned (upgraded v1 plan, or no catalog configured). */
    target: planTargetSchema.nullable(),
    options: waveOptionsSchema,
    throughput: throughputSchema,
    waves: z.array(waveSchema).max(MAX_WAVES),
    notPlanned: z.array(z.object({ id: tableId, reason: z.enum(values(NotPlannedReason)) }).strict()).max(MAX_PLAN_TABLES),
    findings: z.array(findingSchema),
    review: planReviewSchema.optional(),
    hash: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits'),
    /** Present when plan.signing was configured at plan time; not covered by `hash` (it signs it). */
    signature: planSignatureSchema.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    let planned = 0;
    p.waves.forEach((w, i) => {
      const prev = p.waves[i - 1];
      if (prev && prev.number >= w.number)
        ctx.addIssue({ code: 'custom', path: ['waves', i, 'number'], message: 'wave numbers must increase' });
      planned += w.tables.length;
      w.tables.forEach((t, j) => {
        if (seen.has(t.id)) ctx.addIssue({ code: 'custom', path: ['waves', i, 'tables', j, 'id'], message: `${t.id} appears twice` });
        seen.add(t.id);
      });
    });
    if (planned > MAX_PLAN_TABLES)
      ctx.addIssue({ code: 'custom', path: ['waves'], message: `more than ${MAX_PLAN_TABLES} planned tables` });
    const unplanned = new Set<string>();
    p.notPlanned.forEach((n, i) => {
      if (seen.has(n.id))
        ctx.addIssue({ code: 'custom', path: ['notPlanned', i, 'id'], message: `${n.id} is both in a wave and not planned` });
      else if (unplanned.has(n.id)) ctx.addIssue({ code: 'custom', path: ['notPlanned', i, 'id'], message: `${n.id} appears twice` });
      unplanned.add(n.id);
    });
  });

export type PlanFile = z.output<typeof planFileSchema>;
export type UnhashedPlan = Omit<PlanFile, 'hash' | 'signature'>;

export interface PlanHeader {
  /** ISO-8601 instant, passed in (core has no clock). */
  readonly createdAt: string;
  readonly toolVersion: string;
  readonly source: { readonly uri: string; readonly label: string };
  readonly targetCatalog: string;
  /** The pinned target (pinnedTarget(config)); omitted or null = not pinned. */
  readonly target?: PlanTarget | null;
  readonly throughput: unknown;
}

/** Assemble the plan document from a wave plan: per-wave estimates, table entries, findings. */
export function buildPlan(header: PlanHeader, plan: WavePlan, review?: PlanReview): PlanFile {
  const throughput: Throughput = parseThroughput(header.throughput);
  const body: UnhashedPlan = {
    version: 3,
    createdAt: header.createdAt,
    toolVersion: header.toolVersion,
    source: { uri: header.source.uri, label: header.source.label },
    targetCatalog: header.targetCatalog,
    target: header.target ?? null,
    options: plan.options,
    throughput,
    waves: plan.waves.map((w) => ({
      number: w.number,
      tables: w.tables.map((t) => ({
        id: t.id,
        team: t.team,
        class: t.class,
        fingerprint: t.fingerprint,
        files: t.files,
        bytes: t.bytes,
        pin: t.pin ?? null,
        partitions: t.partitions ?? null,
      })),
      estimates: estimateWave(w.tables, throughput),
    })),
    notPlanned: plan.notPlanned.map((n) => ({ id: n.id, reason: n.reason })),
    findings: plan.findings.map((f) => ({ code: f.code, severity: f.severity, message: f.message, tables: [...f.tables] })),
    ...(review === undefined ? {} : { review: canonicalReview(review) }),
  };
  const hash = planHash(body);
  const parsed = planFileSchema.safeParse({ ...body, hash });
  if (!parsed.success) throw issuesError('the plan does not match the plan file schema', parsed.error.issues, () => ErrorCode.PLAN_INVALID);
  return parsed.data;
}

/** The review in one order whatever order the warehouse was read in (tables by id, edges by from, to, reason). */
function canonicalReview(r: PlanReview): PlanReview {
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return {
    tables: [...r.tables]
      .sort((a, b) => cmp(a.id, b.id))
      .map((t) => ({ id: t.id, class: t.class, ...(t.kind !== undefined ? { kind: t.kind } : {}), codes: [...t.codes] })),
    edges: [...r.edges].sort((a, b) => cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.reason, b.reason)).map((e) => ({ ...e })),
  };
}

/** sha256 of the canonical JSON of the document without its `hash` and `signature` members. */
export function planHash(doc: PlanDocument | UnhashedPlan): string {
  const rest: Record<string, unknown> = { ...doc };
  delete rest['hash'];
  delete rest['signature'];
  return sha256Hex(canonicalJson(rest));
}

/** Canonical JSON (sorted keys, no whitespace) with `hash` recomputed from the content. */
export function serializePlan(plan: PlanFile | UnhashedPlan): string {
  return canonicalJson({ ...plan, hash: planHash(plan) });
}

/**
 * Read a plan file: bounded nesting, JSON, no prototype keys or infinite numbers, known version,
 * hash intact (checked on the document as written), upgraded, schema-valid. The signature, when
 * there is one, is only shape-checked here: verifyPlanSignature checks it against a key.
 */
export function parsePlan(text: string): PlanFile {
  checkJsonDepth(text);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new MigrationError(ErrorCode.PLAN_INVALID, `plan file is not JSON: ${(e as Error).message}`, { paths: ['(root)'] });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new MigrationError(ErrorCode.PLAN_INVALID, '(root): a plan file is a JSON object', { paths: ['(root)'] });
  checkPlanTree(doc);
  const record = doc as PlanDocument;
  // Version first (a future version may hash differently), then the hash over the document as
  // written; upgrades return new documents and never touch `record`.
  const upgraded = upgradePlanDocument(record);
  const recorded = record['hash'];
  if (typeof recorded !== 'string') throw new MigrationError(ErrorCode.PLAN_INVALID, 'hash: missing', { paths: ['hash'] });
  const actual = planHash(record);
  if (actual !== recorded) {
    throw new MigrationError(
      ErrorCode.PLAN_HASH_MISMATCH,
      `hash: the plan content hashes to ${actual}, not the recorded ${recorded}; it was changed after planning`,
      { paths: ['hash'], recorded, actual },
    );
  }
  const parsed = planFileSchema.safeParse(upgraded);
  if (!parsed.success) throw issuesError('invalid plan file', parsed.error.issues, () => ErrorCode.PLAN_INVALID);
  return parsed.data;
}
