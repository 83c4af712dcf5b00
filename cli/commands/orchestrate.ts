// The Temporal-backed commands: worker, apply, approve, pause/resume/cancel, status and rollback,
// one file each in cli/commands/ (`audit verify` is in ./audit.ts). apply accepts only a plan file
// (read by app/plan/plan-input.ts: size, hash, signature), stores it in the state store and starts `migrate/<plan>`; everything else
// addresses that workflow by the plan id (first 12 hex).
import type { Command } from 'commander';
import type { IO } from '../output';
import { registerApply } from './apply';
import { registerApprove } from './approve';
import { registerRollback } from './rollback';
import { registerSignals } from './signals';
import { registerStatus } from './status';
import { registerWorker } from './worker';

export function registerOrchestration(program: Command, io: IO): void {
  registerWorker(program, io);
  registerApply(program, io);
  registerApprove(program, io);
  registerSignals(program, io);
  registerStatus(program, io);
  registerRollback(program, io);
}
