// IcebergCatalog.hiveOriginalPlace of the Hive catalog (adapters/catalog/hive.ts): where an in-place
// conversion keeps the Hive original — what apply's audit event and the nightly HMS check rely on.
// Pure: the answer needs no HMS, so the catalog gets no reader, writer or store.
import type { HiveTable } from '../../../core/hive/model';
import { HIVE_ORIGINAL_UNTOUCHED } from '../../../core/catalog/catalog';
import type { HiveCatalogOptions } from '../../../adapters/catalog/hive';
import { HiveIcebergCatalog, externalized, originalAsideName } from '../../../adapters/catalog/hive';

const table = (partitioned: boolean, managed: boolean): HiveTable => ({
  database: 'sales',
  name: 'orders',
  owner: 'alice',
  ownerType: 'USER',
  createTime: 1_700_000_000,
  lastAccessTime: 0,
  retention: 0,
  tableType: managed ? 'MANAGED_TABLE' : 'EXTERNAL_TABLE',
  sd: {
    columns: [{ name: 'id', type: 'bigint', comment: null }],
    location: 's3a://wh/sales/orders',
    inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
    outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
    compressed: false,
    numBuckets: -1,
    serde: { name: null, serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe', parameters: {} },
    bucketColumns: [],
    sortColumns: [],
    parameters: {},
    skewed: null,
    storedAsSubDirectories: false,
  },
  partitionKeys: partitioned ? [{ name: 'region', type: 'string', comment: null }] : [],
  parameters: managed ? { 'owner.team': 'sales' } : { EXTERNAL: 'TRUE', 'owner.team': 'sales' },
  viewOriginalText: null,
  viewExpandedText: null,
  temporary: false,
});

const catalog = (mode: HiveCatalogOptions['mode']): HiveIcebergCatalog =>
  new HiveIcebergCatalog({ name: 'hive', mode, reader: undefined as never, writer: undefined as never, store: undefined as never });

describe('HiveIcebergCatalog.hiveOriginalPlace', () => {
  it('register mode leaves the Hive table untouched', () => {
    expect(catalog('register').hiveOriginalPlace('orders', table(true, true))).toEqual(HIVE_ORIGINAL_UNTOUCHED);
    expect(catalog(undefined).hiveOriginalPlace('orders', table(false, true))).toEqual(HIVE_ORIGINAL_UNTOUCHED);
  });

  it('in place, unpartitioned: the HMS object itself is altered', () => {
    expect(catalog('in-place').hiveOriginalPlace('orders', table(false, true))).toEqual({ kind: 'altered' });
  });

  it.each([true, false])(
    'in place, partitioned (managed: %s): aside under the suffixed name, read back as the saved original',
    (managed) => {
      const original = table(true, managed);
      const place = catalog('in-place').hiveOriginalPlace('orders', original);
      if (place.kind !== 'aside') throw new Error(`expected aside, got ${place.kind}`);
      expect(place.name).toBe(originalAsideName('orders'));
      expect(place.name).toBe('orders__him_original');
      // What HMS holds aside: made EXTERNAL and renamed; seen as the original again.
      const aside = { ...externalized(original), name: place.name };
      expect(place.asOriginal(aside)).toEqual(original);
    },
  );
});
