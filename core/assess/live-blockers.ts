// Apply's re-check of one table as HMS holds it now: the per-table rules' findings that make it not
// migratable (effect skip or rewrite). Views are not converted as tables and give none. Cross-table
// (LOCATION_SHARED) and storage facts are not in here: they need the whole inventory or I/O.
// Pure; no I/O.
import type { TableInventory } from '../hive/model';
import { RULES } from './assess';
import type { AssessFinding, AssessOptions } from './types';
import { DEFAULT_ASSESS_OPTIONS, isView } from './types';

export function liveBlockers(t: TableInventory, options: AssessOptions = DEFAULT_ASSESS_OPTIONS): AssessFinding[] {
  if (isView(t)) return [];
  return RULES.flatMap((r) => r(t, options)).filter((f) => f.effect === 'skip' || f.effect === 'rewrite');
}
