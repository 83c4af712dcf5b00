// Smoke: both Hive Metastores of the local stack answer Thrift through the generated code and our
// connection module, and register an external Parquet table on s3a:// (which makes HMS touch S3).
import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { openHms, probeHms } from '../../../adapters/hms/thrift/connection';
import type { HmsConnection } from '../../../adapters/hms/thrift/connection';
import type { MigrationError } from '../../../core/errors';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
// The first S3 call after an HMS start takes tens of seconds (S3A client set-up).
const CALL_TIMEOUT_MS = 120_000;

type TableArgs = NonNullable<ConstructorParameters<typeof ttypes.Table>[0]>;

function parquetTable(db: string, name: string, location: string): ttypes.Table {
  const args: Omit<TableArgs, 'viewOriginalText' | 'viewExpandedText'> = {
    tableName: name,
    dbName: db,
    owner: 'him-test',
    createTime: Math.floor(Date.now() / 1000),
    lastAccessTime: 0,
    retention: 0,
    sd: new ttypes.StorageDescriptor({
      cols: [
        new ttypes.FieldSchema({ name: 'id', type: 'bigint', comment: 'row id' }),
        new ttypes.FieldSchema({ name: 'payload', type: 'string', comment: '' }),
      ],
      location,
      inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
      outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
      compressed: false,
      numBuckets: -1,
      serdeInfo: new ttypes.SerDeInfo({
        name: name,
        serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
        parameters: { 'serialization.format': '1' },
      }),
      bucketCols: [],
      sortCols: [],
      parameters: {},
    }),
    partitionKeys: [new ttypes.FieldSchema({ name: 'dt', type: 'string', comment: '' })],
    parameters: { EXTERNAL: 'TRUE' },
    tableType: 'EXTERNAL_TABLE',
  };
  // Views only: left unset (null on the wire), as Hive itself sends them.
  return new ttypes.Table(args as TableArgs);
}

describe.each([
  ['hms-pg', env.HIM_HMS_PG_URI as string],
  ['hms-mariadb', env.HIM_HMS_MARIADB_URI as string],
])('Hive Metastore %s', (_name, uri) => {
  let hms: HmsConnection;
  const s3 = new S3Client({
    endpoint: env.HIM_S3_ENDPOINT,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID as string, secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string },
  });

  beforeAll(async () => {
    hms = await openHms(uri, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
  });
  afterAll(() => {
    hms?.close();
    s3.destroy();
  });

  it('answers the probe with its version', async () => {
    const p = await probeHms(uri, 10_000);
    expect(p.databases).toBeGreaterThanOrEqual(1);
    expect(p.version).toBe('4.0.1');
  });

  it('lists databases, creates/reads/drops an external Parquet table on s3a://', async () => {
    expect(await hms.call('get_all_databases', (c) => c.get_all_databases())).toContain('default');

    const db = uniqueName('smoke');
    const table = 'events';
    const location = `s3a://hive/external/${db}/${table}`;
    await hms.call('create_database', (c) =>
      c.create_database(
        new ttypes.Database({ name: db, description: 'hms.test.ts smoke', locationUri: `s3a://hive/external/${db}`, parameters: {} }),
      ),
    );
    try {
      // create_table on s3a:// makes HMS create the table directory through S3A: it would fail
      // here with a ClassNotFoundException/credentials error if the S3A wiring were wrong.
      await hms.call('create_table', (c) => c.create_table(parquetTable(db, table, location)));

      const got = (await hms.call('get_table_req', (c) => c.get_table_req(new ttypes.GetTableRequest({ dbName: db, tblName: table }))))
        .table;
      expect(got.tableType).toBe('EXTERNAL_TABLE');
      expect(got.sd.location).toBe(location);
      expect(got.sd.cols.map((f) => [f.name, f.type])).toEqual([
        ['id', 'bigint'],
        ['payload', 'string'],
      ]);
      expect(got.partitionKeys.map((f) => [f.name, f.type])).toEqual([['dt', 'string']]);
      expect(got.sd.serdeInfo.serializationLib).toBe('org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe');
      expect(got.parameters.EXTERNAL).toBe('TRUE');
      // Transformer disabled: no translation markers.
      expect(got.parameters.TRANSLATED_TO_EXTERNAL).toBeUndefined();

      // HMS made the table directory: an S3A directory marker under the location.
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'hive', Prefix: `external/${db}/${table}` }));
      expect((listed.Contents ?? []).map((o) => o.Key)).toContain(`external/${db}/${table}/`);

      await hms.call('drop_table', (c) => c.drop_table(db, table, false));
      const gone = await hms
        .call('get_table_req', (c) => c.get_table_req(new ttypes.GetTableRequest({ dbName: db, tblName: table })))
        .then(
          () => undefined,
          (e: MigrationError) => e,
        );
      expect(gone?.code).toBe('HMS_NOT_FOUND');
      expect(gone?.context.thriftType).toBe('NoSuchObjectException');
    } finally {
      await hms.call('drop_database', (c) => c.drop_database(db, true, true));
      const left = await s3.send(new ListObjectsV2Command({ Bucket: 'hive', Prefix: `external/${db}/` }));
      for (const o of left.Contents ?? []) await s3.send(new DeleteObjectCommand({ Bucket: 'hive', Key: o.Key }));
    }
    expect(await hms.call('get_all_databases', (c) => c.get_all_databases())).not.toContain(db);
  });
});
