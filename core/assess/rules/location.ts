// Rule: a table (or partition) without a usable location cannot be listed or converted: apply
// refuses a missing or empty one (HMS_BAD_METADATA) and cannot resolve a relative one (no scheme,
// no leading `/`: Hive would resolve it against a default filesystem this tool does not know).
// Pure; no I/O.
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

/** Why `location` is unusable, or null when it is an absolute URI or path. */
export function locationProblem(location: string | null): string | null {
  if (location === null) return 'no location';
  if (location.trim() === '') return 'an empty location';
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(location) || location.startsWith('/')) return null;
  return `a relative location ${JSON.stringify(location)}`;
}

export const locationInvalidRule: Rule = (t) => {
  if (isView(t)) return [];
  const problems: string[] = [];
  const own = locationProblem(t.table.sd.location);
  if (own !== null) problems.push(`the table has ${own}`);
  const parts = t.partitions.flatMap((p) => {
    const why = locationProblem(p.sd.location);
    return why === null ? [] : [`${p.name} has ${why}`];
  });
  if (parts.length > 0) problems.push(`${parts.length} partition(s): ${parts.slice(0, 5).join('; ')}${parts.length > 5 ? ' …' : ''}`);
  if (problems.length === 0) return [];
  return [
    finding(
      AssessCode.LOCATION_INVALID,
      'rewrite',
      problems.join('; '),
      'set an absolute location (s3://…, file:/…) on the table and every partition in HMS (ALTER TABLE … SET LOCATION), then assess again',
    ),
  ];
};
