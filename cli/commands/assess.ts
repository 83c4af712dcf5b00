// `migrate assess`: read every table over Thrift, run the assessment rules (core/plan/assess) and
// print each table's class with its coded findings. Also the shared front half of `migrate plan`:
// inventory → assessment → PlanTables + view edges.
import type { Command } from 'commander';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { HmsReader, TableInventory } from '../../core/hive/model';
import { assessTable } from '../../core/plan/assess/assess';
import type { Assessment } from '../../core/plan/assess/assess';
import { AssessCode, finding } from '../../core/plan/assess/types';
import type { AssessFinding, AssessOptions } from '../../core/plan/assess/types';
import { sharedLocationFindings } from '../../core/plan/assess/shared-locations';
import { tableFingerprint } from '../../core/hive/fingerprint';
import { parseOwnership, teamOf } from '../../core/plan/ownership';
import type { Ownership } from '../../core/plan/ownership';
import type { PlanEdge, PlanTable } from '../../core/plan/types';
import { compareIds } from '../../core/plan/types';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { viewDependencies } from '../../adapters/sql/view-deps';
import { sampleStorage } from '../../activities/assess/storage-sample';
import { targetCatalogFindings } from '../../activities/assess/catalog-presence';
import { openCatalog, openStores } from '../runtime';
import { loadConfig } from '../config';
import { ExitCode } from '../exit-codes';

const CHUNK = 200;

export interface AssessedTable extends Assessment {
  readonly team: string | null;
  /** sha256 of the canonical JSON of the table and its partitions as read. */
  readonly fingerprint: string;
  /** Views: the tables the SQL reads. */
  readonly reads: readonly string[];
}

export interface AssessResult {
  readonly tables: readonly AssessedTable[];
  readonly edges: readonly PlanEdge[];
}

const isNotFound = (e: unknown): boolean => e instanceof MigrationError && e.code === ErrorCode.HMS_NOT_FOUND;

/** Every table (with partitions) of `only` (or all databases), database by database, in chunks. */
export async function readWarehouse(reader: HmsReader, only: readonly string[]): Promise<TableInventory[]> {
  const dbs = only.length > 0 ? [...new Set(only)] : await reader.listDatabases();
  const out: TableInventory[] = [];
  for (const db of dbs) {
    const names = await reader.listTables(db).catch((e: unknown) => (only.length === 0 && isNotFound(e) ? [] : Promise.reject(e)));
    for (let i = 0; i < names.length; i += CHUNK) out.push(...(await reader.getTables(db, names.slice(i, i + CHUNK))));
  }
  return out;
}

function assessOne(t: TableInventory, options: AssessOptions, ownership: Ownership, sampled: ReadonlyMap<string, readonly AssessFinding[]>): AssessedTable {
  let reads: readonly string[] = [];
  const extra: AssessFinding[] = [...(sampled.get(`${t.table.database}.${t.table.name}`.toLowerCase()) ?? [])];
  if (t.table.tableType === 'VIRTUAL_VIEW') {
    const deps = viewDependencies(t.table);
    reads = deps.refs;
    if (deps.error !== null) extra.push(finding(AssessCode.VIEW_SQL_UNPARSEABLE, 'warn', deps.error, 'declare the view’s inputs in the lineage file; its wave is not ordered after them'));
  }
  const a = assessTable(t, options, extra);
  return { ...a, team: teamOf(t.table, ownership), fingerprint: tableFingerprint(t), reads };
}

/**
 * Pure over the inventory: assessments sorted by id, and one view edge per (source, view). Findings
 * that need the whole inventory (LOCATION_SHARED) join the outside ones per table.
 */
export function assessWarehouse(inventory: readonly TableInventory[], options: AssessOptions, ownership: Ownership, sampled: ReadonlyMap<string, readonly AssessFinding[]> = new Map()): AssessResult {
  const extra = new Map<string, readonly AssessFinding[]>(sampled);
  for (const [id, fs] of sharedLocationFindings(inventory)) extra.set(id, [...fs, ...(extra.get(id) ?? [])]);
  const tables = inventory.map((t) => assessOne(t, options, ownership, extra)).sort((a, b) => compareIds(a.id, b.id));
  const edges: PlanEdge[] = tables.flatMap((t) => t.reads.map((from): PlanEdge => ({ from, to: t.id, reason: 'view' })));
  return { tables, edges };
}

export function toPlanTable(a: AssessedTable): PlanTable {
  return { id: a.id, database: a.database, name: a.name, team: a.team, kind: a.kind, class: a.class, files: a.files, bytes: a.bytes, risk: a.risk, fingerprint: a.fingerprint };
}

/**
 * Findings the HMS metadata cannot give: the storage sample's and the target catalog's (tables
 * whose target name is already taken), merged by table id.
 */
export async function outsideFindingsFor(cfg: MigrateConfig, inventory: readonly TableInventory[]): Promise<Map<string, AssessFinding[]>> {
  // Independent reads (object store, catalog): side by side.
  const [out, inCatalog] = await Promise.all([sampleStorageFor(cfg, inventory), targetCatalogFor(cfg, inventory)]);
  for (const [id, fs] of inCatalog) out.set(id, [...(out.get(id) ?? []), ...fs]);
  return out;
}

/**
 * The target catalog's findings, when one is configured. An in-place Hive catalog converts the
 * source table itself (a converted one is ALREADY_ICEBERG already), so there is nothing to list.
 */
export async function targetCatalogFor(cfg: MigrateConfig, inventory: readonly TableInventory[]): Promise<Map<string, AssessFinding[]>> {
  const c = cfg.catalog;
  if (c === undefined || (c.type === 'hive' && c.mode === 'in-place')) return new Map();
  let catalog: Awaited<ReturnType<typeof openCatalog>> | undefined;
  try {
    catalog = await openCatalog(cfg);
    return await targetCatalogFindings(catalog, inventory, c.namespacePrefix ?? '');
  } catch (e) {
    if (!(e instanceof MigrationError)) throw e;
    throw new MigrationError(e.code, `${e.message} (the target catalog ${c.name} is read to leave out the tables it already holds: check catalog.uri, or its credentials)`, e.context, { cause: e });
  } finally {
    await catalog?.close?.();
  }
}

/** Storage facts for the assessment (sub-directories, INT96), when storage is configured and sampling is on. */
export async function sampleStorageFor(cfg: MigrateConfig, inventory: readonly TableInventory[]): Promise<Map<string, AssessFinding[]>> {
  const files = cfg.plan?.assess.sampleFiles ?? 3;
  if (files === 0 || cfg.storage?.s3 === undefined) return new Map();
  const stores = openStores(cfg);
  try {
    return await sampleStorage(stores.storeFor([]), inventory, { filesPerTable: files });
  } finally {
    stores.close();
  }
}

export function openThrift(cfg: MigrateConfig): ThriftHmsReader {
  if (!cfg.hms) throw new MigrationError(ErrorCode.USAGE, 'this command needs an HMS: set hms.thrift.uri in the config (see migrate.example.yaml)');
  const t = cfg.hms.thrift;
  return new ThriftHmsReader({ uri: t.uri, connectTimeoutMs: t.connectTimeoutMs, callTimeoutMs: t.callTimeoutMs, callsPerSecond: 200 });
}

/** Config → options, validated up front (a bad ownership mapping fails before HMS is read). */
export function assessSettings(cfg: MigrateConfig): { options: AssessOptions; ownership: Ownership } {
  const plan = cfg.plan;
  return { options: { allowUnbucketed: plan?.assess.allowUnbucketed ?? false }, ownership: withPrefix('plan.ownership', () => parseOwnership(plan?.ownership ?? {})) };
}

/** Re-throw a core validation error with its paths under the config section it came from. */
export function withPrefix<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof MigrationError)) throw e;
    const paths = Array.isArray(e.context.paths) ? (e.context.paths as string[]) : [];
    let message = e.message;
    for (const p of paths) message = message.replace(new RegExp(`(^|\\n)${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`), `$1${prefix}.${p}:`);
    throw new MigrationError(e.code, message, { ...e.context, paths: paths.map((p) => `${prefix}.${p}`) });
  }
}

export async function runAssess(cfg: MigrateConfig, databases: readonly string[]): Promise<AssessResult> {
  const { options, ownership } = assessSettings(cfg);
  const reader = openThrift(cfg);
  try {
    const inventory = await readWarehouse(reader, databases.length > 0 ? databases : (cfg.plan?.databases ?? []));
    return assessWarehouse(inventory, options, ownership, await outsideFindingsFor(cfg, inventory));
  } finally {
    await reader.close();
  }
}

export function renderAssess(r: AssessResult): string {
  const lines: string[] = [];
  const counts = new Map<string, number>();
  for (const t of r.tables) {
    counts.set(t.class, (counts.get(t.class) ?? 0) + 1);
    lines.push(`${t.id.padEnd(40)} ${t.kind.padEnd(5)} ${t.class.padEnd(22)} ${t.team ?? '-'}`);
    for (const f of t.findings) lines.push(`    ${f.severity.padEnd(7)} ${f.code}: ${f.evidence}\n            → ${f.remediation}`);
  }
  const summary = [...counts.entries()].sort(([a], [b]) => compareIds(a, b)).map(([c, n]) => `${c} ${n}`).join(' · ');
  lines.push('', `${r.tables.length} tables: ${summary || 'none'}`, 'next: migrate plan --out plan.json --report plan.md --graph plan.svg');
  return `${lines.join('\n')}\n`;
}

interface GlobalOpts {
  config?: string;
  set: string[];
}
const collect = (v: string, prev: string[]): string[] => [...prev, v];

export function registerAssess(program: Command, io: { out: (s: string) => void; setExit: (c: number) => void }): void {
  program
    .command('assess')
    .description('classify every HMS table (migrate / migrate-with-warnings / rewrite-required / skip) with coded findings')
    .option('--database <name>', 'only this database (repeatable)', collect, [])
    .option('--json', 'machine-readable output')
    .addHelpText('after', `
Examples:
  migrate assess --config migrate.yaml
  migrate assess -c migrate.yaml --database sales --json

Exit codes: 0 assessed (whatever the classes); 1 HMS cannot be read; 2 bad configuration.`)
    .action(async (opts: { database: string[]; json?: boolean }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      const { config } = loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() });
      const r = await runAssess(config, opts.database);
      io.out(opts.json ? `${JSON.stringify({ ok: true, tables: r.tables, edges: r.edges }, null, 2)}\n` : renderAssess(r));
      io.setExit(ExitCode.OK);
    });
}
