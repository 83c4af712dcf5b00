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
import type { ReaderVerdictHit } from '../core/readers/decide';
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
import { readParquetFooterBytesLocalSync } from '../adapters/storage/object-read/local-tail';
import { parquetFileFacts, parquetSchemaBytes, readFirstPageType } from '../adapters/formats/parquet/encoding-facts';

const GUARD_TAIL_BYTES = 16 * 1024;
type Misread = ReaderVerdictHit;

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
  /** Per distinct schema (its bytes): the guarded keys it holds, decided once (null: none a required reader misreads). */
  const cache: { bytes: Buffer; miss: Misread | null }[] = [];
  const decide = (hits: readonly KeyHit[], path: string): Misread | null => {
    const seen = hits.filter((h) => keys.has(h.key)).map((h) => ({ ...h, file: path }));
    return seen.length === 0 ? null : firstMisread(seen, required, matrix);
  };

  // Footers of Hive-era files are small: a 16 KiB tail holds most (a larger one costs one more read).
  const scratch = new Uint8Array(GUARD_TAIL_BYTES);
  const parquetMisread = async (path: string, size: number): Promise<Misread | null> => {
    // A local file: one blocking pread into the scratch buffer (a view, valid until the next await).
    const local = store.localFile?.(path);
    let meta =
      local !== undefined
        ? readParquetFooterBytesLocalSync(path, local, size, GUARD_TAIL_BYTES, scratch)
        : await readParquetFooterBytes(store, path, size, GUARD_TAIL_BYTES);
    const sb = bySchema ? parquetSchemaBytes(meta) : undefined;
    const known = sb === undefined ? undefined : cache.find((c) => c.bytes.equals(sb));
    if (known !== undefined) return known.miss;
    // Copies: the scratch buffer is reused by the next check once this one awaits the page header.
    meta = meta.slice();
    const key = sb === undefined ? undefined : Buffer.from(sb);
    const md = decodeParquetFooterSync(path, meta);
    const hits = classifyFile(parquetFileFacts(meta, md, pages ? await readFirstPageType(store, path, md) : undefined)).hits;
    const miss = decide(hits, path);
    if (key !== undefined) {
      cache.unshift({ bytes: key, miss });
      if (cache.length > 8) cache.pop();
    }
    return miss;
  };

  return {
    async check(path, size, format) {
      const f = format.toLowerCase();
      if (!formats.has(f)) return;
      const m =
        f === 'parquet'
          ? await parquetMisread(path, size)
          : decide(classifyFile(f === 'orc' ? await readOrcFacts(store, path, size) : await readAvroFacts(store, path, size)).hits, path);
      if (m === null) return;
      // A cached decision names the file it was made on: this one holds the same schema.
      const col = m.seen.column === '' ? '' : ` (column ${m.seen.column})`;
      throw new MigrationError(
        ErrorCode.CONVERT_READER_MISREAD,
        `${path}${col}: ${m.reader} reads ${m.key} wrong (${m.detail}); a metadata-only conversion would serve values Hive does not (readers.required: ${required.join(', ')}; docs/readers.md)`,
        { path, column: m.seen.column, reader: m.reader, encoding: m.key },
      );
    },
  };
}
