// adapters/formats/parquet — Parquet footers → Iceberg per-file stats. Pure decoding plus the
// ranged reads of a footer; no threads here (threads/ runs the same code on worker threads).
//   footer.ts          tail read(s), length/magic checks, FileMetaData decode; DEFAULT_TAIL_BYTES
//   compact.ts         compact-Thrift decoder for the FileMetaData fields we use (+ compact-reader.ts)
//   thrift.ts          FileMetaData shape, Parquet enums, hyparquet's generic decode mapped to it
//   bounds.ts          which min/max stats are safe as Iceberg bounds, and their values
//   plan.ts            leaf column → field id → metrics slot, per table and file layout
//   accumulate.ts      column chunks summed per field
//   stats.ts           FileStats (maps, or the manifest's Avro bytes)
//   reader.ts          ParquetFooterReader: where a footer is read and decoded
// This index is the module the rest of the repo imports (`adapters/formats/parquet`).
export {
  DEFAULT_TAIL_BYTES,
  decodeParquetFooterGeneric,
  decodeParquetFooterSync,
  footerFromTail,
  joinFooter,
  readParquetFooterBytes,
  readParquetFooterBytesLocalSync,
} from './footer';
export { leafFieldIds } from './plan';
export { parquetStats, parquetStatsChecked, parquetStatsEncoded, parquetStatsEncodedChecked } from './stats';
export { ParquetFooterReader } from './reader';
export type { FooterStatsDecoder, RemoteStats } from './reader';
