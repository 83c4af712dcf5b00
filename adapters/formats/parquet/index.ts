// adapters/formats/parquet — Parquet footers → Iceberg per-file stats: decoding of bytes, and the
// ranged reads of a footer through the ObjectStore port only. No sockets, files or threads here:
// adapters/storage/object-read/ fetches bytes (signed GETs, local preads), decides where a footer is
// read and decoded (ParquetFooterReader) and runs this code on its footer threads.
//   footer.ts          length/magic checks of a tail, FileMetaData decode, tail read(s) over the port; DEFAULT_TAIL_BYTES
//   compact.ts         compact-Thrift decoder for the FileMetaData fields we use (+ compact-reader.ts)
//   thrift.ts          FileMetaData shape, Parquet enums, hyparquet's generic decode mapped to it
//   bounds.ts          which min/max stats are safe as Iceberg bounds, and their values
//   plan.ts            leaf column → field id → metrics slot, per table and file layout
//   accumulate.ts      column chunks summed per field
//   stats.ts           FileStats (maps, or the manifest's Avro bytes)
// This index is the module the rest of the repo imports (`adapters/formats/parquet`).
export {
  DEFAULT_TAIL_BYTES,
  decodeParquetFooterGeneric,
  decodeParquetFooterSync,
  footerFromTail,
  joinFooter,
  readParquetFooterBytes,
} from './footer';
export { leafFieldIds } from './plan';
export { parquetStats, parquetStatsChecked, parquetStatsEncoded, parquetStatsEncodedChecked } from './stats';
