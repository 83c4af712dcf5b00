// The storage sample on real files (LocalObjectStore over a temp directory): zero-byte files
// (FILE_EMPTY), corrupt footers (FILE_UNREADABLE), and the size of an unpartitioned table without HMS
// stats taken from the listing (SIZE_FROM_STORAGE, bounded), EMPTY_TABLE only when the listing is empty.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sampleStorage } from '../../../app/plan/storage-sample';
import { importEsmFile } from '../../../adapters/formats/hyparquet';
import { LocalObjectStore } from '../../../adapters/storage/local-store';
import { assessTable } from '../../../core/assess/assess';
import type { AssessFinding } from '../../../core/assess/types';
import { inv, table } from './fixture';

let root = '';
let parquet: Buffer;
let floats: Buffer;
const store = new LocalObjectStore({ metadataPrefixes: [] });

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'him-sample-'));
  const w = await importEsmFile<{ parquetWriteBuffer(o: { columnData: { name: string; data: unknown[]; type: string }[] }): ArrayBuffer }>(
    require.resolve('hyparquet-writer'),
  );
  parquet = Buffer.from(
    w.parquetWriteBuffer({
      columnData: [
        { name: 'id', data: [1n, 2n, 3n], type: 'INT64' },
        { name: 'v', data: ['a', 'b', 'c'], type: 'STRING' },
      ],
    }),
  );
  floats = Buffer.from(
    w.parquetWriteBuffer({
      columnData: [
        { name: 'id', data: [1n, 2n], type: 'INT64' },
        { name: 'Reading', data: [1.5, -2.25], type: 'FLOAT' },
        { name: 'other', data: [0.5, 1], type: 'FLOAT' },
      ],
    }),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A directory under root holding the given files (name → bytes). */
function dir(name: string, files: Record<string, Buffer>): string {
  const d = path.join(root, name);
  mkdirSync(d, { recursive: true });
  for (const [f, b] of Object.entries(files)) writeFileSync(path.join(d, f), b);
  return `file://${d}`;
}
const codes = (fs: readonly AssessFinding[] | undefined): string[] => (fs ?? []).map((f) => f.code);

describe('storage sample', () => {
  it('a zero-byte .parquet is FILE_EMPTY (warn), naming the file; the table stays migratable', async () => {
    const loc = dir('zero', { 'a.parquet': parquet, 'b.parquet': Buffer.alloc(0) });
    const t = inv(table({ name: 'zero', sd: { location: loc } }));
    const f = (await sampleStorage(store, [t])).get('db.zero');
    expect(codes(f)).toEqual(['FILE_EMPTY']);
    expect(f![0]!.effect).toBe('warn');
    expect(f![0]!.evidence).toContain(`${loc}/b.parquet`);
    expect(assessTable(t, undefined, f).class).toBe('migrate-with-warnings');
  });

  it('a Parquet file with a corrupt footer is FILE_UNREADABLE (rewrite), not STORAGE_NOT_SAMPLED', async () => {
    const loc = dir('corrupt', { 'a.parquet': Buffer.from('PAR1 this is not a parquet footer PAR1') });
    const f = (await sampleStorage(store, [inv(table({ name: 'corrupt', sd: { location: loc } }))])).get('db.corrupt');
    expect(codes(f)).toEqual(['FILE_UNREADABLE']);
    expect(f![0]!.evidence).toMatch(/1 of 1 sampled file\(s\) unreadable: Parquet file .*a\.parquet/);
  });

  it('a FLOAT column in the footers under a table double is READER_FLOAT_AS_DOUBLE (warn); a FLOAT under float is not', async () => {
    const loc = dir('floats', { 'a.parquet': floats });
    const columns = [
      { name: 'id', type: 'bigint', comment: null },
      { name: 'reading', type: 'double', comment: null },
      { name: 'other', type: 'float', comment: null },
    ];
    const t = inv(table({ name: 'floats', sd: { location: loc, columns } }));
    const f = (await sampleStorage(store, [t])).get('db.floats');
    expect(f?.map((x) => [x.code, x.effect, x.column])).toEqual([['READER_FLOAT_AS_DOUBLE', 'warn', 'reading']]);
    expect(f![0]!.evidence).toContain('footers: sampled 1 file(s)');
    expect(assessTable(t, undefined, f).class).toBe('migrate-with-warnings');
    const asFloat = inv(
      table({
        name: 'floats',
        sd: { location: loc, columns: columns.map((c) => ({ ...c, type: c.type === 'double' ? 'float' : c.type })) },
      }),
    );
    expect((await sampleStorage(store, [asFloat])).get('db.floats')).toBeUndefined();
  });

  it('a top-level file column the table does not declare is READER_UNDECLARED_FILE_COLUMN (warn); case variants and _colN are declared', async () => {
    const loc = dir('undeclared', { 'a.parquet': floats });
    const declared = [
      { name: 'id', type: 'bigint', comment: null },
      { name: 'reading', type: 'float', comment: null },
    ];
    const t = inv(table({ name: 'undeclared', sd: { location: loc, columns: declared } }));
    const f = (await sampleStorage(store, [t])).get('db.undeclared');
    expect(f?.map((x) => [x.code, x.effect, x.column])).toEqual([['READER_UNDECLARED_FILE_COLUMN', 'warn', 'other']]);
    expect(f![0]!.evidence).toBe(`file column(s) other are not columns of the Hive table (footers: sampled 1 file(s) of ${loc})`);
    expect(f![0]!.remediation).toContain('PyIceberg 0.12 fails every read');
    expect(assessTable(t, undefined, f).class).toBe('migrate-with-warnings');
    const all = inv(
      table({ name: 'undeclared', sd: { location: loc, columns: [...declared, { name: 'OTHER', type: 'float', comment: null }] } }),
    );
    expect((await sampleStorage(store, [all])).get('db.undeclared')).toBeUndefined();
  });

  it('no HMS stats: files and bytes come from the listing; the plan sees them', async () => {
    const loc = dir('spark', { 'part-0.parquet': parquet, 'part-1.parquet': parquet, _SUCCESS: Buffer.alloc(0) });
    for (const parameters of [{}, { numFiles: '0', totalSize: '0' }] as Record<string, string>[]) {
      const t = inv(table({ name: 'spark', sd: { location: loc }, parameters }));
      const f = (await sampleStorage(store, [t])).get('db.spark');
      expect(codes(f)).toEqual(['SIZE_FROM_STORAGE']);
      expect(f![0]!.size).toEqual({ files: 2, bytes: 2 * parquet.length, complete: true });
      const a = assessTable(t, undefined, f);
      expect([a.files, a.bytes, a.sizeSource]).toEqual([2, 2 * parquet.length, 'storage']);
      expect(codes(a.findings)).not.toContain('EMPTY_TABLE');
    }
  });

  it('HMS stats present: no listing size; a long listing stops at the bound and says ≥', async () => {
    const loc = dir('many', Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}.parquet`, parquet])));
    expect((await sampleStorage(store, [inv(table({ name: 'many', sd: { location: loc } }))])).get('db.many')).toBeUndefined();
    const f = (await sampleStorage(store, [inv(table({ name: 'many', sd: { location: loc }, parameters: {} }))], { listLimit: 3 })).get(
      'db.many',
    );
    expect(f![0]!.size).toEqual({ files: 3, bytes: 3 * parquet.length, complete: false });
    expect(f![0]!.evidence).toMatch(/^≥ 3 file\(s\), ≥ \d+ bytes/);
  });

  it('EMPTY_TABLE when the listing finds no data files; none for invalid locations (LOCATION_INVALID covers them)', async () => {
    const loc = dir('empty', { _SUCCESS: Buffer.alloc(0) });
    const t = inv(table({ name: 'empty', sd: { location: loc }, parameters: {} }));
    const f = (await sampleStorage(store, [t])).get('db.empty');
    expect(codes(f)).toEqual(['SIZE_FROM_STORAGE', 'EMPTY_TABLE']);
    expect(codes(assessTable(t, undefined, f).findings)).toEqual(['STATS_MISSING', 'SIZE_FROM_STORAGE', 'EMPTY_TABLE']);
    const bad = await sampleStorage(store, [
      inv(table({ name: 'r', sd: { location: 'relative/dir' }, parameters: {} })),
      inv(table({ name: 'e', sd: { location: '' }, parameters: {} })),
    ]);
    expect(bad.size).toBe(0);
  });
});
