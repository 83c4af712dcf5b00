// Insert-only ACID tables: Hive's valid-write-id semantics, the base_/delta_ selection, the rule's
// classification, prepare's refusals, and what the pin and the fingerprint ignore. Pure.
import { assertNoOpenWrite, withLiveWriteIds } from '../../../ops/gate';
import { BackingDbReader } from '../../../adapters/hms/db/reader';
import { withWriteIds } from '../../../app/plan/walk';
import { prepareConversion } from '../../../core/convert/prepare';
import { MigrationError } from '../../../core/errors';
import type { ValidWriteIds } from '../../../core/hive/acid';
import {
  committedFiles,
  isValidBase,
  isWriteIdValid,
  parseAcidDir,
  selectAcidFiles,
  splitInvalid,
  validTxnListString,
  writeIdRange,
} from '../../../core/hive/acid';
import { tableFingerprint } from '../../../core/hive/fingerprint';
import type { TableInventory } from '../../../core/hive/model';
import { assessTable } from '../../../core/assess/assess';
import { acidRule } from '../../../core/assess/rules/acid';
import { conversionPin } from '../../../core/plan/pin';
import { inv, table } from '../assess/fixture';

const L = 's3a://wh/db/t';
const ids = (o: Partial<ValidWriteIds> = {}): ValidWriteIds => ({ table: 'db.t', highWatermark: 5, open: [], aborted: [], ...o });
const f = (rel: string): { path: string; size: number } => ({ path: `${L}/${rel}`, size: 10 });
const paths = (xs: readonly { path: string }[]): string[] => xs.map((x) => x.path.slice(L.length + 1));
const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    return e instanceof MigrationError ? e.code : `not coded: ${String(e)}`;
  }
  return 'no error';
};

describe('valid write ids (ValidReaderWriteIdList semantics)', () => {
  const w = ids({ highWatermark: 6, open: [5], aborted: [3] });
  it('a write id is valid when committed: at most the watermark, neither open nor aborted', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((x) => isWriteIdValid(w, x))).toEqual([true, true, false, true, false, true, false]);
  });
  it('a base is valid below every open write and at most the watermark', () => {
    expect([4, 5, 6].map((x) => isValidBase(w, x))).toEqual([true, false, false]);
    expect(isValidBase(ids({ highWatermark: 6 }), 6)).toBe(true);
  });
  it('ranges answer ALL, SOME or NONE', () => {
    expect([writeIdRange(w, 1, 2), writeIdRange(w, 2, 4), writeIdRange(w, 3, 3), writeIdRange(w, 7, 9)]).toEqual([
      'ALL',
      'SOME',
      'NONE',
      'NONE',
    ]);
  });
  it('the Thrift abortedBits (BitSet.toByteArray, little-endian) split the invalid ids', () => {
    // invalid [3, 5, 9, 12]: bits 0 and 2 set → 3 and 9 aborted.
    expect(splitInvalid([3, 5, 9, 12], Uint8Array.from([0b101]))).toEqual({ open: [5, 12], aborted: [3, 9] });
    expect(splitInvalid([1, 2], new Uint8Array())).toEqual({ open: [1, 2], aborted: [] });
  });
  it('the reader snapshot string is ValidReadTxnList.writeToString', () => {
    expect(validTxnListString(10, [], [])).toBe('10:9223372036854775807::');
    expect(validTxnListString(10, [9, 7], [3])).toBe('10:7:7,9:3');
  });
});

describe('directory names (AcidUtils)', () => {
  it('parses base and delta names, statement ids optional', () => {
    expect(parseAcidDir('base_0000004')).toEqual({ kind: 'base', writeId: 4 });
    expect(parseAcidDir('delta_0000002_0000003')).toEqual({ kind: 'delta', min: 2, max: 3, stmt: -1 });
    expect(parseAcidDir('delta_0000002_0000002_0001')).toEqual({ kind: 'delta', min: 2, max: 2, stmt: 1 });
  });
  it('compactor output, delete deltas and other names are unsupported', () => {
    expect(parseAcidDir('base_0000004_v0000010').kind).toBe('unsupported');
    expect(parseAcidDir('delta_0000001_0000002_v0000010').kind).toBe('unsupported');
    expect(parseAcidDir('delete_delta_0000001_0000001_0000').kind).toBe('unsupported');
    expect(parseAcidDir('HIVE_UNION_SUBDIR_1').kind).toBe('unsupported');
  });
});

describe('selectAcidFiles: exactly the committed writes', () => {
  const files = [
    f('delta_0000001_0000001_0000/000000_0'),
    f('delta_0000002_0000002_0000/000000_0'),
    f('delta_0000003_0000003_0000/000000_0'),
    f('delta_0000004_0000004_0000/000000_0'),
    f('delta_0000004_0000004_0000/000001_0'),
    f('delta_0000007_0000007_0000/000000_0'),
  ];
  it('deltas: aborted, open and above-the-watermark writes are left out', () => {
    const s = selectAcidFiles(L, files, ids({ highWatermark: 6, aborted: [2], open: [3] }));
    expect(paths(s.files)).toEqual([
      'delta_0000001_0000001_0000/000000_0',
      'delta_0000004_0000004_0000/000000_0',
      'delta_0000004_0000004_0000/000001_0',
    ]);
    expect(s.base).toBeNull();
    expect(s.leftOut).toEqual([
      { dir: 'delta_0000002_0000002_0000', why: 'aborted write' },
      { dir: 'delta_0000003_0000003_0000', why: 'open write' },
      { dir: 'delta_0000007_0000007_0000', why: 'above the high watermark (not committed when read)' },
    ]);
  });
  it("the conversion's selection refuses a directory above the watermark (not written by a transaction the metastore knows); aborted and open are left out", () => {
    expect(() => committedFiles(L, files, ids({ highWatermark: 6, aborted: [2], open: [3] }))).toThrow(
      expect.objectContaining({
        code: 'ACID_LAYOUT_UNSUPPORTED',
        message: expect.stringMatching(/delta_0000007_0000007_0000 .*high watermark 6/),
      }),
    );
    expect(paths(committedFiles(L, files.slice(0, 5), ids({ highWatermark: 6, aborted: [2], open: [3] })))).toEqual([
      'delta_0000001_0000001_0000/000000_0',
      'delta_0000004_0000004_0000/000000_0',
      'delta_0000004_0000004_0000/000001_0',
    ]);
  });

  it('the newest valid base hides the deltas at or below it and the original files', () => {
    const s = selectAcidFiles(
      L,
      [f('000000_0'), f('base_0000002/000000_0'), f('base_0000004/000000_0'), f('base_0000006/000000_0'), ...files],
      ids({ highWatermark: 6, open: [5] }),
    );
    expect(s.base).toBe(4);
    // base_6 was written while write 5 is open: not a valid base (isValidBase).
    expect(paths(s.files)).toEqual(['base_0000004/000000_0']);
    expect(s.leftOut.map((x) => x.dir)).toEqual([
      'base_0000006',
      'base_0000002',
      'delta_0000001_0000001_0000',
      'delta_0000002_0000002_0000',
      'delta_0000003_0000003_0000',
      'delta_0000004_0000004_0000',
      'delta_0000007_0000007_0000',
      '',
    ]);
  });
  it('original files (written before the table became transactional) count when there is no base', () => {
    expect(paths(selectAcidFiles(L, [f('000000_0'), files[0] as never], ids()).files)).toEqual([
      '000000_0',
      'delta_0000001_0000001_0000/000000_0',
    ]);
  });
  it('a wider committed delta covers the narrow ones; statements of one write are all read', () => {
    const s = selectAcidFiles(
      L,
      [
        f('delta_0000001_0000003/a'),
        f('delta_0000002_0000002_0000/b'),
        f('delta_0000004_0000004_0000/c'),
        f('delta_0000004_0000004_0001/d'),
      ],
      ids(),
    );
    expect(paths(s.files)).toEqual(['delta_0000001_0000003/a', 'delta_0000004_0000004_0000/c', 'delta_0000004_0000004_0001/d']);
    expect(s.leftOut).toEqual([{ dir: 'delta_0000002_0000002_0000', why: 'covered by a wider delta' }]);
  });
  it('refuses what it cannot judge, coded', () => {
    expect(codeOf(() => selectAcidFiles(L, [f('base_0000004_v0000009/x')], ids()))).toBe('ACID_LAYOUT_UNSUPPORTED');
    expect(codeOf(() => selectAcidFiles(L, [f('delete_delta_0000001_0000001_0000/x')], ids()))).toBe('ACID_LAYOUT_UNSUPPORTED');
    expect(codeOf(() => selectAcidFiles(L, [f('delta_0000001_0000001_0000/sub/x')], ids()))).toBe('ACID_LAYOUT_UNSUPPORTED');
    expect(codeOf(() => selectAcidFiles(L, [f('delta_0000001_0000003/x')], ids({ aborted: [2] })))).toBe('ACID_LAYOUT_UNSUPPORTED');
  });
});

const insertOnly = (writeIds?: ValidWriteIds): TableInventory => ({
  ...inv(
    table({
      tableType: 'MANAGED_TABLE',
      parameters: { transactional: 'true', transactional_properties: 'insert_only', numFiles: '3', totalSize: '3000' },
    }),
  ),
  ...(writeIds === undefined ? {} : { writeIds }),
});
const identity = { planHash: 'h'.repeat(64), table: 'hms:db.t->rest:db.t' };
const prep = (i: TableInventory) => () => prepareConversion({ inventory: i, identity, timestampMs: 1, toolVersion: '0' });

describe('insert-only tables in the assessment, prepare, pin and fingerprint', () => {
  it('with write ids: metadata-only (INSERT_ONLY_METADATA, class migrate); an open write warns', () => {
    const a = assessTable(insertOnly(ids({ aborted: [3] })));
    expect([a.class, a.findings.map((x) => x.code)]).toEqual(['migrate', ['INSERT_ONLY_METADATA']]);
    expect(a.findings[0]?.evidence).toContain('high watermark 5, aborted 3, open none');
    expect(acidRule(insertOnly(ids({ open: [4] })), { allowUnbucketed: false }).map((x) => [x.code, x.effect])).toEqual([
      ['INSERT_ONLY_METADATA', 'info'],
      ['INSERT_ONLY_WRITE_OPEN', 'warn'],
    ]);
  });
  it('without write ids (backing-DB reader): rewrite-required, saying why', () => {
    const a = assessTable(insertOnly());
    expect([a.class, a.findings.map((x) => x.code)]).toEqual(['rewrite-required', ['INSERT_ONLY_TABLE']]);
    expect(a.findings[0]?.remediation).toContain('Thrift');
  });
  it('full ACID: refused with what to run in Hive', () => {
    const full = inv(table({ tableType: 'MANAGED_TABLE', parameters: { transactional: 'true' } }));
    expect(assessTable(full).findings[0]?.remediation).toMatch(/CREATE EXTERNAL TABLE .* STORED AS PARQUET AS SELECT/);
    expect(codeOf(prep(full))).toBe('FORMAT_UNSUPPORTED');
  });
  it('prepare: committed writes convert; no write ids or an open write are coded refusals', () => {
    expect(prepareConversion({ inventory: insertOnly(ids()), identity, timestampMs: 1, toolVersion: '0' }).acid).toEqual(ids());
    expect(codeOf(prep(insertOnly()))).toBe('ACID_WRITE_IDS_UNAVAILABLE');
    expect(codeOf(prep(insertOnly(ids({ open: [5] }))))).toBe('ACID_WRITE_OPEN');
  });
  it('a new committed write or an open one leaves the pin and the fingerprint alone (additive, refused apart)', () => {
    const before = insertOnly(ids({ highWatermark: 4 }));
    for (const after of [insertOnly(ids({ highWatermark: 6 })), insertOnly(ids({ highWatermark: 6, open: [6] }))]) {
      expect(conversionPin(after)).toEqual(conversionPin(before));
      expect(tableFingerprint(after)).toBe(tableFingerprint(before));
    }
    expect(tableFingerprint(before)).toBe(tableFingerprint(insertOnly()));
  });
});

describe('the readers and the live re-check', () => {
  it('the backing-DB reader refuses the write ids, coded, without a query', async () => {
    const queries: string[] = [];
    const session = {
      backend: 'postgres' as const,
      query: (sql: string) => {
        queries.push(sql);
        return Promise.resolve([]);
      },
      close: () => Promise.resolve(),
    };
    const r = new BackingDbReader(session as never);
    await expect(r.getValidWriteIds('db', 't')).rejects.toMatchObject({ code: 'ACID_WRITE_IDS_UNAVAILABLE', retryable: false });
    expect(queries).toEqual([]);
  });
  it("apply's gate: an open write refuses (ACID_WRITE_OPEN, not retried); committed writes pass", () => {
    expect(() => assertNoOpenWrite('db.t', insertOnly(ids()))).not.toThrow();
    let err: unknown;
    try {
      assertNoOpenWrite('db.t', insertOnly(ids({ open: [6] })));
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'ACID_WRITE_OPEN', retryable: false, context: { tableId: 'db.t', open: [6] } });
  });
  it("apply's gate reads write ids only for insert-only tables", async () => {
    const calls: string[] = [];
    const hms = { getValidWriteIds: (d: string, t: string) => (calls.push(`${d}.${t}`), Promise.resolve(ids())) };
    expect((await withLiveWriteIds(hms as never, insertOnly())).writeIds).toEqual(ids());
    expect((await withLiveWriteIds(hms as never, inv(table()))).writeIds).toBeUndefined();
    expect(calls).toEqual(['db.t']);
  });
});

describe("the plan's walk (app/plan/walk.ts withWriteIds)", () => {
  const refusing = (code: string) => ({
    getValidWriteIds: () => Promise.reject(new MigrationError(code as never, 'no')),
  });
  it('attaches the write ids of insert-only tables; a reader that cannot answer leaves them unset (INSERT_ONLY_TABLE follows)', async () => {
    expect((await withWriteIds({ getValidWriteIds: () => Promise.resolve(ids()) } as never, insertOnly())).writeIds).toEqual(ids());
    const unread = await withWriteIds(refusing('ACID_WRITE_IDS_UNAVAILABLE') as never, insertOnly());
    expect(unread.writeIds).toBeUndefined();
    expect(assessTable(unread).findings.map((x) => x.code)).toContain('INSERT_ONLY_TABLE');
  });
  it('any other failure of the metastore stops the walk', async () => {
    await expect(withWriteIds(refusing('HMS_UNREACHABLE') as never, insertOnly())).rejects.toMatchObject({ code: 'HMS_UNREACHABLE' });
  });
});
