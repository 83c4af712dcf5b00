// `migrate inventory`: what the Hive Metastore holds — per database, tables by kind and file
// format, and partitions — read over Thrift (default) or straight from the HMS backing database
// (--source db, config hms.db.url). A progress bar goes to stderr on long runs at a terminal.
import type { Command } from 'commander';
import { Option } from 'commander';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import { detectFormat } from '../../core/hive/formats';
import type { HmsReader, TableInventory } from '../../core/hive/model';
import { TableType } from '../../core/hive/model';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import type { MethodStats } from '../../adapters/hms/thrift/client';
import { PostgresHmsReader } from '../../adapters/hms/db/postgres';
import { MysqlHmsReader } from '../../adapters/hms/db/mysql';
import { redactUrl } from '../../adapters/hms/db/session';
import { loadConfig } from '../config';
import { ExitCode } from '../exit-codes';
import { FLAG_RANGES, intFlag } from '../flags';

export type InventorySource = 'thrift' | 'db';

export interface Counts {
  tables: number;
  partitions: number;
  /** Table type (MANAGED_TABLE, EXTERNAL_TABLE, VIRTUAL_VIEW, …) → count. */
  byKind: Record<string, number>;
  /** File format of tables that hold data (views excluded) → count. */
  byFormat: Record<string, number>;
}

export interface DatabaseCounts extends Counts {
  readonly name: string;
}

export interface InventoryReport {
  readonly source: InventorySource;
  readonly endpoint: string;
  readonly elapsedMs: number;
  readonly databases: DatabaseCounts[];
  readonly totals: Counts;
  /** Thrift only: calls per method with latencies. */
  readonly calls?: Record<string, MethodStats>;
}

export interface Progress {
  update(done: number, total: number, label: string): void;
  end(): void;
}

/** Tables per getTables call: bounds memory (a chunk's partitions) and paces the progress bar. */
const TABLE_CHUNK = 200;

const emptyCounts = (): Counts => ({ tables: 0, partitions: 0, byKind: {}, byFormat: {} });
const bump = (m: Record<string, number>, k: string, n = 1): void => void (m[k] = (m[k] ?? 0) + n);

function add(into: Counts, t: TableInventory): void {
  into.tables += 1;
  into.partitions += t.partitions.length;
  bump(into.byKind, t.table.tableType);
  const view = t.table.tableType === TableType.VIRTUAL_VIEW;
  if (!view) bump(into.byFormat, detectFormat(t.table.sd, t.table.parameters));
}

function merge(into: Counts, c: Counts): void {
  into.tables += c.tables;
  into.partitions += c.partitions;
  for (const [k, n] of Object.entries(c.byKind)) bump(into.byKind, k, n);
  for (const [k, n] of Object.entries(c.byFormat)) bump(into.byFormat, k, n);
}

/** Count everything `reader` sees in `only` (or every database). Unknown names → HMS_NOT_FOUND. */
export async function runInventory(reader: HmsReader, only: readonly string[], progress?: Progress): Promise<{ databases: DatabaseCounts[]; totals: Counts }> {
  const names = only.length > 0 ? [...new Set(only)] : await reader.listDatabases();
  const plan: { db: string; tables: string[] }[] = [];
  for (const db of names) {
    // A database dropped since it was listed is skipped; one the user named is an error.
    const tables = await reader.listTables(db).catch((e: unknown) => (only.length === 0 && isNotFound(e) ? undefined : Promise.reject(e)));
    if (tables !== undefined) plan.push({ db, tables });
  }
  const total = plan.reduce((n, p) => n + p.tables.length, 0);
  let done = 0;
  const databases: DatabaseCounts[] = [];
  const totals = emptyCounts();
  try {
    for (const { db, tables } of plan) {
      const counts = emptyCounts();
      for (let i = 0; i < tables.length; i += TABLE_CHUNK) {
        const chunk = tables.slice(i, i + TABLE_CHUNK);
        for (const t of await tablesStillThere(reader, db, chunk)) add(counts, t);
        done += chunk.length;
        progress?.update(done, total, db);
      }
      databases.push({ name: db, ...counts });
      merge(totals, counts);
    }
  } finally {
    progress?.end();
  }
  return { databases, totals };
}

const isNotFound = (e: unknown): e is MigrationError => e instanceof MigrationError && e.code === ErrorCode.HMS_NOT_FOUND;

/** getTables, leaving out tables dropped since they were listed (a live HMS changes under us). */
async function tablesStillThere(reader: HmsReader, db: string, names: readonly string[]): Promise<TableInventory[]> {
  let left = [...names];
  for (;;) {
    try {
      return await reader.getTables(db, left);
    } catch (e) {
      // The Thrift reader names one missing table (context.table), the DB reader all (context.tables).
      const ctx = isNotFound(e) ? e.context : {};
      const gone = [ctx.table, ...(Array.isArray(ctx.tables) ? ctx.tables : [])].filter((n): n is string => typeof n === 'string' && left.includes(n));
      if (gone.length === 0) throw e;
      left = left.filter((n) => !gone.includes(n));
    }
  }
}

/** A one-line bar on a TTY, shown only once a run has lasted `delayMs`; nothing otherwise. */
export function ttyProgress(stream: NodeJS.WriteStream, delayMs = 1_000): Progress {
  const t0 = Date.now();
  let drawn = false;
  return {
    update(done, total, label) {
      if (!stream.isTTY || Date.now() - t0 < delayMs) return;
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(`\r\x1b[2Kinventory [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} tables · ${label}`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}

async function openReader(cfg: MigrateConfig, source: InventorySource, callsPerSecond: number): Promise<{ reader: HmsReader; endpoint: string }> {
  if (!cfg.hms) throw new MigrationError(ErrorCode.USAGE, 'inventory needs an HMS: set hms.thrift.uri in the config (see migrate.example.yaml)');
  if (source === 'thrift') {
    const t = cfg.hms.thrift;
    return { reader: new ThriftHmsReader({ uri: t.uri, connectTimeoutMs: t.connectTimeoutMs, callTimeoutMs: t.callTimeoutMs, callsPerSecond }), endpoint: t.uri };
  }
  const url = cfg.hms.db?.url;
  if (url === undefined) throw new MigrationError(ErrorCode.USAGE, '--source db needs hms.db.url in the config (postgres://… or mysql://… of the HMS backing database)');
  const opts = { connectTimeoutMs: cfg.hms.thrift.connectTimeoutMs, queryTimeoutMs: cfg.hms.thrift.callTimeoutMs, parallel: cfg.hms.db?.connections ?? 2 };
  const reader = /^postgres(ql)?:/.test(url) ? await PostgresHmsReader.open(url, opts) : await MysqlHmsReader.open(url.replace(/^mariadb:/, 'mysql:'), opts);
  return { reader, endpoint: redactUrl(url) };
}

export async function inventory(cfg: MigrateConfig, o: { source: InventorySource; databases: readonly string[]; callsPerSecond: number }, progress?: Progress): Promise<InventoryReport> {
  const t0 = performance.now();
  const { reader, endpoint } = await openReader(cfg, o.source, o.callsPerSecond);
  try {
    const r = await runInventory(reader, o.databases, progress);
    const calls = reader instanceof ThriftHmsReader ? reader.callStats() : undefined;
    return { source: o.source, endpoint, elapsedMs: Math.round(performance.now() - t0), ...r, ...(calls ? { calls } : {}) };
  } finally {
    await reader.close();
  }
}

const KINDS: readonly [string, string][] = [[TableType.MANAGED, 'MANAGED'], [TableType.EXTERNAL, 'EXTERNAL'], [TableType.VIRTUAL_VIEW, 'VIEWS'], [TableType.MATERIALIZED_VIEW, 'MAT_VIEWS']];

function row(name: string, c: Counts): string {
  const formats = Object.entries(c.byFormat).sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, n]) => `${f} ${n}`).join(' · ');
  const other = Object.entries(c.byKind).filter(([k]) => !KINDS.some(([t]) => t === k)).reduce((n, [, v]) => n + v, 0);
  const kinds = KINDS.map(([k, h]) => String(c.byKind[k] ?? 0).padStart(h.length)).join('  ');
  return `${name.padEnd(24)} ${String(c.tables).padStart(6)} ${String(c.partitions).padStart(10)}  ${kinds}  ${String(other).padStart(5)}  ${formats || '-'}`;
}

export function renderInventory(r: InventoryReport): string {
  const head = `${'DATABASE'.padEnd(24)} ${'TABLES'.padStart(6)} ${'PARTITIONS'.padStart(10)}  ${KINDS.map(([, h]) => h).join('  ')}  OTHER  FORMATS`;
  const lines = [
    `Inventory of ${r.endpoint} (${r.source}) in ${(r.elapsedMs / 1000).toFixed(1)} s`,
    '',
    head,
    ...r.databases.map((d) => row(d.name, d)),
    row('total', r.totals),
    '',
    `${r.totals.tables} tables and ${r.totals.partitions} partitions in ${r.databases.length} databases.`,
    'next: migrate assess (planned) classifies each table; formats other than parquet/orc/avro need a rewrite.',
  ];
  return `${lines.join('\n')}\n`;
}

interface GlobalOpts {
  config?: string;
  set: string[];
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];

/** Adds `inventory` to the program (cli/main.ts calls this). */
export function registerInventory(program: Command, io: { out: (s: string) => void; setExit: (c: number) => void }): void {
  program
    .command('inventory')
    .description('count what the Hive Metastore holds: per database, tables by kind and file format, partitions')
    .addOption(new Option('--source <source>', 'read over Thrift or straight from the HMS backing database (hms.db.url)').choices(['thrift', 'db']).default('thrift'))
    .option('--database <name>', 'only this database (repeatable)', collect, [])
    .option('--json', 'machine-readable output')
    .option('--calls-per-second <n>', `Thrift calls per second at most (protects a production HMS; 0 = no limit; at most ${FLAG_RANGES.callsPerSecond.max})`, intFlag('--calls-per-second', FLAG_RANGES.callsPerSecond), 200)
    .addHelpText('after', `
Examples:
  migrate inventory --config migrate.yaml
  migrate inventory -c .stack/migrate.yaml --database sales --database web --json
  migrate inventory -c prod.yaml --source db --set hms.db.url=postgres://reader@hms-db/hms

Exit codes: 0 ok; 1 the HMS cannot be read (unknown database: HMS_NOT_FOUND); 2 bad flag or configuration.`)
    .action(async (opts: { source: InventorySource; database: string[]; json?: boolean; callsPerSecond: number }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      const { config } = loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() });
      const report = await inventory(config, { source: opts.source, databases: opts.database, callsPerSecond: opts.callsPerSecond }, ttyProgress(process.stderr));
      io.out(opts.json ? `${JSON.stringify({ ok: true, ...report }, null, 2)}\n` : renderInventory(report));
      io.setExit(ExitCode.OK);
    });
}
