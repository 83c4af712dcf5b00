// Which path a planned table takes through apply, as the plan report shows it:
// metadata-only (files stay, Iceberg metadata over them), view (a Hive view becomes an Iceberg
// view), insert-only (the committed writes of an insert-only ACID table, metadata-only), rewrite
// (the Spark job writes a new Iceberg table). A table not planned is left out, with its reason.
// Pure; no I/O.
import { AssessCode } from '../assess/types';
import type { TableKind } from '../assess/types';
import { TableClass } from '../assess/types';

export type MigrationPath = 'metadata-only' | 'view' | 'insert-only' | 'rewrite';

export function migrationPath(t: { readonly kind?: TableKind; readonly class: string; readonly codes: readonly string[] }): MigrationPath {
  if (t.kind === 'view' || t.codes.includes(AssessCode.VIEW)) return 'view';
  // Planned while rewrite-required only when the plan opted into the rewrite path (plan --rewrite).
  if (t.class === TableClass.REWRITE_REQUIRED) return 'rewrite';
  if (t.codes.includes(AssessCode.INSERT_ONLY_METADATA)) return 'insert-only';
  return 'metadata-only';
}
