// A table we write ourselves, ready to register: Hive-layout Parquet files from pyarrow
// (parquet_files.py) uploaded to the stack's S3 under a unique prefix, per-file stats from our
// Parquet footer reader, manifests + manifest list (adapters/avro) and a v2 metadata.json
// (core/iceberg buildInitialMetadata) uploaded next to them. Also the independent readers.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteObjectsCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { OutputFile } from '../../../adapters/avro/container';
import { writeManifestList } from '../../../adapters/avro/manifest-list-writer';
import { writeManifests } from '../../../adapters/avro/manifest-writer';
import { ParquetFooterReader } from '../../../adapters/storage/object-read/parquet-footer-reader';
import { S3ObjectStore } from '../../../adapters/storage/s3-store';
import { parseHiveType } from '../../../core/hive/types';
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

const run = promisify(execFile);
export const BUCKET = 'warehouse';

export function s3Client(): S3Client {
  const env = testStack();
  return new S3Client({
    endpoint: env.HIM_S3_ENDPOINT,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '' },
  });
}

const keyOf = (uri: string): string => uri.replace(/^s3a?:\/\/[^/]+\//, '');

/** Buffers in memory, uploads on close (manifests of a test table are small). */
function s3Output(client: S3Client, uri: string): OutputFile {
  const chunks: Uint8Array[] = [];
  return {
    write: async (c) => {
      chunks.push(Uint8Array.from(c));
    },
    close: async () => {
      const body = Buffer.concat(chunks);
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: keyOf(uri), Body: body }));
      return { length: body.length };
    },
  };
}

export async function putText(client: S3Client, uri: string, text: string): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: keyOf(uri), Body: text, ContentType: 'application/json' }));
}

export async function objectExists(client: S3Client, uri: string): Promise<boolean> {
  try {
    await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: keyOf(uri) }));
    return true;
  } catch (e) {
    if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw e;
  }
}

/** Delete every object under `s3://warehouse/<prefix>/` (test cleanup of our own prefix). */
export async function deletePrefix(client: S3Client, prefix: string): Promise<number> {
  let n = 0;
  for (;;) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix.replace(/\/+$/, '')}/` }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key ?? '' }));
    if (keys.length === 0) return n;
    await client.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys } }));
    n += keys.length;
  }
}

export interface WrittenTable {
  readonly location: string;
  readonly metadataLocation: string;
  readonly metadataJson: string;
  readonly snapshotId: bigint;
  readonly dataFiles: string[];
  /** Manifests and the manifest list. */
  readonly metadataFiles: string[];
  readonly expected: { rows: number; checksum: string };
}

interface PyFiles {
  files: { name: string; region: string; rows: number }[];
  rows: number;
  checksum: string;
}

/** Write data + metadata for a table at `s3://warehouse/<prefix>`. */
export async function writeTable(client: S3Client, prefix: string): Promise<WrittenTable> {
  const env = testStack();
  const dir = mkdtempSync(join(tmpdir(), 'him-catalog-'));
  try {
    const { stdout } = await run(env.HIM_VERIFIER_PYTHON ?? 'python3', [join(__dirname, 'parquet_files.py'), dir], { maxBuffer: 16 << 20 });
    const py = JSON.parse(stdout) as PyFiles;
    const location = `s3://${BUCKET}/${prefix}`;
    const dataFiles: string[] = [];
    for (const f of py.files) {
      const uri = `${location}/data/${f.name}`;
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: keyOf(uri), Body: readFileSync(join(dir, f.name)) }));
      dataFiles.push(uri);
    }
    const p = parseHiveType;
    const { schema } = convertHiveSchemaOrThrow(
      [
        { name: 'id', type: p('bigint'), comment: null },
        { name: 'name', type: p('string'), comment: null },
        { name: 'amount', type: p('decimal(10,2)'), comment: null },
      ],
      [{ name: 'region', type: p('string'), comment: null }],
    );
    const spec = identitySpec(schema, ['region']);
    const nameMapping = buildNameMapping(schema);
    const store = new S3ObjectStore({
      metadataPrefixes: [`${location}/metadata/`],
      client,
      endpoint: env.HIM_S3_ENDPOINT,
      region: env.AWS_REGION,
    });
    const footers = new ParquetFooterReader(store);
    async function* files(): AsyncGenerator<DataFile> {
      for (const [i, f] of py.files.entries()) {
        const path = dataFiles[i] ?? '';
        const { size } = await store.head(path);
        const stats = await footers.readStats(path, size, { schema, nameMapping });
        if (stats.recordCount !== f.rows) throw new Error(`footer says ${stats.recordCount} rows in ${path}, pyarrow wrote ${f.rows}`);
        yield { ...stats, filePath: path, fileFormat: 'PARQUET', partition: [f.region], fileSizeInBytes: size };
      }
    }
    const id = { planHash: prefix, table: `test:${prefix}` };
    const metadataFiles: string[] = [];
    const result = await writeManifests(files(), {
      schema,
      spec,
      maxEntriesPerManifest: 2,
      open: async (i) => {
        const path = `${location}/metadata/m${i}.avro`;
        metadataFiles.push(path);
        return { path, file: s3Output(client, path) };
      },
    });
    const snapshotId = deriveSnapshotId(id);
    const listPath = `${location}/metadata/snap-${snapshotId}-1-list.avro`;
    metadataFiles.push(listPath);
    await writeManifestList({
      path: listPath,
      file: s3Output(client, listPath),
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
      properties: { [TableProperty.NAME_MAPPING_DEFAULT]: nameMappingToJson(nameMapping), [TableProperty.GC_ENABLED]: 'false' },
      snapshot: {
        snapshotId,
        manifestList: listPath,
        totals: {
          addedDataFiles: result.dataFiles,
          addedRecords: result.records,
          addedFilesSize: result.filesSize,
          changedPartitionCount: result.changedPartitions,
        },
      },
      timestampMs: Date.now(),
    });
    const metadataLocation = metadataFileName(location, 0, metadata.tableUuid);
    const metadataJson = toMetadataJson(metadata);
    await putText(client, metadataLocation, metadataJson);
    return {
      location,
      metadataLocation,
      metadataJson,
      snapshotId,
      dataFiles,
      metadataFiles,
      expected: { rows: py.rows, checksum: py.checksum },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReadResult {
  engine: string;
  rows: number;
  checksum: string;
  seconds: number;
}

/** dev/verifier/read_table.py with the verifier venv: rows + canonical checksum as an engine sees them. */
export async function readWith(engine: 'pyiceberg' | 'spark', table: string): Promise<ReadResult> {
  const env = testStack();
  const script = join(__dirname, '..', '..', '..', 'dev', 'verifier', 'read_table.py');
  const { stdout } = await run(
    env.HIM_VERIFIER_PYTHON ?? 'python3',
    [
      script,
      '--engine',
      engine,
      '--table',
      table,
      '--catalog-uri',
      env.HIM_ICEBERG_REST_URI ?? '',
      '--s3-endpoint',
      env.HIM_S3_ENDPOINT ?? '',
      '--jars-dir',
      env.HIM_SPARK_JARS_DIR ?? '',
    ],
    {
      env: { ...process.env, ...env },
      maxBuffer: 64 << 20,
      timeout: 170_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ReadResult;
}

/** dev/verifier/make_table.py: a PyIceberg-created table (namespace created when missing). */
export async function makeTableWithPyIceberg(
  table: string,
  rows: number,
): Promise<{ rows: number; checksum: string; metadata_location: string; location: string; columns: string[] }> {
  const env = testStack();
  const script = join(__dirname, '..', '..', '..', 'dev', 'verifier', 'make_table.py');
  const { stdout } = await run(
    env.HIM_VERIFIER_PYTHON ?? 'python3',
    [
      script,
      '--table',
      table,
      '--rows',
      String(rows),
      '--catalog-uri',
      env.HIM_ICEBERG_REST_URI ?? '',
      '--s3-endpoint',
      env.HIM_S3_ENDPOINT ?? '',
    ],
    {
      env: { ...process.env, ...env },
      maxBuffer: 64 << 20,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
    rows: number;
    checksum: string;
    metadata_location: string;
    location: string;
    columns: string[];
  };
}
