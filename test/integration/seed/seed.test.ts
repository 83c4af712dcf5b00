// dev/seed against the real stack: seed the warehouse into hms-pg under a unique prefix, then check
// the manifest's facts against HMS (Thrift) and S3 (listing), read data back with pyarrow, prove the
// second run is a no-op, and clean up.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { openHms } from '../../../adapters/hms/thrift/connection';
import type { HmsConnection } from '../../../adapters/hms/thrift/connection';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';
import { seedWarehouse, unseedWarehouse } from '../../../dev/seed/warehouse';
import type { SeedOptions, SeedResult } from '../../../dev/seed/warehouse';
import type { SeedManifest, SeedTable } from '../../../dev/seed/manifest';
import { MANIFEST_HASH_PARAM, markerDatabase } from '../../../dev/seed/manifest';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
const run = promisify(execFile);

describe('dev/seed on hms-pg', () => {
  const prefix = uniqueName('seedt').toLowerCase();
  const opts: SeedOptions = {
    hms: env.HIM_HMS_PG_URI as string,
    seed: 42,
    prefix,
    bucket: 'hive',
    s3: {
      endpoint: env.HIM_S3_ENDPOINT as string,
      region: env.AWS_REGION as string,
      accessKeyId: env.AWS_ACCESS_KEY_ID as string,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string,
    },
    python: env.HIM_VERIFIER_PYTHON as string,
    force: false,
    log: () => undefined,
  };
  const s3 = new S3Client({
    endpoint: opts.s3.endpoint,
    region: opts.s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: opts.s3.accessKeyId, secretAccessKey: opts.s3.secretAccessKey },
  });
  const work = mkdtempSync(path.join(os.tmpdir(), 'seed-test-'));
  let result: SeedResult;
  let m: SeedManifest;
  let hms: HmsConnection;
  const table = (db: string, name: string): SeedTable => {
    const t = m.tables.find((x) => x.db === db && x.name === name);
    if (!t) throw new Error(`manifest has no ${db}.${name}`);
    return t;
  };
  const sales = `${prefix}_sales`;
  const misc = `${prefix}_misc`;
  // Without INSERT_ONLY_TABLES, HMS 4 refuses to return insert-only tables.
  const getTable = async (db: string, name: string): Promise<ttypes.Table> =>
    (
      await hms.call('get_table_req', (c) =>
        c.get_table_req(
          new ttypes.GetTableRequest({
            dbName: db,
            tblName: name,
            capabilities: new ttypes.ClientCapabilities({ values: [ttypes.ClientCapability.INSERT_ONLY_TABLES] }),
          }),
        ),
      )
    ).table;

  beforeAll(async () => {
    result = await seedWarehouse(opts);
    m = result.manifest;
    writeFileSync(path.join(work, 'manifest.json'), result.manifestText);
    hms = await openHms(opts.hms, { connectTimeoutMs: 10_000, callTimeoutMs: 120_000 });
  }, 600_000);

  afterAll(async () => {
    hms?.close();
    await unseedWarehouse(opts);
    const left = await s3.send(new ListObjectsV2Command({ Bucket: 'hive', Prefix: `seed/${prefix}/` }));
    s3.destroy();
    rmSync(work, { recursive: true, force: true });
    expect(left.KeyCount ?? 0).toBe(0);
  }, 300_000);

  it('registers every manifest table in its database, plus the marker database', async () => {
    expect(result.status).toBe('seeded');
    for (const d of m.databases) {
      const got = (await hms.call('get_all_tables', (c) => c.get_all_tables(d.name))).sort();
      expect(got).toEqual(
        m.tables
          .filter((t) => t.db === d.name)
          .map((t) => t.name)
          .sort(),
      );
    }
    const marker = await hms.call('get_database', (c) => c.get_database(markerDatabase(prefix)));
    expect(marker.parameters[MANIFEST_HASH_PARAM]).toBe(result.manifestSha256);
  });

  it('stores the null partition value as the default partition, in its own directory', async () => {
    const parts = await hms.call('get_partitions', (c) => c.get_partitions(sales, 'orders', -1));
    const nullPart = parts.find((p) => p.values[0] === '2025' && p.values[1] === '__HIVE_DEFAULT_PARTITION__');
    expect(nullPart?.sd.location).toBe(`${table(sales, 'orders').location}/year=2025/region=__HIVE_DEFAULT_PARTITION__`);
    const outside = parts.find((p) => p.values[0] === '2023');
    expect(outside?.sd.location).toBe(`s3a://hive/seed/${prefix}/outside/${sales}/orders_2023_eu`);
    expect(outside?.sd.location.startsWith(`${table(sales, 'orders').location}/`)).toBe(false);
  });

  it('keeps special-character values unescaped in HMS and escaped in names and locations', async () => {
    const loc = table(sales, 'special_parts').location as string;
    const parts = await hms.call('get_partitions', (c) => c.get_partitions(sales, 'special_parts', -1));
    const byValue = new Map(parts.map((p) => [p.values[0], p.sd.location]));
    expect(byValue.get('a/b')).toBe(`${loc}/k=a%2Fb`);
    expect(byValue.get('x=y')).toBe(`${loc}/k=x%3Dy`);
    expect(byValue.get('100%')).toBe(`${loc}/k=100%25`);
    expect(byValue.get('with space')).toBe(`${loc}/k=with space`);
    expect(byValue.get('ünï€')).toBe(`${loc}/k=ünï€`);
    const names = await hms.call('get_partition_names', (c) => c.get_partition_names(sales, 'special_parts', -1));
    expect(names).toEqual(expect.arrayContaining(['k=a%2Fb', 'k=x%3Dy', 'k=100%25', 'k=q%3F%23%2A', 'k=__HIVE_DEFAULT_PARTITION__']));
  });

  it('stores views with their original and db-qualified expanded text', async () => {
    const v = await getTable(sales, 'v_orders_eu_big');
    expect(v.tableType).toBe('VIRTUAL_VIEW');
    expect(v.viewExpandedText).toBe(
      `SELECT \`v_orders_eu\`.\`order_id\`, \`v_orders_eu\`.\`amount\` FROM \`${sales}\`.\`v_orders_eu\` WHERE \`v_orders_eu\`.\`amount\` > 5000`,
    );
    expect(v.viewOriginalText).toBe(table(sales, 'v_orders_eu_big').viewOriginalText);
    expect((await getTable(misc, 'v_big_customers')).viewExpandedText).toContain(`\`${sales}\`.\`v_orders_eu_big\``);
  });

  it('stores bucketing, skew (with its location map), drift, managed and insert-only tables as seeded', async () => {
    const b = await getTable(misc, 'users_bucketed');
    expect([b.sd.numBuckets, b.sd.bucketCols, b.sd.sortCols.map((s) => [s.col, s.order])]).toEqual([4, ['id'], [['id', 1]]]);

    const s = await getTable(misc, 'visits_skewed');
    expect(s.sd.storedAsSubDirectories).toBe(true);
    expect(s.sd.skewedInfo?.skewedColNames).toEqual(['country']);
    expect(s.sd.skewedInfo?.skewedColValues).toEqual([['DE'], ['US']]);
    // The seeder sends the location map (country=DE/US sub-directories) correctly on the wire, but
    // HMS 4.0.1 stores nothing in SKEWED_COL_VALUE_LOC_MAP on create_table or alter_table
    // (observed; checked in the backing DB): the map reads back empty. The files are in the
    // sub-directories all the same (next test), so a lister must recurse.
    expect(Object.values((s.sd.skewedInfo?.skewedColValueLocationMaps ?? {}) as Record<string, string>)).toEqual([]);
    expect(table(misc, 'visits_skewed').skew?.locations.map((l) => l.location)).toEqual([
      `${s.sd.location}/country=DE`,
      `${s.sd.location}/country=US`,
    ]);

    const drifted = await getTable(sales, 'drifted');
    const p1 = (await hms.call('get_partitions', (c) => c.get_partitions(sales, 'drifted', -1))).find(
      (p) => p.values[0] === '1',
    ) as ttypes.Partition;
    expect(drifted.sd.cols.map((c) => `${c.name}:${c.type}`)).toEqual(['id:bigint', 'name:string', 'extra:double']);
    expect(p1.sd.cols.map((c) => `${c.name}:${c.type}`)).toEqual(['id:int', 'name:string']);

    expect((await getTable(sales, 'customers')).tableType).toBe('MANAGED_TABLE');
    const io = await getTable(misc, 'audit_insert_only');
    expect([io.tableType, io.parameters.transactional, io.parameters.transactional_properties]).toEqual([
      'MANAGED_TABLE',
      'true',
      'insert_only',
    ]);
    // Full ACID: a standalone HMS refuses it (no hive-exec ORC classes); the seeder says so.
    const acid = await getTable(misc, 'accounts_acid');
    if (acid.parameters.transactional === 'true') expect(result.refused).toEqual([]);
    else expect(result.refused.map((r) => r.table)).toEqual([`${misc}.accounts_acid`]);
  });

  it('has every manifest file on S3 with the manifest size', async () => {
    const sizes = new Map<string, number>();
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: 'hive', Prefix: `seed/${prefix}/`, ContinuationToken: token }));
      for (const o of page.Contents ?? []) sizes.set(o.Key as string, o.Size as number);
      token = page.NextContinuationToken;
    } while (token);
    const files = m.tables.flatMap((t) => t.files);
    expect(files.length).toBeGreaterThan(30);
    for (const f of files) expect([f.key, sizes.get(f.key)]).toEqual([f.key, f.size]);
    expect(sizes.has(`seed/${prefix}/${sales}/special_parts/k=a%2Fb/000000_0`)).toBe(true);
  });

  it.each([['all_types'], ['orders']])('reads %s back with pyarrow to the manifest checksum', async (name) => {
    const { stdout } = await run(
      opts.python,
      [
        path.join(__dirname, '../../../dev/seed/read_files.py'),
        '--manifest',
        path.join(work, 'manifest.json'),
        '--table',
        `${sales}.${name}`,
        '--s3-endpoint',
        opts.s3.endpoint,
      ],
      {
        env: { ...process.env, ...env },
      },
    );
    const got = JSON.parse(stdout) as { rows: number; checksum: string };
    expect(got).toEqual({ table: `${sales}.${name}`, rows: table(sales, name).rows, checksum: table(sales, name).checksum });
  });

  it('finds the warehouse already seeded on a second run', async () => {
    const again = await seedWarehouse(opts);
    expect([again.status, again.manifestSha256]).toEqual(['already-seeded', result.manifestSha256]);
  });
});
