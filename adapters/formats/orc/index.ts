// adapters/formats/orc — ORC file tails → Iceberg per-file stats. Pure decoding plus the ranged
// read of a tail; ORC footers are decoded on the calling thread (no thread pool).
//   footer.ts     tail read, PostScript/Footer decode, column statistics → FileStats; OrcFooterReader
//   protobuf.ts   the minimal protobuf wire decoder the ORC footer needs
//   snappy.ts     Snappy block decompression (one of ORC's codecs; ZLIB and ZSTD come from node:zlib)
// This index is the module the rest of the repo imports (`adapters/formats/orc`).
export { ORC_TAIL_BYTES, ORC_ZSTD_AVAILABLE, OrcFooterReader, orcStats, parseDecimal, readOrcTail } from './footer';
