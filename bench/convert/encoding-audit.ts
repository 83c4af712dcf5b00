// The encoding audit's cost per footer: what `migrate plan`'s storage sample adds per
// sampled Parquet file to read its encodings — the footer's codecs/encodings/encoding_stats walk and
// schema tree (adapters/formats/parquet/encoding-facts.ts), classification into encoding keys
// (core/readers/classify.ts) and the decision against the reader matrix (core/readers/decide.ts) —
// with and without the FileMetaData decode the sample does anyway; plus the first data page header
// read (one 16-byte ranged read of a local file). Footers in memory, minimum over repetitions.
// Run by convert.bench.ts in the same run as the conversion bench, over the same pyarrow variants.
import { readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { decodeParquetFooterSync } from '../../adapters/formats/parquet';
import { parquetFileFacts, readFirstPageType } from '../../adapters/formats/parquet/encoding-facts';
import { LocalObjectStore } from '../../adapters/storage/local-store';
import { classifyFile } from '../../core/readers/classify';
import { decideReaders } from '../../core/readers/decide';
import { READER_MATRIX } from '../../core/readers/matrix';
import { readerGuard } from '../../engine/reader-guard';

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
  /** The conversion's guard (engine/reader-guard.ts) per file, its schema seen before: µs (null: off for this schema). */
  readonly guardUs: number | null;
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
  // The conversion's guard over a bench-like schema (a long and a timestamp column: the matrix's uint and
  // millis rows apply), every file checked as the conversion checks it (a blocking pread of the tail).
  const schema = {
    schemaId: 0,
    fields: [
      { id: 1, name: 'a', required: false, type: { kind: 'long' as const } },
      { id: 2, name: 'b', required: false, type: { kind: 'timestamp' as const } },
    ],
  };
  const guard = readerGuard(store, schema);
  let guardUs: number | null = null;
  if (guard !== null) {
    for (const f of files) await guard.check(f, statSync(f).size, 'PARQUET');
    const sizes = files.map((f) => statSync(f).size);
    for (let rep = 0; rep < reps; rep++) {
      const g0 = performance.now();
      for (let i = 0; i < n; i++) await guard.check(files[i % files.length]!, sizes[i % files.length]!, 'PARQUET');
      guardUs = Math.min(guardUs ?? Infinity, ((performance.now() - g0) * 1000) / n);
    }
  }
  return {
    guardUs,
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
    `first data page header read ${c.pageHeaderUs.toFixed(1)} µs (local file) · conversion guard per file ${c.guardUs === null ? 'off' : `${c.guardUs.toFixed(1)} µs`} (local file, schema seen)`
  );
}
