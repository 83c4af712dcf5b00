// The Temporal-backed commands: worker, apply, approve, pause/resume/cancel, status, rollback (one
// file each in cli/commands/), and `audit verify`. apply accepts only a plan file (hash checked),
// stores it in the state store and starts `migrate/<plan>`; everything else addresses that workflow
// by the plan id (first 12 hex).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { verifyChain } from '../../core/audit/chain';
import { ErrorCode, MigrationError } from '../../core/errors';
import { parsePlan } from '../../core/plan/plan-file';
import { loadConfig } from '../config';
import { ExitCode } from '../exit-codes';
import type { IO } from '../output';
import { openState } from '../runtime';
import { registerApply } from './apply';
import { registerApprove } from './approve';
import { registerRollback } from './rollback';
import { registerSignals } from './signals';
import { registerStatus } from './status';
import { registerWorker } from './worker';

interface GlobalOpts {
  config?: string;
  set: string[];
}
const cfg = (cmd: Command) => {
  const g = cmd.optsWithGlobals<GlobalOpts>();
  return loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() }).config;
};

function readPlan(file: string) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new MigrationError(ErrorCode.USAGE, `cannot read plan file ${file}: ${(e as Error).message}`);
  }
  return parsePlan(text);
}

export function registerOrchestration(program: Command, io: IO): void {
  registerWorker(program, io);
  registerApply(program, io, readPlan);
  registerApprove(program, io);
  registerSignals(program, io);
  registerStatus(program, io);
  registerRollback(program, io);

  const audit = program.command('audit').description('the append-only, hash-chained audit log');
  audit
    .command('verify')
    .description('re-hash the whole chain; exit 1 at the first edited, removed or reordered event')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const state = await openState(cfg(cmd));
      try {
        const events = [];
        for await (const e of state.readAudit()) events.push(e);
        const v = verifyChain(events);
        io.out(opts.json ? `${JSON.stringify(v)}\n` : v.ok ? `audit log intact: ${v.events} events, head ${v.head.slice(0, 16)}\n` : `audit log BROKEN at event ${v.brokenAt}: ${v.reason}\n`);
        io.setExit(v.ok ? ExitCode.OK : ExitCode.FAILED);
      } finally {
        await state.close();
      }
    });
}
