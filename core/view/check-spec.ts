// The view check's pure decisions: the spec of the shipped Spark job
// jobs/view_check.py, which runs a created Iceberg view through the catalog and the Hive view's SQL
// over the Hive tables' own files and returns both sides' rows and content checksums; the order its
// inputs are registered in (every Hive view after what it reads); and what the two sides' results
// mean. Pure; no I/O. Secrets never go in a spec (S3 keys come from the job's environment).
import type { TableInventory } from '../hive/model';
import { sha256Hex } from '../hash';
import type { RewriteSpec } from '../rewrite/spec';
import { REWRITE_SERDES, rewriteSource } from '../rewrite/spec';

export const VIEW_CHECK_SPEC_VERSION = 1;

/** One relation the Hive SQL reads: a Hive table (read from its storage) or a Hive view (its own SQL). */
export type ViewCheckInput =
  | { readonly kind: 'table'; readonly name: string; readonly source: RewriteSpec['source'] }
  | { readonly kind: 'view'; readonly name: string; readonly sql: string };

export interface ViewCheckSpec {
  readonly version: typeof VIEW_CHECK_SPEC_VERSION;
  readonly jobId: string;
  /** The Iceberg view: `<catalog.name>.<namespace>.<name>`; the catalog is named as the view's default catalog. */
  readonly view: { readonly namespace: string; readonly name: string };
  /** The Hive view's SQL (expanded text), run over `inputs` registered under their Hive names. */
  readonly hiveSql: string;
  /** The Hive view's column names: the Hive side's result takes them, as Hive names a view's output. */
  readonly columns: readonly string[];
  /** Dependency order: a view comes after every relation it reads. */
  readonly inputs: readonly ViewCheckInput[];
  readonly catalog: { readonly name: string; readonly properties: Readonly<Record<string, string>> };
}

/** What one side of the check returned. */
export interface ViewCheckSide {
  readonly rows: number;
  readonly checksum: string;
}

/** The job's result file (jobs/view_check.py). */
export interface ViewCheckResult {
  readonly status: 'checked' | 'bad-spec';
  readonly iceberg?: ViewCheckSide;
  readonly hive?: ViewCheckSide;
  readonly equal?: boolean;
  readonly seconds?: number;
  readonly error?: string;
}

/** Deterministic per (plan, view): a retry overwrites the same spec/result files. */
export function viewCheckJobId(planHash: string, tableId: string): string {
  return sha256Hex(`him-view-check\n${planHash}\n${tableId}`).slice(0, 16);
}

/**
 * Every relation `root` reads, directly or through the views it reads, in dependency order (what a
 * view reads before the view; ties by name). `readsOf` maps a view to what it reads; a name absent
 * from it is a table. A cycle is reported (Hive cannot create one; a broken metastore can).
 */
export function inputOrder(
  root: string,
  readsOf: ReadonlyMap<string, readonly string[]>,
): { ok: true; order: string[] } | { ok: false; error: string } {
  const order: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (name: string): string | null => {
    if (done.has(name)) return null;
    if (path.includes(name)) return `views read each other: ${[...path.slice(path.indexOf(name)), name].join(' → ')}`;
    path.push(name);
    for (const r of [...(readsOf.get(name) ?? [])].sort()) {
      const e = visit(r);
      if (e !== null) return e;
    }
    path.pop();
    done.add(name);
    if (name !== root) order.push(name);
    return null;
  };
  const error = visit(root);
  return error === null ? { ok: true, order } : { ok: false, error };
}

const isView = (inv: TableInventory): boolean => inv.table.tableType === 'VIRTUAL_VIEW';
const sqlOf = (inv: TableInventory): string => inv.table.viewExpandedText ?? inv.table.viewOriginalText ?? '';
const nameOf = (inv: TableInventory): string => `${inv.table.database}.${inv.table.name}`.toLowerCase();

/** Why the job cannot read this input as Hive does (null: it can). */
export function inputRefusal(inv: TableInventory): string | null {
  const name = nameOf(inv);
  if (isView(inv)) return sqlOf(inv).trim() === '' ? `${name} is a view without SQL text` : null;
  const lib = inv.table.sd.serde.serializationLib ?? '';
  if (REWRITE_SERDES[lib] === undefined) return `${name}: serde ${lib || '(none)'} is not one the job reads`;
  const other = inv.partitions.find((p) => (p.sd.serde.serializationLib ?? lib) !== lib);
  if (other !== undefined) return `${name}: partition ${other.name} uses another serde`;
  if (inv.table.sd.location === null && inv.table.partitionKeys.length === 0) return `${name} has no location`;
  return null;
}

export interface ViewCheckSpecInput {
  readonly planHash: string;
  readonly tableId: string;
  readonly view: TableInventory;
  /** Every input, in dependency order (inputOrder). */
  readonly inputs: readonly TableInventory[];
  readonly target: { readonly namespace: string; readonly name: string };
  /** The view's default catalog (the plan's target catalog name): the Spark SQL's names resolve there. */
  readonly catalogName: string;
  readonly catalogProperties: Readonly<Record<string, string>>;
}

/** The job's spec, or why the check cannot run (an input the job does not read). */
export function viewCheckSpec(i: ViewCheckSpecInput): { ok: true; spec: ViewCheckSpec } | { ok: false; why: string } {
  const refusals = [i.view, ...i.inputs].map(inputRefusal).filter((r): r is string => r !== null);
  if (refusals.length > 0) return { ok: false, why: refusals.join('; ') };
  const inputs = i.inputs.map(
    (inv): ViewCheckInput =>
      isView(inv)
        ? { kind: 'view', name: nameOf(inv), sql: sqlOf(inv) }
        : { kind: 'table', name: nameOf(inv), source: rewriteSource(inv, nameOf(inv)) },
  );
  return {
    ok: true,
    spec: {
      version: VIEW_CHECK_SPEC_VERSION,
      jobId: viewCheckJobId(i.planHash, i.tableId),
      view: { namespace: i.target.namespace, name: i.target.name },
      hiveSql: sqlOf(i.view),
      columns: i.view.table.sd.columns.map((c) => c.name),
      inputs,
      catalog: { name: i.catalogName, properties: { ...i.catalogProperties } },
    },
  };
}

/** Both sides ran: equal only when rows and checksums both agree (and neither side is missing). */
export function viewCheckEqual(r: ViewCheckResult): boolean {
  return (
    r.status === 'checked' &&
    r.iceberg !== undefined &&
    r.hive !== undefined &&
    r.iceberg.rows === r.hive.rows &&
    r.iceberg.checksum !== '' &&
    r.iceberg.checksum === r.hive.checksum
  );
}
