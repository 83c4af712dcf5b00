// Smoke: the HMS 3.1.3 component (hms3-pg) answers Thrift, and creates/reads an external Parquet
// table on s3a:// (3.1 still has get_table; the 4.0.1 instances do not).
import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { openHms, probeHms } from '../../../adapters/hms/thrift/connection';
import type { HmsConnection } from '../../../adapters/hms/thrift/connection';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
type TableArgs = NonNullable<ConstructorParameters<typeof ttypes.Table>[0]>;
const uri = env.HIM_HMS3_PG_URI as string;

describe('Hive Metastore 3.1.3 (hms3-pg)', () => {
  let hms: HmsConnection;
  const s3 = new S3Client({
    endpoint: env.HIM_S3_ENDPOINT,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID as string, secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string },
  });

  beforeAll(async () => {
    // The first S3 call after an HMS start takes tens of seconds (S3A client set-up).
    hms = await openHms(uri, { connectTimeoutMs: 10_000, callTimeoutMs: 120_000 });
  });
  afterAll(() => {
    hms?.close();
    s3.destroy();
  });

  it('answers get_all_databases through the probe', async () => {
    const p = await probeHms(uri, 10_000);
    expect(p.databases).toBeGreaterThanOrEqual(1);
    expect(await hms.call('get_all_databases', (c) => c.get_all_databases())).toContain('default');
  });

  it('creates and reads back an external Parquet table on s3a://', async () => {
    const db = uniqueName('hms3_smoke');
    const location = `s3a://hive/external-hms3/${db}/events`;
    await hms.call('create_database', (c) =>
      c.create_database(
        new ttypes.Database({ name: db, description: 'hms3 smoke', locationUri: `s3a://hive/external-hms3/${db}`, parameters: {} }),
      ),
    );
    try {
      const args: Omit<TableArgs, 'viewOriginalText' | 'viewExpandedText'> = {
        tableName: 'events',
        dbName: db,
        owner: 'him-test',
        createTime: 0,
        lastAccessTime: 0,
        retention: 0,
        sd: new ttypes.StorageDescriptor({
          cols: [
            new ttypes.FieldSchema({ name: 'id', type: 'bigint', comment: '' }),
            new ttypes.FieldSchema({ name: 'tags', type: 'map<string,array<int>>', comment: '' }),
          ],
          location,
          inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
          compressed: false,
          numBuckets: -1,
          serdeInfo: new ttypes.SerDeInfo({
            name: 'events',
            serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
            parameters: {},
          }),
          bucketCols: [],
          sortCols: [],
          parameters: {},
        }),
        partitionKeys: [new ttypes.FieldSchema({ name: 'dt', type: 'string', comment: '' })],
        parameters: { EXTERNAL: 'TRUE' },
        tableType: 'EXTERNAL_TABLE',
      };
      // View texts stay unset (null on the wire), as Hive sends them for tables.
      const table = new ttypes.Table(args as TableArgs);
      await hms.call('create_table', (c) => c.create_table(table));
      const got = (await hms.call('get_table_req', (c) => c.get_table_req(new ttypes.GetTableRequest({ dbName: db, tblName: 'events' }))))
        .table;
      expect(got.tableType).toBe('EXTERNAL_TABLE');
      expect(got.sd.location).toBe(location);
      expect(got.sd.cols.map((f) => [f.name, f.type])).toEqual([
        ['id', 'bigint'],
        ['tags', 'map<string,array<int>>'],
      ]);
      expect(got.partitionKeys.map((f) => f.name)).toEqual(['dt']);
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'hive', Prefix: `external-hms3/${db}/events` }));
      expect((listed.Contents ?? []).map((o) => o.Key)).toContain(`external-hms3/${db}/events/`);
      await hms.call('drop_table', (c) => c.drop_table(db, 'events', false));
    } finally {
      await hms.call('drop_database', (c) => c.drop_database(db, false, true));
      const left = await s3.send(new ListObjectsV2Command({ Bucket: 'hive', Prefix: `external-hms3/${db}/` }));
      for (const o of left.Contents ?? []) await s3.send(new DeleteObjectCommand({ Bucket: 'hive', Key: o.Key }));
    }
  });
});
