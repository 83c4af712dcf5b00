// Sync and the location fence: a partition added in Hive since apply is listed by the next sync, so the live
// table goes through the location fence first — a new partition at file:///etc/ssl/certs, or on
// hdfs:, fails the sync LOCATION_NOT_ALLOWED (not retryable) before anything is listed.
import { assertFenced } from '../../../engine/sync-record';
import { MigrationError } from '../../../core/errors';
import { inv, partition, table } from '../assess/fixture';

const P = [{ name: 'p', type: 'string', comment: null }];
const fence = { localRoots: ['/srv/wh'] };

function refusal(f: () => void): MigrationError | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof MigrationError) return e;
    throw e;
  }
  return undefined;
}

describe('sync: live partitions fenced', () => {
  it('an added partition at file:///etc/ssl/certs fails the sync, naming it', () => {
    const live = inv(table({ partitionKeys: P }), [partition('p=a'), partition('p=new', { sd: { location: 'file:///etc/ssl/certs' } })]);
    const e = refusal(() => assertFenced('db.t', live, fence));
    expect([e?.code, e?.retryable]).toEqual(['LOCATION_NOT_ALLOWED', false]);
    expect(e?.message).toContain('partition p=new at file:///etc/ssl/certs');
    expect(e?.message).toContain('the sync listed and wrote nothing');
  });

  it('an added hdfs partition fails; s3a partitions and one under a local root pass; no fence, no check', () => {
    const hdfs = inv(table({ partitionKeys: P }), [partition('p=h', { sd: { location: 'hdfs://nn/wh/t/p=h' } })]);
    expect(refusal(() => assertFenced('db.t', hdfs, fence))?.code).toBe('LOCATION_NOT_ALLOWED');
    const fine = inv(table({ partitionKeys: P }), [partition('p=a'), partition('p=l', { sd: { location: 'file:///srv/wh/t/p=l' } })]);
    expect(refusal(() => assertFenced('db.t', fine, fence))).toBeUndefined();
    expect(refusal(() => assertFenced('db.t', hdfs, undefined))).toBeUndefined();
  });
});
