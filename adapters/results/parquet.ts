// A validation run's results as one Parquet file (one row per table × check; columns as
// core/validate/drift.ts ValidationRow), written with hyparquet-writer and stored through the
// ObjectStore (local path or S3), create-only. Readers: pyarrow, PyIceberg, Spark, DuckDB.
import { importEsmFile } from '../formats/hyparquet';
import type { ValidationRow } from '../../core/validate/drift';
import type { ObjectStore } from '../../core/storage/object-store';

interface Writer {
  parquetWriteBuffer(o: { columnData: { name: string; data: unknown[]; type: string }[] }): ArrayBuffer;
}

type StringColumn = 'plan' | 'team' | 'table' | 'check' | 'status' | 'code' | 'expected' | 'actual' | 'snapshotId' | 'runId';

/** The Parquet bytes for `rows` (time as TIMESTAMP millis UTC, wave INT32, the rest strings). */
export async function resultsParquet(rows: readonly ValidationRow[]): Promise<Uint8Array> {
  const w = await importEsmFile<Writer>(require.resolve('hyparquet-writer'));
  const col = (name: StringColumn) => ({ name, data: rows.map((r) => r[name]), type: 'STRING' });
  const buf = w.parquetWriteBuffer({
    columnData: [
      col('plan'),
      { name: 'wave', data: rows.map((r) => r.wave), type: 'INT32' },
      col('team'),
      col('table'),
      col('check'),
      col('status'),
      col('code'),
      col('expected'),
      col('actual'),
      col('snapshotId'),
      col('runId'),
      { name: 'time', data: rows.map((r) => new Date(r.time)), type: 'TIMESTAMP' },
    ],
  });
  return new Uint8Array(buf);
}

/** Write the run's file under `location` (a directory URI or path): `<location>/<plan>/<run>.parquet`. */
export async function writeResults(
  store: ObjectStore,
  location: string,
  plan: string,
  runId: string,
  rows: readonly ValidationRow[],
): Promise<string> {
  const path = `${location.replace(/\/+$/, '')}/${plan}/${runId.replace(/[^A-Za-z0-9._-]/g, '_')}.parquet`;
  await store.put(path, await resultsParquet(rows), { ifNoneMatch: '*' });
  return path;
}
