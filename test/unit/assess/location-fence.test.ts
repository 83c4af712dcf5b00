// LOCATION_NOT_ALLOWED: a table or partition outside the location fence is not planned
// (effect skip), and apply's live re-check with the worker's options refuses it with the same code —
// so an edited plan that lists it anyway writes nothing.
import { assertMigratable } from '../../../ops/gate';
import { assessOptionsOf } from '../../../app/runtime/assess-options';
import { assessTable } from '../../../core/assess/assess';
import { liveBlockers } from '../../../core/assess/live-blockers';
import { locationFenceRule } from '../../../core/assess/rules/location-fence';
import type { AssessOptions } from '../../../core/assess/types';
import { TableClass } from '../../../core/assess/types';
import { MigrationError } from '../../../core/errors';
import { inv, partition, table } from './fixture';

const P = [{ name: 'p', type: 'string', comment: null }];
const fenced = (localRoots: string[] = []): AssessOptions => ({ allowUnbucketed: false, locationFence: { localRoots } });

describe('LOCATION_NOT_ALLOWED', () => {
  it('a partition at file:///etc/ssl/certs: skip, naming the partition and why', () => {
    const t = inv(table({ partitionKeys: P }), [partition('p=a'), partition('p=b', { sd: { location: 'file:///etc/ssl/certs' } })]);
    const f = locationFenceRule(t, fenced());
    expect(f.map((x) => [x.code, x.effect])).toEqual([['LOCATION_NOT_ALLOWED', 'skip']]);
    expect(f[0]!.evidence).toBe('partition p=b at file:///etc/ssl/certs: a local path, and storage.localRoots allows none');
    expect(assessTable(t, fenced()).class).toBe(TableClass.SKIP);
  });

  it('an hdfs table location: skip; an s3a table with s3 partitions: nothing', () => {
    expect(locationFenceRule(inv(table({ sd: { location: 'hdfs://nn/wh/t' } })), fenced()).map((x) => x.code)).toEqual([
      'LOCATION_NOT_ALLOWED',
    ]);
    expect(locationFenceRule(inv(table({ partitionKeys: P }), [partition('p=a')]), fenced())).toEqual([]);
  });

  it('a local warehouse under storage.localRoots is planned; outside it, or escaping with `..`, it is not', () => {
    const local = (loc: string) => inv(table({ sd: { location: loc } }));
    expect(locationFenceRule(local('file:///var/wh/t'), fenced(['/var/wh']))).toEqual([]);
    expect(locationFenceRule(local('file:///var/wh/../data/t'), fenced(['/var/wh'])).map((x) => x.code)).toEqual(['LOCATION_NOT_ALLOWED']);
    expect(locationFenceRule(local('file:///var/wh2/t'), fenced(['/var/wh'])).map((x) => x.code)).toEqual(['LOCATION_NOT_ALLOWED']);
  });

  it('no fence in the options (core callers without config): not checked', () => {
    expect(locationFenceRule(inv(table({ sd: { location: 'file:///etc' } })), { allowUnbucketed: false })).toEqual([]);
  });

  it('apply re-checks with the worker options: LOCATION_NOT_ALLOWED, not retryable, whatever the plan said', () => {
    const t = inv(table({ partitionKeys: P }), [partition('p=b', { sd: { location: 'file:///etc/ssl/certs' } })]);
    expect(liveBlockers(t, fenced()).map((f) => f.code)).toEqual(['LOCATION_NOT_ALLOWED']);
    let err: unknown;
    try {
      assertMigratable('db.t', t, fenced());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe('LOCATION_NOT_ALLOWED');
    expect((err as MigrationError).retryable).toBe(false);
    expect((err as MigrationError).message).toContain('apply re-checked it and wrote nothing');
  });

  it('a config gives its fence: none by default, storage.localRoots when set', () => {
    expect(assessOptionsOf({} as never).locationFence?.localRoots).toEqual([]);
    expect(assessOptionsOf({ storage: { localRoots: ['/srv/wh'] } } as never).locationFence?.localRoots).toEqual(['/srv/wh']);
    expect(assessOptionsOf({ audit: { anchorLocation: 's3://a/x' } } as never).reservedLocations).toEqual([
      { what: 'audit.anchorLocation', location: 's3://a/x' },
    ]);
  });
});
