// Which encoding keys the conversion must look for in a table's files: the keys a required reader
// reads wrong (the reader matrix), narrowed to those the table's Iceberg schema can hold (a
// timestamp encoding needs a timestamp column, a list layout a list...). Empty: the conversion reads
// no footer twice (engine/reader-guard.ts). Pure; no I/O.
import type { IcebergType, Schema } from '../iceberg/types';
import type { Reader } from './encodings';
import { READERS } from './encodings';
import type { MatrixRow } from './matrix';
import { READER_MATRIX } from './matrix';

/** The Iceberg type kinds a key family can occur under; a family not listed can occur in any table. */
const FAMILY_KINDS: readonly (readonly [RegExp, readonly string[]])[] = [
  [/^parquet\.ts\./, ['timestamp', 'timestamptz']],
  [/^parquet\.date\./, ['date']],
  [/^parquet\.decimal\./, ['decimal']],
  [/^parquet\.uint\./, ['int', 'long', 'decimal']],
  [/^parquet\.string\./, ['string', 'binary']],
  [/^parquet\.list\./, ['list']],
  [/^parquet\.map\./, ['map']],
  [/^orc\.type\.(timestamp|timestamp-local-tz)$/, ['timestamp', 'timestamptz']],
  [/^orc\.type\.(char|varchar)$/, ['string']],
  [/^orc\.type\.decimal$/, ['decimal']],
  [/^avro\.logical\.date$/, ['date']],
  [/^avro\.logical\.timestamp-/, ['timestamp', 'timestamptz']],
  [/^avro\.logical\.decimal-/, ['decimal']],
];

/** Whether a key is decided by the schema alone (same schema bytes → same answer) or by a chunk's codec/encodings. */
export const isSchemaKey = (key: string): boolean => !/^parquet\.(page|enc|codec)\./.test(key);

function kindsOf(t: IcebergType, out: Set<string>): void {
  out.add(t.kind);
  if (t.kind === 'struct') for (const f of t.fields) kindsOf(f.type, out);
  else if (t.kind === 'list') kindsOf(t.element, out);
  else if (t.kind === 'map') {
    kindsOf(t.key, out);
    kindsOf(t.value, out);
  }
}

/** The keys a required reader reads wrong that a file of `schema` could hold. */
export function keysToGuard(
  schema: Schema,
  required: readonly Reader[] = READERS,
  matrix: readonly MatrixRow[] = READER_MATRIX,
): Set<string> {
  const kinds = new Set<string>();
  for (const f of schema.fields) kindsOf(f.type, kinds);
  const out = new Set<string>();
  for (const row of matrix) {
    if (!required.some((r) => row.cells[r].verdict === 'wrong')) continue;
    const family = FAMILY_KINDS.find(([re]) => re.test(row.key));
    if (family === undefined || family[1].some((k) => kinds.has(k))) out.add(row.key);
  }
  return out;
}
