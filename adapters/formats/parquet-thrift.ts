// Parquet FileMetaData types and enums at their old module path, kept for importers outside
// adapters/formats: they live in parquet/thrift.ts.
export { ConvertedType, PhysicalType, Repetition, fileMetaData } from './parquet/thrift';
export type { ColumnChunk, FileMetaData, LogicalType, RawStatistics, RowGroup, SchemaElement } from './parquet/thrift';
