// Rule: a table (or partition) whose location overlaps a location this tool itself writes — the
// audit anchors (audit.anchorLocation) or the validation results (validation.resultsLocation) — is
// not planned: our objects would land among its data files (a later listing imports them; Hive
// readers read them) or its files among ours. Checked in both directions, s3/s3a/s3n alike. The
// worker applies it again with its own config (apply's live re-check). Pure; no I/O.
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

/** `s3a://b/p/` and `s3://b/p` compare alike: one scheme per store, no trailing slash, then `/`. */
export function locationKey(location: string): string {
  return `${location
    .trim()
    .replace(/^s3[an]?:\/\//i, 's3://')
    .replace(/\/+$/, '')}/`;
}

/** Whether one of the two locations is the other or lies inside it. */
export function overlaps(a: string, b: string): boolean {
  const ka = locationKey(a);
  const kb = locationKey(b);
  return ka.startsWith(kb) || kb.startsWith(ka);
}

export const locationReservedRule: Rule = (t, options) => {
  const reserved = options.reservedLocations ?? [];
  if (isView(t) || reserved.length === 0) return [];
  const places = [
    { what: 'the table', location: t.table.sd.location },
    ...t.partitions.map((p) => ({ what: `partition ${p.name}`, location: p.sd.location })),
  ];
  const hits: string[] = [];
  for (const p of places) {
    if (p.location === null || p.location.trim() === '') continue;
    for (const r of reserved)
      if (overlaps(p.location, r.location)) hits.push(`${p.what} at ${p.location} overlaps ${r.what} ${r.location}`);
  }
  if (hits.length === 0) return [];
  return [
    finding(
      AssessCode.LOCATION_RESERVED,
      'skip',
      `${hits.slice(0, 5).join('; ')}${hits.length > 5 ? ` (+${hits.length - 5} more)` : ''}`,
      'move audit.anchorLocation / validation.resultsLocation to a prefix no table uses (a bucket of their own is best), then plan again',
    ),
  ];
};

/** The locations a config makes this tool write to: its audit anchors and validation results. */
export function reservedLocationsOf(cfg: {
  readonly audit?: { readonly anchorLocation?: string };
  readonly validation?: { readonly resultsLocation?: string };
}): { what: string; location: string }[] {
  const out: { what: string; location: string }[] = [];
  if (cfg.audit?.anchorLocation !== undefined) out.push({ what: 'audit.anchorLocation', location: cfg.audit.anchorLocation });
  if (cfg.validation?.resultsLocation !== undefined)
    out.push({ what: 'validation.resultsLocation', location: cfg.validation.resultsLocation });
  return out;
}
