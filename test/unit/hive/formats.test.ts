// Format detection: table-driven over the input format / SerDe combinations Hive writes.
import { detectFormat } from '../../../core/hive/formats';
import type { FileFormat, Params } from '../../../core/hive/model';

const IF = {
  parquet: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  orc: 'org.apache.hadoop.hive.ql.io.orc.OrcInputFormat',
  avro: 'org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat',
  text: 'org.apache.hadoop.mapred.TextInputFormat',
  seq: 'org.apache.hadoop.mapred.SequenceFileInputFormat',
  rc: 'org.apache.hadoop.hive.ql.io.RCFileInputFormat',
  iceberg: 'org.apache.iceberg.mr.hive.HiveIcebergInputFormat',
};
const SERDE = {
  parquet: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
  orc: 'org.apache.hadoop.hive.ql.io.orc.OrcSerde',
  avro: 'org.apache.hadoop.hive.serde2.avro.AvroSerDe',
  lazy: 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe',
  csv: 'org.apache.hadoop.hive.serde2.OpenCSVSerde',
  json: 'org.apache.hadoop.hive.serde2.JsonSerDe',
  hcatJson: 'org.apache.hive.hcatalog.data.JsonSerDe',
  openxJson: 'org.openx.data.jsonserde.JsonSerDe',
  columnar: 'org.apache.hadoop.hive.serde2.columnar.ColumnarSerDe',
  lazyBinaryColumnar: 'org.apache.hadoop.hive.serde2.columnar.LazyBinaryColumnarSerDe',
  regex: 'org.apache.hadoop.hive.serde2.RegexSerDe',
  hbase: 'org.apache.hadoop.hive.hbase.HBaseSerDe',
  iceberg: 'org.apache.iceberg.mr.hive.HiveIcebergSerDe',
};

// Every row has all six entries: jest treats a callback parameter beyond the row's length as `done`.
const cases: [string, string | null, string | null, Params, FileFormat, Params][] = [
  ['parquet', IF.parquet, SERDE.parquet, {}, 'parquet', {}],
  ['legacy parquet', 'parquet.hive.DeprecatedParquetInputFormat', 'parquet.hive.serde.ParquetHiveSerDe', {}, 'parquet', {}],
  ['orc', IF.orc, SERDE.orc, {}, 'orc', {}],
  ['avro', IF.avro, SERDE.avro, {}, 'avro', {}],
  ['text (default ^A)', IF.text, SERDE.lazy, { 'serialization.format': '1' }, 'text', {}],
  ['text, tab delimited', IF.text, SERDE.lazy, { 'field.delim': '\t' }, 'text', {}],
  ['text, comma delimited = csv', IF.text, SERDE.lazy, { 'field.delim': ',', 'serialization.format': ',' }, 'csv', {}],
  ['text, comma as byte value 44 = csv', IF.text, SERDE.lazy, { 'serialization.format': '44' }, 'csv', {}],
  [
    'text, field.delim wins over serialization.format',
    IF.text,
    SERDE.lazy,
    { 'field.delim': '|', 'serialization.format': ',' },
    'text',
    {},
  ],
  ['OpenCSVSerde', IF.text, SERDE.csv, { separatorChar: ';' }, 'csv', {}],
  ['Hive JsonSerDe', IF.text, SERDE.json, {}, 'json', {}],
  ['HCatalog JsonSerDe', IF.text, SERDE.hcatJson, {}, 'json', {}],
  ['openx JsonSerDe', IF.text, SERDE.openxJson, {}, 'json', {}],
  ['RegexSerDe text', IF.text, SERDE.regex, { 'input.regex': '(.*)' }, 'text', {}],
  ['sequencefile', IF.seq, SERDE.lazy, {}, 'sequencefile', {}],
  ['rcfile (ColumnarSerDe)', IF.rc, SERDE.columnar, {}, 'rcfile', {}],
  ['rcfile (LazyBinaryColumnarSerDe)', IF.rc, SERDE.lazyBinaryColumnar, {}, 'rcfile', {}],
  ['parquet serde without input format', null, SERDE.parquet, {}, 'parquet', {}],
  ['storage handler (HBase)', null, SERDE.hbase, {}, 'other', { storage_handler: 'org.apache.hadoop.hive.hbase.HBaseStorageHandler' }],
  ['storage handler wins over a parquet-looking SD', IF.parquet, SERDE.parquet, {}, 'other', { storage_handler: 'x.Handler' }],
  ['Iceberg table', IF.iceberg, SERDE.iceberg, {}, 'other', { storage_handler: 'org.apache.iceberg.mr.hive.HiveIcebergStorageHandler' }],
  ['view (nothing set)', null, null, {}, 'other', {}],
  ['unknown input format', 'com.example.FancyInputFormat', SERDE.lazy, {}, 'other', {}],
  ['text input + unknown serde', IF.text, 'com.example.MySerDe', {}, 'other', {}],
  ['whitespace around class names', ` ${IF.orc} `, ` ${SERDE.orc}`, {}, 'orc', {}],
];

describe('detectFormat', () => {
  it.each(cases)('%s', (_name, inputFormat, serializationLib, parameters, expected, tableParams) => {
    expect(detectFormat({ inputFormat, serde: { name: null, serializationLib, parameters } }, tableParams)).toBe(expected);
  });
});
