// Plan file upgrade chain (STYLE.md §7): a map from version n to the function that turns an n
// document into an n+1 document. Pure; no I/O.
//   1 → 2: version 2 pins the target (`target`: catalog, type, mode, namespace prefix) and may carry
//          a `signature`. A version 1 plan never pinned its target, so it upgrades to `target: null`
//          ("not pinned": apply uses each worker's catalog config, as version 1 always did). Its
//          recorded hash stays valid: the hash check runs on the document as written.
import { ErrorCode, MigrationError } from '../errors';

export const CURRENT_PLAN_VERSION = 2;

export type PlanDocument = Record<string, unknown>;
export type PlanUpgrade = (doc: PlanDocument) => PlanDocument;

export const PLAN_UPGRADES: Readonly<Record<number, PlanUpgrade>> = {
  1: (doc) => {
    // Members version 1 never had: a v1 document carrying them was assembled by hand.
    for (const key of ['target', 'signature']) {
      if (key in doc) throw new MigrationError(ErrorCode.PLAN_INVALID, `${key}: a version 1 plan has no ${key}`, { paths: [key] });
    }
    return { ...doc, version: 2, target: null };
  },
};

function unsupported(message: string, version: unknown): MigrationError {
  return new MigrationError(ErrorCode.PLAN_VERSION_UNSUPPORTED, `version: ${message}`, { paths: ['version'], version });
}

/** Bring a document of any known version up to `current`; unknown or future versions are refused. */
export function upgradePlanDocument(
  doc: PlanDocument,
  chain: Readonly<Record<number, PlanUpgrade>> = PLAN_UPGRADES,
  current: number = CURRENT_PLAN_VERSION,
): PlanDocument {
  const raw = doc['version'];
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1)
    throw unsupported(`expected a positive integer plan version, got ${JSON.stringify(raw)}`, raw);
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
