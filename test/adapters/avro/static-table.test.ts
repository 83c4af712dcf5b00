// End-to-end proof of the metadata path without a catalog: existing Parquet files (Hive layout,
// partition columns only in the path) + our manifests, manifest list and metadata.json, loaded with
// PyIceberg's StaticTable.from_metadata and scanned. The content checksum (jobs/canonical.py)
// must equal the one computed from the original files plus the partition values — and a wrong
// partition value must change it (a row count alone proves nothing).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHiveType } from '../../../core/hive/types';
import { writeManifestList } from '../../../adapters/avro/manifest-list-writer';
import { writeManifests } from '../../../adapters/avro/manifest-writer';
import { deriveSnapshotId, deriveTableUuid } from '../../../core/iceberg/ids';
import type { DataFile } from '../../../core/iceberg/manifest';
import { addedManifestEntry } from '../../../core/iceberg/manifest';
import { buildInitialMetadata, metadataFileName } from '../../../core/iceberg/metadata';
import { toMetadataJson } from '../../../core/iceberg/metadata-json';
import { buildNameMapping, nameMappingToJson } from '../../../core/iceberg/name-mapping';
import { identitySpec } from '../../../core/iceberg/partition-spec';
import { convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import { TableProperty } from '../../../core/iceberg/spec-constants';
import { testStack } from '../../helpers/stack-env';
import { localOutput } from './local-output';

const PY = join(__dirname, 'pyiceberg_probe.py');
const probe = (...args: string[]): { rows: number; checksum: string } =>
  JSON.parse(execFileSync(testStack().HIM_VERIFIER_PYTHON ?? 'python3', [PY, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })) as {
    rows: number;
    checksum: string;
  };

const p = (t: string) => parseHiveType(t);
const { schema } = convertHiveSchemaOrThrow(
  [
    { name: 'id', type: p('bigint'), comment: null },
    { name: 'name', type: p('string'), comment: null },
    { name: 'price', type: p('decimal(9,2)'), comment: null },
  ],
  [
    { name: 'dt', type: p('date'), comment: null },
    { name: 'country', type: p('string'), comment: null },
  ],
);
const spec = identitySpec(schema, ['dt', 'country']);
const days = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'him-static-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface FileSpec {
  path: string;
  dt: string | null;
  country: string | null;
  rows: { id: number; name: string | null; price: string | null }[];
}

async function writeTable(name: string, files: FileSpec[], written: { path: string; size: number; rows: number }[]): Promise<string> {
  const id = { planHash: 'test-plan', table: name };
  const location = `file://${join(dir, name)}`;
  mkdirSync(join(dir, name, 'metadata'), { recursive: true });
  async function* dataFiles(): AsyncGenerator<DataFile> {
    for (const [i, f] of files.entries()) {
      const w = written[i];
      if (w === undefined) throw new Error('missing written file');
      yield {
        filePath: `file://${f.path}`,
        fileFormat: 'PARQUET',
        partition: [f.dt === null ? null : days(f.dt), f.country],
        recordCount: w.rows,
        fileSizeInBytes: w.size,
      };
    }
  }
  const result = await writeManifests(dataFiles(), {
    schema,
    spec,
    maxEntriesPerManifest: 2,
    open: async (i) => ({ path: `${location}/metadata/m${i}.avro`, file: await localOutput(join(dir, name, 'metadata', `m${i}.avro`)) }),
  });
  const snapshotId = deriveSnapshotId(id);
  const listName = `snap-${snapshotId}-1-list.avro`;
  await writeManifestList({
    path: `${location}/metadata/${listName}`,
    file: await localOutput(join(dir, name, 'metadata', listName)),
    snapshotId,
    parentSnapshotId: null,
    sequenceNumber: 1,
    manifests: result.manifests.map((m) => addedManifestEntry(m, snapshotId, 1)),
  });
  const { metadata } = buildInitialMetadata({
    uuid: deriveTableUuid(id),
    location,
    schema,
    spec,
    properties: { [TableProperty.NAME_MAPPING_DEFAULT]: nameMappingToJson(buildNameMapping(schema)), [TableProperty.GC_ENABLED]: 'false' },
    snapshot: {
      snapshotId,
      manifestList: `${location}/metadata/${listName}`,
      totals: {
        addedDataFiles: result.dataFiles,
        addedRecords: result.records,
        addedFilesSize: result.filesSize,
        changedPartitionCount: result.changedPartitions,
      },
    },
    timestampMs: 1_700_000_000_000,
  });
  const metaPath = metadataFileName(join(dir, name), 0, metadata.tableUuid);
  writeFileSync(metaPath, toMetadataJson(metadata));
  return metaPath;
}

test('PyIceberg StaticTable scan of our metadata returns exactly the original rows with partition values', async () => {
  const data = join(dir, 'warehouse', 'sales');
  const files: FileSpec[] = [
    {
      path: join(data, 'dt=2024-01-01/country=US/f0.parquet'),
      dt: '2024-01-01',
      country: 'US',
      rows: [
        { id: 1, name: 'a', price: '1.50' },
        { id: 2, name: null, price: '-3.25' },
      ],
    },
    { path: join(data, 'dt=2024-01-01/country=DE/f1.parquet'), dt: '2024-01-01', country: 'DE', rows: [{ id: 3, name: 'ü', price: null }] },
    {
      path: join(data, 'dt=2024-01-02/country=__HIVE_DEFAULT_PARTITION__/f2.parquet'),
      dt: '2024-01-02',
      country: null,
      rows: [{ id: 4, name: 'n', price: '0.01' }],
    },
    {
      path: join(data, 'dt=__HIVE_DEFAULT_PARTITION__/country=a%2Fb/f3.parquet'),
      dt: null,
      country: 'a/b',
      rows: [
        { id: 5, name: 'esc', price: '9999999.99' },
        { id: 6, name: 'x', price: '0.00' },
      ],
    },
  ];
  const specPath = join(dir, 'files.json');
  writeFileSync(specPath, JSON.stringify({ files }));
  const written = probe('write-parquet', specPath) as unknown as { path: string; size: number; rows: number }[];
  const expected = probe('expected', specPath);
  expect(expected.rows).toBe(6);

  const scanned = probe('scan', await writeTable('good', files, written));
  expect(scanned.rows).toBe(6);
  expect(scanned.checksum).toBe(expected.checksum);

  // Same files, one wrong partition value: same row count, different content.
  const wrong = files.map((f, i) => (i === 1 ? { ...f, country: 'FR' } : f));
  const bad = probe('scan', await writeTable('wrong', wrong, written));
  expect(bad.rows).toBe(6);
  expect(bad.checksum).not.toBe(expected.checksum);
});
