// Plan file upgrade chain (docs/architecture.md "Habits" 7): a map from version n to the function that turns an n
// document into an n+1 document. Pure; no I/O.
//   1 → 2: version 2 pins the target (`target`: catalog, type, mode, namespace prefix) and may carry
//          a `signature`. A version 1 plan never pinned its target, so it upgrades to `target: null`
//          ("not pinned": apply uses each worker's catalog config, as version 1 always did). Its
//          recorded hash stays valid: the hash check runs on the document as written.
//   2 → 3: version 3 pins each planned table's conversion (`pin`, core/plan/pin.ts) and summarises
//          its partitions (`partitions`, core/plan/partition-set.ts). A version 2 plan recorded
//          neither, so every table entry upgrades to `pin: null, partitions: null`: apply keeps the
//          version 2 rule for it (the live fingerprint must equal the planned one, SOURCE_CHANGED
//          otherwise). Its hash stays valid the same way.
import { ErrorCode, MigrationError } from '../errors';

export const CURRENT_PLAN_VERSION = 3;

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
  2: (doc) => ({ ...doc, version: 3, waves: mapTables(doc['waves'], upgradeV2Table) }),
};

/** A version 2 table entry: unpinned (a member it never had means the entry was assembled by hand). */
function upgradeV2Table(t: PlanDocument, path: string): PlanDocument {
  for (const key of ['pin', 'partitions']) {
    if (key in t)
      throw new MigrationError(ErrorCode.PLAN_INVALID, `${path}.${key}: a version 2 plan has no ${key}`, { paths: [`${path}.${key}`] });
  }
  return { ...t, pin: null, partitions: null };
}

const isObject = (v: unknown): v is PlanDocument => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each wave's table entries through `f`; anything not shaped like waves is left for the schema to refuse. */
function mapTables(waves: unknown, f: (t: PlanDocument, path: string) => PlanDocument): unknown {
  if (!Array.isArray(waves)) return waves;
  return waves.map((w: unknown, i) => {
    if (!isObject(w) || !Array.isArray(w['tables'])) return w;
    const tables = (w['tables'] as unknown[]).map((t, j) => (isObject(t) ? f(t, `waves[${i}].tables[${j}]`) : t));
    return { ...w, tables };
  });
}

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
