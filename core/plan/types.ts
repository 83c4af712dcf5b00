// The planner's input model (tables already assessed, dependency edges) and its findings, plus the
// one helper that turns zod issues into path-precise MigrationErrors. Pure; no I/O.
import { z } from 'zod';
import { ErrorCode, MigrationError } from '../errors';
import type { PlannedPartitions } from './partition-set';
import type { Risk, TableKind } from '../assess/types';
import { TableClass } from '../assess/types';

/** `database.table`, lower-case as HMS stores it. */
export type TableId = string;

/** The conversion pin's shape (plan file version 3; what it holds and how it is made: pin.ts). */
const pinColumnSchema = z.object({ name: z.string(), type: z.string() }).strict();

export const conversionPinSchema = z
  .object({
    tableType: z.string(),
    columns: z.array(pinColumnSchema),
    partitionKeys: z.array(pinColumnSchema),
    location: z.string().nullable(),
    /** The table's file format as core/hive/formats.ts detects it. */
    format: z.string(),
    /** The formats its partitions have other than `format`, distinct and sorted (usually []). */
    partitionFormats: z.array(z.string()),
    inputFormat: z.string().nullable(),
    outputFormat: z.string().nullable(),
    serde: z.string().nullable(),
    bucketing: z.object({ buckets: z.number().int(), columns: z.array(z.string()) }).strict(),
    /** A view's expanded text (null for tables). */
    viewText: z.string().nullable(),
    /** The per-table rules' class and codes (default options), without the data-volume codes (VOLUME_CODES). */
    assessment: z
      .object({
        class: z.enum([TableClass.MIGRATE, TableClass.MIGRATE_WITH_WARNINGS, TableClass.REWRITE_REQUIRED, TableClass.SKIP]),
        findings: z.array(z.string()),
      })
      .strict(),
  })
  .strict();
export type ConversionPin = z.output<typeof conversionPinSchema>;

/** One table as the planner sees it: the assessment's verdict plus what sizes a wave. */
export interface PlanTable {
  readonly id: TableId;
  readonly database: string;
  readonly name: string;
  readonly team: string | null;
  readonly kind: TableKind;
  readonly class: TableClass;
  readonly files: number;
  readonly bytes: number;
  readonly risk: Risk;
  /** Source fingerprint from inventory, so `apply` can refuse when HMS changed since planning. */
  readonly fingerprint: string;
  /** What decides the conversion (core/plan/pin.ts); apply compares it with the live table's. Absent: not pinned. */
  readonly pin?: ConversionPin | null;
  /** The partitions seen (core/plan/partition-set.ts), so apply can name the ones added since. */
  readonly partitions?: PlannedPartitions | null;
  /** A rewrite-required table the rewrite job can take (core/rewrite/spec.ts `rewritable`); planned only with `rewrite`. */
  readonly rewritable?: boolean;
}

/** `to` must not migrate before `from` (`to` reads `from`: a view, or a job's write of its read). */
export interface PlanEdge {
  readonly from: TableId;
  readonly to: TableId;
  readonly reason: 'view' | 'lineage';
}

/** Findings are reported in the plan, never thrown: the plan is still made. */
export const FindingCode = {
  /** A strongly connected set of tables (or a self-reference); planned together in one wave. */
  CYCLE: 'CYCLE',
  /** An edge names a table that is not in the inventory; the edge is ignored. */
  UNKNOWN_EDGE_ENDPOINT: 'UNKNOWN_EDGE_ENDPOINT',
  /** A planned table reads a table that is not planned (excluded, out of scope, skip, rewrite). */
  DEPENDENCY_NOT_PLANNED: 'DEPENDENCY_NOT_PLANNED',
  /** A dependency cycle exceeds a wave cap by itself; it gets a wave of its own. */
  OVERSIZE_COMPONENT: 'OVERSIZE_COMPONENT',
  /** Honouring a pin (or a dependency of a pinned table) made a wave exceed a cap. */
  PIN_OVER_CAP: 'PIN_OVER_CAP',
  /** Fewer canary tables qualified than asked for. */
  CANARY_SHORT: 'CANARY_SHORT',
} as const;
export type FindingCode = (typeof FindingCode)[keyof typeof FindingCode];

export interface Finding {
  readonly code: FindingCode;
  readonly severity: 'info' | 'warning';
  readonly message: string;
  /** The tables concerned, sorted. */
  readonly tables: readonly TableId[];
}

/** Why a known table is not in any wave. */
export const NotPlannedReason = {
  EXCLUDED: 'EXCLUDED',
  OUT_OF_SCOPE: 'OUT_OF_SCOPE',
  CLASS_SKIP: 'CLASS_SKIP',
  CLASS_REWRITE_REQUIRED: 'CLASS_REWRITE_REQUIRED',
} as const;
export type NotPlannedReason = (typeof NotPlannedReason)[keyof typeof NotPlannedReason];

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `jobs[3].reads[0]`, `pins["db.t"]`: the path the way a user would point at it in YAML/JSON. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const s = String(key);
      out += IDENT.test(s) ? (out === '' ? s : `.${s}`) : `[${JSON.stringify(s)}]`;
    }
  }
  return out === '' ? '(root)' : out;
}

/** One MigrationError naming every failing path; `codeFor` may pick a code per path. */
export function issuesError(what: string, issues: readonly z.core.$ZodIssue[], codeFor: (path: string) => ErrorCode): MigrationError {
  const paths = issues.map((i) => formatPath(i.path));
  const lines = issues.map((i, n) => `${paths[n] ?? ''}: ${i.message}`);
  const code = codeFor(paths[0] ?? '');
  return new MigrationError(code, `${what}:\n${lines.join('\n')}`, { paths });
}

/** A string that compiles as a JavaScript regular expression (scope and ownership patterns). */
export const regexSchema = z.string().refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'not a valid regular expression');
const regex = regexSchema;
const cap = z.number().int().min(1);

/**
 * Wave planning options. Caps are hard limits per wave; `teamBlastRadiusPct` K means no wave
 * holds more than max(1, ceil(K% of a team's planned tables)); scope regexes are unanchored and
 * matched against `db.table`; pins are wave numbers (1 = the canary wave when there is one).
 */
export const waveOptionsSchema = z
  .object({
    /** Tables per wave at most. */
    maxTablesPerWave: cap,
    /** Data files per wave at most. */
    maxFilesPerWave: cap,
    /** Bytes of data per wave at most. */
    maxBytesPerWave: cap,
    /** A first, small wave: `tables` at most, from `teams` when given (null: no canary). */
    canary: z
      .object({ tables: cap, teams: z.array(z.string()).optional() })
      .strict()
      .nullable()
      .default(null),
    /** No wave holds more than max(1, ceil(K% of a team's planned tables)). */
    teamBlastRadiusPct: z.number().gt(0).max(100).default(100),
    /** `db.table` → the wave it must go in (1 = the canary wave when there is one). */
    pins: z.record(z.string(), cap).default({}),
    /** `db.table` names left out of the plan. */
    excludes: z.array(z.string()).default([]),
    /** What to plan: databases, and unanchored regexes over `db.table` to include and exclude. */
    scope: z
      .object({
        /** Only these databases. */
        databases: z.array(z.string()).optional(),
        /** Only tables whose `db.table` matches one of these. */
        include: z.array(regex).optional(),
        /** Leave out tables whose `db.table` matches one of these. */
        exclude: z.array(regex).optional(),
      })
      .strict()
      .default({}),
    /**
     * The rewrite path (`migrate plan --rewrite`, config `rewrite.enabled`): rewrite-required tables
     * the shipped Spark job reads are planned (their entry keeps class rewrite-required: apply rewrites them).
     */
    rewrite: z.boolean().optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.canary && o.canary.tables > o.maxTablesPerWave) {
      ctx.addIssue({
        code: 'custom',
        path: ['canary', 'tables'],
        message: `canary of ${o.canary.tables} tables exceeds maxTablesPerWave ${o.maxTablesPerWave}`,
      });
    }
  });
export type WaveOptions = z.output<typeof waveOptionsSchema>;
export type WaveOptionsInput = z.input<typeof waveOptionsSchema>;

const CAP_PATHS = /^(maxTablesPerWave|maxFilesPerWave|maxBytesPerWave|teamBlastRadiusPct|canary\.tables)$/;

/** Validate options; a bad cap is PLAN_CONTRADICTORY_CAPS, anything else PLAN_INVALID, each with its path. */
export function parseWaveOptions(input: unknown): WaveOptions {
  const r = waveOptionsSchema.safeParse(input);
  if (r.success) return r.data;
  return throwIssues('invalid wave options', r.error.issues, (p) =>
    CAP_PATHS.test(p) ? ErrorCode.PLAN_CONTRADICTORY_CAPS : ErrorCode.PLAN_INVALID,
  );
}

function throwIssues(what: string, issues: readonly z.core.$ZodIssue[], codeFor: (path: string) => ErrorCode): never {
  throw issuesError(what, issues, codeFor);
}
