// The conversion's reader check (defence in depth behind the plan's READER_MISREAD, for edited plans
// and files that appeared after planning): a data file holding an encoding that a required reader
// reads wrong (core/readers/guard.ts: only keys the table's schema can hold) fails the conversion with
// CONVERT_READER_MISREAD naming the file, column, reader and encoding. No such key → no guard, no
// cost. Otherwise each file's footer is read once more on this thread; when every guarded key is a
// schema key, files whose schema bytes equal an earlier file's reuse its answer (no decode).
import type { DataFileFormat } from '../core/convert/prepare';
import { ErrorCode, MigrationError } from '../core/errors';
import type { Schema } from '../core/iceberg/types';
import type { KeyHit } from '../core/readers/classify';
import { classifyFile } from '../core/readers/classify';
import { firstMisread } from '../core/readers/decide';
import type { Reader } from '../core/readers/encodings';
import { READERS } from '../core/readers/encodings';
import type { MatrixRow } from '../core/readers/matrix';
import { READER_MATRIX } from '../core/readers/matrix';
import { isSchemaKey, keysToGuard } from '../core/readers/guard';
import type { ObjectStore } from '../core/storage/object-store';
import { readAvroFacts } from '../adapters/formats/avro-facts';
import { readOrcFacts } from '../adapters/formats/orc/encoding-facts';
import { decodeParquetFooterSync, readParquetFooterBytes } from '../adapters/formats/parquet';
import { parquetFileFacts, parquetSchemaBytes, readFirstPageType } from '../adapters/formats/parquet/encoding-facts';

export interface ReaderGuard {
  /** Throws CONVERT_READER_MISREAD when the file holds a guarded key. */
  check(path: string, size: number, format: DataFileFormat): Promise<void>;
}

/** The guard for a table of `schema`, or null when no required reader misreads anything it could hold. */
export function readerGuard(
  store: ObjectStore,
  schema: Schema,
  required: readonly Reader[] = READERS,
  matrix: readonly MatrixRow[] = READER_MATRIX,
): ReaderGuard | null {
  const keys = keysToGuard(schema, required, matrix);
  if (keys.size === 0) return null;
  const formats = new Set([...keys].map((k) => k.split('.')[0]));
  const bySchema = [...keys].every(isSchemaKey);
  const pages = [...keys].some((k) => k.startsWith('parquet.page.'));
  const cache: { bytes: Buffer; hits: readonly KeyHit[] }[] = [];

  const parquetHits = async (path: string, size: number): Promise<readonly KeyHit[]> => {
    const meta = await readParquetFooterBytes(store, path, size);
    const sb = bySchema ? parquetSchemaBytes(meta) : undefined;
    const known = sb === undefined ? undefined : cache.find((c) => c.bytes.equals(sb));
    if (known !== undefined) return known.hits;
    const md = decodeParquetFooterSync(path, meta);
    const hits = classifyFile(parquetFileFacts(meta, md, pages ? await readFirstPageType(store, path, md) : undefined)).hits;
    if (sb !== undefined) {
      cache.unshift({ bytes: Buffer.from(sb), hits });
      if (cache.length > 8) cache.pop();
    }
    return hits;
  };

  return {
    async check(path, size, format) {
      const f = format.toLowerCase();
      if (!formats.has(f)) return;
      const hits =
        f === 'parquet'
          ? await parquetHits(path, size)
          : classifyFile(f === 'orc' ? await readOrcFacts(store, path, size) : await readAvroFacts(store, path, size)).hits;
      const seen = hits.filter((h) => keys.has(h.key)).map((h) => ({ ...h, file: path }));
      const m = firstMisread(seen, required, matrix);
      if (m === null) return;
      const col = m.seen.column === '' ? '' : ` (column ${m.seen.column})`;
      throw new MigrationError(
        ErrorCode.CONVERT_READER_MISREAD,
        `${path}${col}: ${m.reader} reads ${m.key} wrong (${m.detail}); a metadata-only conversion would serve values Hive does not (readers.required: ${required.join(', ')}; docs/readers.md)`,
        { path, column: m.seen.column, reader: m.reader, encoding: m.key },
      );
    },
  };
}
