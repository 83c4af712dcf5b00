// Plan file upgrade chain (STYLE.md §7): a map from version n to the function that turns an n
// document into an n+1 document. Version 1 is the first, so the chain is empty today; a future
// version 2 adds `1: (doc) => ({ ...doc, version: 2, … })`. Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';

export const CURRENT_PLAN_VERSION = 1;

export type PlanDocument = Record<string, unknown>;
export type PlanUpgrade = (doc: PlanDocument) => PlanDocument;

export const PLAN_UPGRADES: Readonly<Record<number, PlanUpgrade>> = {};

function unsupported(message: string, version: unknown): MigrationError {
  return new MigrationError(ErrorCode.PLAN_VERSION_UNSUPPORTED, `version: ${message}`, { paths: ['version'], version });
}

/** Bring a document of any known version up to `current`; unknown or future versions are refused. */
export function upgradePlanDocument(doc: PlanDocument, chain: Readonly<Record<number, PlanUpgrade>> = PLAN_UPGRADES, current: number = CURRENT_PLAN_VERSION): PlanDocument {
  const raw = doc['version'];
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) throw unsupported(`expected a positive integer plan version, got ${JSON.stringify(raw)}`, raw);
  let version = raw;
  if (version > current) throw unsupported(`plan version ${version} is newer than this build reads (${current}); upgrade migrate`, version);
  let out = doc;
  while (version < current) {
    const step = chain[version];
    if (step === undefined) throw unsupported(`no upgrade from plan version ${version}`, version);
    out = step(out);
    const next: unknown = out['version'];
    if (next !== version + 1) throw unsupported(`upgrade from ${version} produced version ${JSON.stringify(next)}`, version);
    version += 1;
  }
  return out;
}
