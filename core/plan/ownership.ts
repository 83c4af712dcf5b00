// Which team owns a table: an explicit mapping (exact table, then database, then the first matching
// regex) wins over a table parameter (e.g. `team`), which wins over the HMS owner. Pure; no I/O.
import { z } from 'zod';
import { ErrorCode } from '../errors';
import { issuesError, regexSchema as regex } from './types';

export const ownershipSchema = z
  .object({
    /** `db.table` → team. */
    tables: z.record(z.string().regex(/^[^.\s]+\.[^.\s]+$/, 'expected db.table'), z.string().min(1)).default({}),
    /** database → team. */
    databases: z.record(z.string(), z.string().min(1)).default({}),
    /** Unanchored regexes over `db.table`, first match wins. */
    patterns: z.array(z.object({ regex, team: z.string().min(1) }).strict()).default([]),
    /** Table parameter naming the team (null: do not look). */
    paramKey: z.string().min(1).nullable().default('team'),
    /** Fall back to the HMS table owner. */
    useOwner: z.boolean().default(true),
  })
  .strict();
export type Ownership = z.output<typeof ownershipSchema>;

export function parseOwnership(input: unknown): Ownership {
  const r = ownershipSchema.safeParse(input ?? {});
  if (r.success) return r.data;
  throw issuesError('invalid ownership', r.error.issues, () => ErrorCode.CONFIG_INVALID);
}

export interface OwnedTable {
  readonly database: string;
  readonly name: string;
  readonly owner: string | null;
  readonly parameters: Readonly<Record<string, string>>;
}

export function teamOf(t: OwnedTable, o: Ownership): string | null {
  const db = t.database.toLowerCase();
  const id = `${db}.${t.name.toLowerCase()}`;
  const byTable = o.tables[id] ?? Object.entries(o.tables).find(([k]) => k.toLowerCase() === id)?.[1];
  if (byTable !== undefined) return byTable;
  const byDb = o.databases[db] ?? Object.entries(o.databases).find(([k]) => k.toLowerCase() === db)?.[1];
  if (byDb !== undefined) return byDb;
  const byPattern = o.patterns.find((p) => new RegExp(p.regex).test(id));
  if (byPattern) return byPattern.team;
  const param = o.paramKey === null ? undefined : t.parameters[o.paramKey];
  if (param !== undefined && param.trim() !== '') return param.trim();
  return o.useOwner && t.owner !== null && t.owner !== '' ? t.owner : null;
}
