// The Temporal-backed commands: worker, apply, approve, pause/resume/cancel, status and rollback,
// one file each in cli/commands/ (`audit verify` is in ./audit.ts). apply accepts only a plan file
// (hash checked), stores it in the state store and starts `migrate/<plan>`; everything else
// addresses that workflow by the plan id (first 12 hex).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ErrorCode, MigrationError } from '../../core/errors';
import { parsePlan } from '../../core/plan/plan-file';
import type { IO } from '../output';
import { registerApply } from './apply';
import { registerApprove } from './approve';
import { registerRollback } from './rollback';
import { registerSignals } from './signals';
import { registerStatus } from './status';
import { registerWorker } from './worker';

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
}
