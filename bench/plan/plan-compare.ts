// Plan parity between two HMS sources for plan-source.bench.ts: per-table digests compared field by
// field (tables only one side has, and per field the count and first examples of differences), and,
// for a table whose fingerprint differs, the paths in its inventory where the two readers disagree.
import type { HmsReader, TableInventory } from '../../core/hive/model';
import { DIGEST_FIELDS } from './plan-pipeline';

export interface DigestDiff {
  readonly onlyA: string[];
  readonly onlyB: string[];
  /** Field → ids of the tables where it differs. */
  readonly fields: Map<string, string[]>;
}

export function compareDigests(a: readonly string[][], b: readonly string[][]): DigestDiff {
  const byId = (rows: readonly string[][]): Map<string, string[]> => new Map(rows.map((r) => [r[0] as string, r]));
  const ma = byId(a);
  const mb = byId(b);
  const fields = new Map<string, string[]>();
  for (const [id, ra] of ma) {
    const rb = mb.get(id);
    if (rb === undefined) continue;
    DIGEST_FIELDS.forEach((f, i) => {
      if (ra[i] === rb[i]) return;
      const list = fields.get(f) ?? [];
      list.push(id);
      fields.set(f, list);
    });
  }
  return { onlyA: [...ma.keys()].filter((id) => !mb.has(id)), onlyB: [...mb.keys()].filter((id) => !ma.has(id)), fields };
}

export function isSame(d: DigestDiff): boolean {
  return d.onlyA.length === 0 && d.onlyB.length === 0 && d.fields.size === 0;
}

export function renderDiff(nameA: string, nameB: string, d: DigestDiff): string {
  if (isSame(d)) return `${nameA} vs ${nameB}: same tables, same ${DIGEST_FIELDS.slice(1).join(', ')} for every table\n`;
  const lines = [`${nameA} vs ${nameB}: DIFFERENT`];
  if (d.onlyA.length > 0) lines.push(`  only in ${nameA}: ${d.onlyA.length} (${d.onlyA.slice(0, 5).join(', ')})`);
  if (d.onlyB.length > 0) lines.push(`  only in ${nameB}: ${d.onlyB.length} (${d.onlyB.slice(0, 5).join(', ')})`);
  for (const [f, ids] of d.fields) lines.push(`  ${f} differs for ${ids.length} table(s), e.g. ${ids.slice(0, 5).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** Paths (a.b[3].c) where two JSON-like values differ, with both values; at most `limit`. */
export function diffPaths(a: unknown, b: unknown, at = '', out: string[] = [], limit = 20): string[] {
  if (out.length >= limit || Object.is(a, b)) return out;
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (!isObj(a) || !isObj(b) || Array.isArray(a) !== Array.isArray(b)) {
    out.push(`${at || '(root)'}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    return out;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const k of keys) diffPaths(a[k], b[k], Array.isArray(a) ? `${at}[${k}]` : at ? `${at}.${k}` : k, out, limit);
  return out;
}

/** Read these tables (ids db.name) through both readers and list where their inventories differ. */
export async function explainFingerprints(ids: readonly string[], a: HmsReader, b: HmsReader): Promise<string[]> {
  const lines: string[] = [];
  for (const id of ids) {
    const [db, name] = id.split('.') as [string, string];
    const [ia] = (await a.getTables(db, [name])) as [TableInventory];
    const [ib] = (await b.getTables(db, [name])) as [TableInventory];
    lines.push(`${id}:`, ...diffPaths(ia, ib).map((p) => `  ${p}`));
  }
  return lines;
}
