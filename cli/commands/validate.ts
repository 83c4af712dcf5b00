// `migrate validate`: the nightly checks on demand, in this process (`migrate schedule …` is in
// ./schedule.ts). Exit codes of validate:
// 0 clean, 3 drift found, 1 a check could not run.
import type { IcebergCatalog } from '../../core/catalog/catalog';
import type { Command } from 'commander';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { ValidationRow } from '../../core/validate/drift';
import { runStatus } from '../../core/validate/drift';
import { mapOrdered } from '../../engine/ordered-pool';
import { checkTableDrift } from '../../engine/drift-check';
import { planId } from '../../workflows/index';
import { loadConfig } from '../config';
import { ExitCode } from '../exit-codes';
import { FLAG_RANGES, intFlag, intListFlag } from '../flags';
import { openCatalog, openHmsReader, openState, openStores, toolVersion } from '../runtime';
import { registerSchedule } from './schedule';

type IO = { out: (s: string) => void; err: (s: string) => void; setExit: (c: number) => void };
const cfg = (cmd: Command) => {
  const g = cmd.optsWithGlobals<{ config?: string; set: string[] }>();
  return loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() }).config;
};
const collect = (v: string, prev: string[]): string[] => [...prev, v];


function renderRows(rows: readonly ValidationRow[]): string {
  const bad = rows.filter((r) => r.status !== 'ok');
  const tables = new Set(rows.map((r) => r.table));
  const lines = [`${runStatus(rows)}: ${tables.size} table(s), ${rows.length} checks, ${bad.filter((r) => r.status === 'drift').length} drift, ${bad.filter((r) => r.status === 'failed').length} failed`];
  for (const r of bad) lines.push(`  ${r.status.padEnd(6)} ${r.table}  ${r.check}  ${r.code}  ${r.actual}`);
  return `${lines.join('\n')}\n`;
}

export function registerValidation(program: Command, io: IO): void {
  program
    .command('validate')
    .description('check migrated tables for drift now (same checks as the nightly schedule)')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .option('--wave <n>', 'only this wave (repeatable)', intListFlag('--wave', FLAG_RANGES.wave), [] as number[])
    .option('--table <db.t>', 'only this table (repeatable)', collect, [])
    .option('--concurrency <n>', `tables checked at once (${FLAG_RANGES.validateConcurrency.min}-${FLAG_RANGES.validateConcurrency.max})`, intFlag('--concurrency', FLAG_RANGES.validateConcurrency), 8)
    .option('--json', 'every result row as JSON')
    .addHelpText('after', '\nExamples:\n  migrate validate 3f2a9c1b7d4e -c migrate.yaml\n  migrate validate 3f2a9c1b7d4e --wave 2 --table sales.orders --json\n\nExit codes: 0 clean, 3 drift found, 1 a check could not run, 2 bad input.')
    .action(async (plan: string, opts: { wave: number[]; table: string[]; concurrency: number; json?: boolean }, cmd: Command) => {
      const config = cfg(cmd);
      const state = await openState(config);
      const hms = openHmsReader(config);
      const stores = openStores(config);
      let catalog: IcebergCatalog | undefined;
      try {
        catalog = await openCatalog(config, process.env, stores);
        const planHash = await state.resolvePlan(plan);
        const p = await state.getPlan(planHash);
        const recs = (await state.listTables(planHash)).filter((t) => t.status === 'migrated' && (opts.wave.length === 0 || opts.wave.includes(t.wave)) && (opts.table.length === 0 || opts.table.includes(t.tableId)));
        if (recs.length === 0) throw new MigrationError(ErrorCode.USAGE, `no migrated table of plan ${planId(planHash)} matches the scope`);
        const runId = `${planId(planHash)}-cli-${Date.now()}`;
        const rows: ValidationRow[] = [];
        const deps = { hms, catalog, storeFor: stores.storeFor, namespacePrefix: config.catalog?.namespacePrefix ?? '', toolVersion: toolVersion() };
        for await (const r of mapOrdered(recs, opts.concurrency, (rec) => checkTableDrift(deps, p, rec, runId, () => new Date()))) rows.push(...r);
        io.out(opts.json ? `${JSON.stringify({ ok: runStatus(rows) === 'validated', status: runStatus(rows), rows }, null, 2)}\n` : renderRows(rows));
        const s = runStatus(rows);
        io.setExit(s === 'validated' ? ExitCode.OK : s === 'drifted' ? ExitCode.DRIFT : ExitCode.FAILED);
      } finally {
        await catalog?.close?.();
        await state.close();
        await hms.close();
        stores.close();
      }
    });
  registerSchedule(program, io);
}
