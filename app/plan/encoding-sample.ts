// The storage sample's encoding audit: the encoding keys (core/readers/classify.ts) of a table's
// sampled footers, decided against the reader matrix for the required readers (core/readers/decide.ts)
// into READER_MISREAD / READER_ENCODING_LIMIT / READER_ENCODING_UNMEASURED findings
// (core/assess/rules/reader-encodings.ts). Parquet footers come from the sample's own read
// (storage-sample.ts); ORC tails and Avro headers are read here.
import type { FileFacts } from '../../core/readers/classify';
import { classifyFile } from '../../core/readers/classify';
import type { KeySeen } from '../../core/readers/decide';
import { decideReaders } from '../../core/readers/decide';
import type { Reader } from '../../core/readers/encodings';
import { READER_MATRIX } from '../../core/readers/matrix';
import { readerEncodingFindings } from '../../core/assess/rules/reader-encodings';
import type { AssessFinding } from '../../core/assess/types';
import type { ObjectInfo, ObjectStore } from '../../core/storage/object-store';
import { readAvroFacts } from '../../adapters/formats/avro-facts';
import { readOrcFacts } from '../../adapters/formats/orc/encoding-facts';

/** The keys of one file, each with the file and the first column holding it. */
export function keysOf(facts: FileFacts, file: string): KeySeen[] {
  return classifyFile(facts).hits.map((h) => ({ key: h.key, file, column: h.column }));
}

/**
 * The reader findings of a table's sampled keys (none when every key reads right everywhere). With no
 * measured row at all (a build without the matrix) every key would be "unmeasured": that says nothing
 * about the table, so it is left out.
 */
export function readerFindings(seen: readonly KeySeen[], required: readonly Reader[]): AssessFinding[] {
  const d = decideReaders(seen, required);
  return readerEncodingFindings(READER_MATRIX.length === 0 ? { ...d, unmeasured: [] } : d);
}

/** ORC and Avro: read each sampled file's facts, then decide. Unreadable files are left to apply. */
export async function sampleOtherEncodings(
  store: ObjectStore,
  format: 'ORC' | 'AVRO',
  picks: readonly ObjectInfo[],
  required: readonly Reader[],
): Promise<AssessFinding[]> {
  const seen: KeySeen[] = [];
  for (const f of picks) {
    const facts = format === 'ORC' ? await readOrcFacts(store, f.path, f.size) : await readAvroFacts(store, f.path, f.size);
    seen.push(...keysOf(facts, f.path));
  }
  return readerFindings(seen, required);
}
