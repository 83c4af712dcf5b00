// A table or partition overlapping the tool's own write locations (audit anchors, validation
// results) is not planned (LOCATION_RESERVED, effect skip), in both directions and across s3 schemes.
import { assessTable } from '../../../core/assess/assess';
import { locationReservedRule, overlaps, reservedLocationsOf } from '../../../core/assess/rules/location-reserved';
import type { AssessOptions } from '../../../core/assess/types';
import { inv, partition, table } from './fixture';

const P = [{ name: 'p', type: 'string', comment: null }];
const opts = (...locations: string[]): AssessOptions => ({
  allowUnbucketed: false,
  reservedLocations: locations.map((location, i) => ({ what: i === 0 ? 'audit.anchorLocation' : 'validation.resultsLocation', location })),
});

describe('LOCATION_RESERVED', () => {
  it.each([
    ['the anchors inside a partition directory', 's3://wh/db/t/p=a/anchors/'],
    ['the anchors at the table location (s3 vs s3a)', 's3://wh/db/t'],
    ['the anchors above the table (a bucket-wide prefix)', 's3a://wh/'],
  ])('%s: the table is not planned, the finding names both locations', (_n, anchors) => {
    const t = inv(table({ partitionKeys: P }), [partition('p=a')]);
    const f = locationReservedRule(t, opts(anchors));
    expect(f.map((x) => [x.code, x.effect])).toEqual([['LOCATION_RESERVED', 'skip']]);
    expect(f[0]!.evidence).toContain(`audit.anchorLocation ${anchors}`);
    expect(assessTable(t, opts(anchors)).findings.map((x) => x.code)).toContain('LOCATION_RESERVED');
  });

  it('a sibling prefix is no overlap; no reserved locations, no finding', () => {
    const t = inv(table({ partitionKeys: P }), [partition('p=a')]);
    expect(locationReservedRule(t, opts('s3a://wh/db/t2/', 's3a://wh/db/tx'))).toEqual([]);
    expect(locationReservedRule(t, { allowUnbucketed: false })).toEqual([]);
    expect(overlaps('s3a://wh/db/t', 's3n://wh/db/t/')).toBe(true);
    expect(overlaps('s3a://wh/db/t', 's3a://wh/db/t2')).toBe(false);
  });

  it('the config names what it reserves', () => {
    expect(reservedLocationsOf({ audit: { anchorLocation: 's3://a/x' }, validation: { resultsLocation: '/var/r' } })).toEqual([
      { what: 'audit.anchorLocation', location: 's3://a/x' },
      { what: 'validation.resultsLocation', location: '/var/r' },
    ]);
    expect(reservedLocationsOf({})).toEqual([]);
  });
});
