// Validation of the ids data files carry: readers resolve a file with embedded field ids by those
// ids, not by the name mapping (core/iceberg/embedded-ids.ts), so every id'd column of every footer
// validation re-reads must carry the id the table's schema gives the column its name stands for,
// and no id'd column Hive does not declare may carry the id of a schema field (readers would read
// it as that field). Each breach is a VALIDATION_FIELD_ID_MISMATCH finding naming file and column.
// Files without ids are footer coverage's (footer-coverage.ts). Pure; no I/O.
import { ErrorCode } from '../errors';
import type { FileIdLayout } from '../iceberg/embedded-ids';
import { embeddedIds, idsByPath } from '../iceberg/embedded-ids';
import type { Schema } from '../iceberg/types';
import type { ValidationFinding } from './compare';

const MAX_FINDINGS = 20;

/** The id'd footer columns of `layouts` whose ids point at another field than the schema says. */
export function fieldIdMismatches(schema: Schema, dataColumnCount: number, layouts: readonly FileIdLayout[]): ValidationFinding[] {
  const byPath = idsByPath(schema.fields);
  const pathById = new Map([...byPath].map(([p, id]) => [id, p]));
  const out: ValidationFinding[] = [];
  const seen = new Set<string>();
  for (const layout of layouts) {
    for (const e of embeddedIds(schema, dataColumnCount, layout)) {
      const want = e.matched ? byPath.get(e.column) : undefined;
      const reads = pathById.get(e.id);
      if (e.matched ? want === e.id : reads === undefined) continue;
      const k = `${e.column}\u0000${e.id}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const column = e.matched ? e.column : e.column.slice(1);
      out.push({
        code: ErrorCode.VALIDATION_FIELD_ID_MISMATCH,
        check: 'footers',
        path: column,
        expected: e.matched ? `field id ${String(want)}` : 'no field id of the schema',
        actual: `field id ${e.id}${reads === undefined ? '' : ` (the schema's '${reads}')`}`,
        message: `footer column '${column}' of ${layout.file} carries field id ${e.id}${
          reads === undefined ? '' : `, which the schema gives '${reads}'`
        }${e.matched ? `, not ${String(want)}` : ''}: readers resolve this file by id and would read another column there`,
      });
    }
  }
  return out.slice(0, MAX_FINDINGS);
}
