// Golden files: test/fixtures/iceberg/metadata. Regenerate the valid ones with UPDATE_GOLDEN=1 and
// review the diff; the invalid-*.json files are hand-written, each breaking one v2 rule.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../../../core/errors';
import { parseHiveType } from '../../../core/hive/types';
import { deriveSnapshotId, deriveTableUuid, nameBasedUuid } from '../../../core/iceberg/ids';
import { parseJson, stringifyJson } from '../../../core/iceberg/json';
import { buildInitialMetadata, metadataFileName } from '../../../core/iceberg/metadata';
import { fromMetadataJson, toMetadataJson } from '../../../core/iceberg/metadata-json';
import { buildNameMapping, nameMappingToJson } from '../../../core/iceberg/name-mapping';
import { identitySpec, UNPARTITIONED_SPEC } from '../../../core/iceberg/partition-spec';
import { convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import { sha256Hex } from '../../../core/hash';

const DIR = join(__dirname, '../../fixtures/iceberg/metadata');
const golden = (name: string, text: string): void => {
  const path = join(DIR, name);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, 'utf8'));
};

const id = { planHash: 'sha256:0f1e2d', table: 'hms:sales.orders->rest:sales.orders' };
const { schema } = convertHiveSchemaOrThrow(
  [
    { name: 'id', type: parseHiveType('bigint'), comment: 'order id' },
    { name: 'amount', type: parseHiveType('decimal(12,2)'), comment: null },
  ],
  [{ name: 'dt', type: parseHiveType('date'), comment: null }],
);

function partitioned() {
  const snapshotId = deriveSnapshotId(id);
  return buildInitialMetadata({
    uuid: deriveTableUuid(id),
    location: 's3a://warehouse/sales.db/orders/',
    schema,
    spec: identitySpec(schema, ['dt']),
    properties: {
      'schema.name-mapping.default': nameMappingToJson(buildNameMapping(schema)),
      'gc.enabled': 'false',
      'migrated-from': 'hms:sales.orders',
    },
    snapshot: {
      snapshotId,
      manifestList: `s3a://warehouse/sales.db/orders/metadata/snap-${snapshotId}-1-x.avro`,
      totals: { addedDataFiles: 3, addedRecords: 3000, addedFilesSize: 12345, changedPartitionCount: 2 },
      summaryExtra: { 'engine-name': 'hms-iceberg-migrator', 'engine-version': '0.1.0' },
    },
    timestampMs: 1_700_000_000_000,
  });
}

test('sha256 and derived ids are standard and stable', () => {
  expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  expect(sha256Hex('a'.repeat(1000))).toBe('41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3');
  const uuid = deriveTableUuid(id);
  expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(deriveTableUuid(id)).toBe(uuid);
  expect(deriveTableUuid({ ...id, planHash: 'other' })).not.toBe(uuid);
  const snap = deriveSnapshotId(id);
  expect(snap > 0n && snap < 2n ** 63n).toBe(true);
  expect(() => nameBasedUuid('nope', 'x')).toThrow(expect.objectContaining({ code: ErrorCode.ICEBERG_VALUE_INVALID }));
});

test('lossless JSON keeps 63-bit ids exact', () => {
  const text = '{"a":9223372036854775807,"b":-9007199254740993,"c":1.5e3,"d":[1,"x\\u00e9"],"e":12}';
  const v = parseJson(text) as Record<string, unknown>;
  expect(v).toEqual({ a: 9223372036854775807n, b: -9007199254740993n, c: 1500, d: [1, 'xé'], e: 12 });
  expect(
    JSON.parse(
      stringifyJson(v)
        .replace(/\s/g, '')
        .replace(/9223372036854775807/, '1'),
    ),
  ).toMatchObject({ a: 1 });
  expect(stringifyJson({ a: 9223372036854775807n })).toBe('{\n  "a": 9223372036854775807\n}');
  expect(() => parseJson('{"a":1,}')).toThrow(expect.objectContaining({ code: ErrorCode.ICEBERG_METADATA_INVALID }));
});

test('partitioned table with its append: golden metadata.json, changes, round trip', () => {
  const { metadata, changes } = partitioned();
  golden('valid-partitioned.metadata.json', toMetadataJson(metadata));
  expect(changes.map((c) => c.action)).toEqual([
    'assign-uuid',
    'upgrade-format-version',
    'add-schema',
    'set-current-schema',
    'add-spec',
    'set-default-spec',
    'add-sort-order',
    'set-default-sort-order',
    'set-location',
    'set-properties',
    'add-snapshot',
    'set-snapshot-ref',
  ]);
  expect(metadata).toMatchObject({
    lastSequenceNumber: 1,
    lastColumnId: 3,
    lastPartitionId: 1000,
    location: 's3a://warehouse/sales.db/orders',
  });
  const summary = metadata.snapshots[0]?.summary;
  for (const k of [
    'total-records',
    'total-files-size',
    'total-data-files',
    'total-delete-files',
    'total-position-deletes',
    'total-equality-deletes',
  ]) {
    expect(typeof summary?.[k]).toBe('string');
  }
  expect(summary).toMatchObject({ operation: 'append', 'added-data-files': '3', 'total-records': '3000' });
  expect(fromMetadataJson(toMetadataJson(metadata))).toEqual(metadata);
  expect(metadataFileName(metadata.location, 0, metadata.tableUuid)).toBe(
    `s3a://warehouse/sales.db/orders/metadata/00000-${metadata.tableUuid}.metadata.json`,
  );
});

test('unpartitioned empty table: golden, last-partition-id 999, current-snapshot-id -1', () => {
  const { metadata, changes } = buildInitialMetadata({
    uuid: deriveTableUuid(id),
    location: 's3://b/t',
    schema,
    spec: UNPARTITIONED_SPEC,
    properties: {},
    timestampMs: 1_700_000_000_000,
  });
  const text = toMetadataJson(metadata);
  golden('valid-unpartitioned-empty.metadata.json', text);
  expect(parseJson(text)).toMatchObject({ 'last-partition-id': 999, 'current-snapshot-id': -1, refs: {}, snapshots: [] });
  expect(changes.some((c) => c.action === 'add-snapshot')).toBe(false);
  expect(fromMetadataJson(text)).toEqual(metadata);
});

test('metadata written by Java (63-bit ids, -1 and unknown keys) reads exactly', () => {
  const m = fromMetadataJson(readFileSync(join(DIR, 'valid-java-style.metadata.json'), 'utf8'));
  expect(m.currentSnapshotId).toBe(7051374017592913813n);
  expect(m.snapshots.map((s) => s.parentSnapshotId)).toEqual([undefined, 3776207205136740581n]);
  expect(m.refs.main?.snapshotId).toBe(7051374017592913813n);
});

test('the builder refuses bad input', () => {
  const base = { uuid: deriveTableUuid(id), schema, spec: UNPARTITIONED_SPEC, properties: {}, timestampMs: 1 };
  expect(() => buildInitialMetadata({ ...base, location: '/no/scheme' })).toThrow(
    expect.objectContaining({ code: ErrorCode.ICEBERG_METADATA_INVALID }),
  );
  expect(() => buildInitialMetadata({ ...base, location: 's3://b/t', lastColumnId: 1 })).toThrow(
    expect.objectContaining({ code: ErrorCode.ICEBERG_METADATA_INVALID }),
  );
  const snap = {
    snapshotId: 0n,
    manifestList: 's3://b/t/m.avro',
    totals: { addedDataFiles: 0, addedRecords: 0, addedFilesSize: 0, changedPartitionCount: 0 },
  };
  expect(() => buildInitialMetadata({ ...base, location: 's3://b/t', snapshot: snap })).toThrow(
    expect.objectContaining({ code: ErrorCode.ICEBERG_METADATA_INVALID }),
  );
  expect(() =>
    buildInitialMetadata({ ...base, location: 's3://b/t', snapshot: { ...snap, snapshotId: 1n, summaryExtra: { 'total-records': '9' } } }),
  ).toThrow(expect.objectContaining({ code: ErrorCode.ICEBERG_METADATA_INVALID }));
});

describe('named-invalid golden files are rejected with the right code', () => {
  const invalid = readdirSync(DIR)
    .filter((f) => f.startsWith('invalid-'))
    .sort();
  test('there are invalid fixtures', () => expect(invalid.length).toBeGreaterThanOrEqual(8));
  test.each(invalid)('%s', (file) => {
    const code = file.includes('format-version') ? ErrorCode.ICEBERG_FORMAT_VERSION_UNSUPPORTED : ErrorCode.ICEBERG_METADATA_INVALID;
    expect(() => fromMetadataJson(readFileSync(join(DIR, file), 'utf8'))).toThrow(expect.objectContaining({ code }));
  });
});
