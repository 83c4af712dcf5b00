// The encoding audit's cost per footer (issue 30): what `migrate plan`'s storage sample adds per
// sampled Parquet file to read its encodings — the footer's codecs/encodings/encoding_stats walk and
// schema tree (adapters/formats/parquet/encoding-facts.ts), classification into encoding keys
// (core/readers/classify.ts) and the decision against the reader matrix (core/readers/decide.ts) —
// with and without the FileMetaData decode the sample does anyway; plus the first data page header
// read (one 16-byte ranged read of a local file). Footers in memory, minimum over repetitions.
// Run by convert.bench.ts in the same run as the conversion bench, over the same pyarrow variants.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { decodeParquetFooterSync } from '../../adapters/formats/parquet';
import { parquetFileFacts, readFirstPageType } from '../../adapters/formats/parquet/encoding-facts';
import { LocalObjectStore } from '../../adapters/storage/local-store';
import { classifyFile } from '../../core/readers/classify';
import { decideReaders } from '../../core/readers/decide';
import { READER_MATRIX } from '../../core/readers/matrix';

export interface AuditCost {
  readonly footers: number;
  readonly meanFooterBytes: number;
  /** facts + classify + decide, µs per footer (the FileMetaData already decoded). */
  readonly auditUs: number;
  /** decode + facts + classify + decide, µs per footer. */
  readonly decodeAndAuditUs: number;
  /** The first data page header, read from a local file: µs per footer. */
  readonly pageHeaderUs: number;
  readonly keysPerFooter: number;
  readonly matrixRows: number;
}

function footerOf(file: string): Uint8Array {
  const b = readFileSync(file);
  const len = b.readUInt32LE(b.length - 8);
  return new Uint8Array(b.subarray(b.length - 8 - len, b.length - 8));
}

/** The audit over the Parquet `files`, `iterations` footers per repetition, min of `reps`. */
export async function encodingAuditCost(files: readonly string[], iterations = 20_000, reps = 5): Promise<AuditCost> {
  const metas = files.map(footerOf);
  const mds = metas.map((m) => decodeParquetFooterSync('f', m));
  let audit = Infinity;
  let full = Infinity;
  let keys = 0;
  for (let rep = 0; rep < reps; rep++) {
    let t0 = performance.now();
    for (let i = 0; i < iterations; i++) {
      const k = i % metas.length;
      const hits = classifyFile(parquetFileFacts(metas[k]!, mds[k]!, 'DATA_PAGE')).hits;
      decideReaders(hits.map((h) => ({ ...h, file: 'f' })));
      keys = hits.length;
    }
    audit = Math.min(audit, ((performance.now() - t0) * 1000) / iterations);
    t0 = performance.now();
    for (let i = 0; i < iterations; i++) {
      const m = metas[i % metas.length]!;
      const hits = classifyFile(parquetFileFacts(m, decodeParquetFooterSync('f', m), 'DATA_PAGE')).hits;
      decideReaders(hits.map((h) => ({ ...h, file: 'f' })));
    }
    full = Math.min(full, ((performance.now() - t0) * 1000) / iterations);
  }
  const store = new LocalObjectStore({ metadataPrefixes: [] });
  const n = Math.min(files.length * 20, 2000);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await readFirstPageType(store, files[i % files.length]!, mds[i % files.length]!);
  return {
    footers: metas.length,
    meanFooterBytes: Math.round(metas.reduce((s, m) => s + m.length, 0) / metas.length),
    auditUs: audit,
    decodeAndAuditUs: full,
    pageHeaderUs: ((performance.now() - t0) * 1000) / n,
    keysPerFooter: keys,
    matrixRows: READER_MATRIX.length,
  };
}

export function auditLine(c: AuditCost): string {
  return (
    `encoding audit per footer (${c.footers} distinct footers of ${c.meanFooterBytes} B, ${c.keysPerFooter} keys each, matrix ${c.matrixRows} rows): ` +
    `${c.auditUs.toFixed(1)} µs (facts + classify + decide) · ${c.decodeAndAuditUs.toFixed(1)} µs with the FileMetaData decode · ` +
    `first data page header read ${c.pageHeaderUs.toFixed(1)} µs (local file)`
  );
}
