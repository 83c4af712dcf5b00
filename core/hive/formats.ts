// File-format detection from a storage descriptor's input format and SerDe (+ SerDe params), and
// the table's `storage_handler` param. Pure; no I/O. Class names are Hive's own (the STORED AS
// shorthands in Hive's StorageFormatDescriptor implementations, plus the legacy and third-party
// classes seen in production warehouses).
import { FileFormat } from './model';
import type { Params, StorageDescriptor } from './model';

/** Input formats that name the file format on their own. */
const INPUT_FORMATS: Readonly<Record<string, FileFormat>> = {
  'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat': FileFormat.PARQUET,
  'parquet.hive.DeprecatedParquetInputFormat': FileFormat.PARQUET,
  'parquet.hive.MapredParquetInputFormat': FileFormat.PARQUET,
  'org.apache.hadoop.hive.ql.io.orc.OrcInputFormat': FileFormat.ORC,
  'org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat': FileFormat.AVRO,
  'org.apache.hadoop.mapred.SequenceFileInputFormat': FileFormat.SEQUENCEFILE,
  'org.apache.hadoop.hive.ql.io.RCFileInputFormat': FileFormat.RCFILE,
};

/** SerDes that name the file format on their own (whatever the input format says). */
const SERDES: Readonly<Record<string, FileFormat>> = {
  'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe': FileFormat.PARQUET,
  'parquet.hive.serde.ParquetHiveSerDe': FileFormat.PARQUET,
  'org.apache.hadoop.hive.ql.io.orc.OrcSerde': FileFormat.ORC,
  'org.apache.hadoop.hive.serde2.avro.AvroSerDe': FileFormat.AVRO,
  'org.apache.hadoop.hive.serde2.OpenCSVSerde': FileFormat.CSV,
  'org.apache.hadoop.hive.serde2.JsonSerDe': FileFormat.JSON,
  'org.apache.hive.hcatalog.data.JsonSerDe': FileFormat.JSON,
  'org.openx.data.jsonserde.JsonSerDe': FileFormat.JSON,
};

/** Line-oriented text SerDes (TextInputFormat + one of these = text, unless comma-delimited). */
const TEXT_SERDES: ReadonlySet<string> = new Set([
  'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe',
  'org.apache.hadoop.hive.serde2.MetadataTypedColumnsetSerDe',
  'org.apache.hadoop.hive.serde2.RegexSerDe',
  'org.apache.hadoop.hive.contrib.serde2.RegexSerDe',
  'org.apache.hadoop.hive.serde2.MultiDelimitSerDe',
  'org.apache.hadoop.hive.contrib.serde2.MultiDelimitSerDe',
]);

const TEXT_INPUT_FORMATS: ReadonlySet<string> = new Set([
  'org.apache.hadoop.mapred.TextInputFormat',
  'org.apache.hadoop.mapreduce.lib.input.TextInputFormat',
]);

const LAZY_SIMPLE = 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe';

/** hive_metastoreConstants.META_TABLE_STORAGE: set on tables served by a storage handler. */
export const STORAGE_HANDLER_PARAM = 'storage_handler';

/**
 * The file format of one storage descriptor (table or partition). `tableParameters` is consulted
 * for `storage_handler` (HBase, Kafka, JDBC, Druid, Iceberg… → 'other').
 *
 * CSV: OpenCSVSerde, and also LazySimpleSerDe text whose field delimiter (`field.delim`, else
 * `serialization.format`) is a comma — what `ROW FORMAT DELIMITED FIELDS TERMINATED BY ','` makes,
 * and what users call a CSV table. Either way the files need a rewrite, not a metadata migration.
 */
export function detectFormat(sd: Pick<StorageDescriptor, 'inputFormat' | 'serde'>, tableParameters: Params = {}): FileFormat {
  if ((tableParameters[STORAGE_HANDLER_PARAM] ?? '') !== '') return FileFormat.OTHER;
  const input = sd.inputFormat?.trim() ?? '';
  const lib = sd.serde.serializationLib?.trim() ?? '';
  const bySerde = SERDES[lib];
  const byInput = INPUT_FORMATS[input];
  // The input format decides how files are read; the SerDe only when the input format is generic.
  if (byInput !== undefined) return byInput;
  if (bySerde !== undefined && (input === '' || TEXT_INPUT_FORMATS.has(input) || isColumnar(bySerde))) return bySerde;
  if (TEXT_INPUT_FORMATS.has(input) && (lib === '' || TEXT_SERDES.has(lib))) {
    return lib === LAZY_SIMPLE && fieldDelimiter(sd.serde.parameters) === ',' ? FileFormat.CSV : FileFormat.TEXT;
  }
  return FileFormat.OTHER;
}

function isColumnar(f: FileFormat): boolean {
  return f === FileFormat.PARQUET || f === FileFormat.ORC || f === FileFormat.AVRO;
}

/**
 * LazySimpleSerDe's field delimiter: `field.delim`, else `serialization.format`, decoded like Hive's
 * LazyUtils.getByte — a decimal byte value when it parses as one ("44" is ','), else the first char.
 */
function fieldDelimiter(params: Params): string | undefined {
  const raw = params['field.delim'] ?? params['serialization.format'];
  if (raw === undefined || raw === '') return undefined;
  if (/^[+-]?\d+$/.test(raw)) {
    const n = Number(raw);
    return n >= -128 && n <= 127 ? String.fromCharCode(n & 0xff) : raw.charAt(0);
  }
  return raw.charAt(0);
}
