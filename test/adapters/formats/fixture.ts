// Real test files (pyarrow in the verifier venv, gen_files.py) uploaded to the stack's S3 under a
// unique prefix, plus what pyarrow reports about them; removed again after the suite.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3ObjectStore } from '../../../adapters/storage/s3-store';
import { testStack, uniqueName } from '../../helpers/stack-env';

export const BUCKET = 'warehouse';

export interface ColumnFacts {
  physical: string;
  num_values: number;
  compressed: number;
  null_count: number | null;
  min: string | number | boolean | { hex: string } | null;
  max: string | number | boolean | { hex: string } | null;
  all_min_max: boolean;
}
export interface ParquetFacts {
  num_rows: number;
  num_row_groups: number;
  split_offsets: number[];
  created_by: string;
  size: number;
  footer_length?: number;
  columns: Record<string, ColumnFacts>;
}
export type Facts = Record<string, ParquetFacts> & {
  orc_columns: Record<string, { nulls: number; values: number; min: unknown; max: unknown }>;
} & Record<string, { num_rows: number; nstripes: number; size: number }>;

export interface Fixture {
  dir: string;
  prefix: string;
  facts: Facts;
  client: S3Client;
  /** HTTP GETs sent by the stores this fixture made (S3ObjectStore.stats). */
  gets(): number;
  store(metadataPrefixes?: string[]): S3ObjectStore;
  uri(name: string): string;
  keys: string[];
  cleanup(): Promise<void>;
}

export async function createFixture(): Promise<Fixture> {
  const env = testStack();
  const dir = mkdtempSync(join(tmpdir(), 'him-formats-'));
  const out = execFileSync(env.HIM_VERIFIER_PYTHON ?? 'python3', [join(__dirname, 'gen_files.py'), dir], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const facts = JSON.parse(out) as Facts;
  const client = new S3Client({
    endpoint: env.HIM_S3_ENDPOINT,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '' },
  });
  const stores: S3ObjectStore[] = [];
  const prefix = `test-formats/${uniqueName('f')}`;
  const keys: string[] = [];
  for (const name of readdirSync(dir)) {
    const Key = `${prefix}/${name}`;
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: readFileSync(join(dir, name)) }));
    keys.push(Key);
  }
  return {
    dir,
    prefix,
    facts,
    client,
    keys,
    gets: () => stores.reduce((n, s) => n + s.stats.gets, 0),
    store: (metadataPrefixes = [`s3://${BUCKET}/${prefix}/metadata/`]) => {
      const s = new S3ObjectStore({ metadataPrefixes, client, endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION });
      stores.push(s);
      return s;
    },
    uri: (name) => `s3://${BUCKET}/${prefix}/${name}`,
    cleanup: async () => {
      for (const Key of keys) await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key }));
      for (const s of stores) s.destroy();
      client.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
