// PartitionSummaryBuilder (manifest_file.partitions): lower/upper bound per partition field over a
// manifest's files, by Iceberg's comparators — what a reader prunes manifests with. The builder
// skips comparing a value that is already the bound (files come partition by partition); these
// check that the shortcut never changes a summary.
import fc from 'fast-check';
import { toBytes } from '../../../core/iceberg/bounds';
import { PartitionSummaryBuilder, compareValues } from '../../../core/iceberg/manifest';
import type { PrimitiveType, PrimitiveValue } from '../../../core/iceberg/types';
import { prim } from '../../../core/iceberg/types';

const hex = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString('hex'));

/** The summary without any shortcut: every value compared against both bounds. */
function reference(
  type: PrimitiveType,
  values: readonly (PrimitiveValue | null)[],
): { lower?: string; upper?: string; containsNull: boolean; containsNan: boolean } {
  let min: PrimitiveValue | undefined;
  let max: PrimitiveValue | undefined;
  let containsNull = false;
  let containsNan = false;
  for (const v of values) {
    if (v === null) containsNull = true;
    else if (typeof v === 'number' && Number.isNaN(v)) containsNan = true;
    else {
      if (min === undefined || compareValues(type, v, min) < 0) min = v;
      if (max === undefined || compareValues(type, v, max) > 0) max = v;
    }
  }
  return {
    lower: min === undefined ? undefined : hex(toBytes(type, min)),
    upper: max === undefined ? undefined : hex(toBytes(type, max)),
    containsNull,
    containsNan,
  };
}

function built(type: PrimitiveType, values: readonly (PrimitiveValue | null)[]): ReturnType<typeof reference> {
  const b = new PartitionSummaryBuilder([type]);
  for (const v of values) b.add([v]);
  const [s] = b.build();
  return {
    lower: hex(s?.lowerBound),
    upper: hex(s?.upperBound),
    containsNull: s?.containsNull ?? false,
    containsNan: s?.containsNan ?? false,
  };
}

test('signed zeros: -0.0 is the lower bound even after +0.0 (=== would call them equal)', () => {
  for (const order of [
    [0, -0, 0],
    [-0, 0],
    [0, 0, -0],
  ]) {
    const s = built(prim.double, order);
    expect(s.lower).toBe(hex(toBytes(prim.double, -0)));
    expect(s.upper).toBe(hex(toBytes(prim.double, 0)));
  }
});

test('strings by code point (UTF-8 byte order), repeated partition values, nulls', () => {
  const vals = ['b', 'b', 'a', null, 'a', '\uffff', '\u{1f600}', '\u{1f600}', 'b'];
  expect(built(prim.string, vals)).toEqual({
    lower: hex(toBytes(prim.string, 'a')),
    upper: hex(toBytes(prim.string, '\u{1f600}')),
    containsNull: true,
    containsNan: false,
  });
});

test('equals the comparison of every value, for runs of repeated values of every kind', () => {
  const runs = <T>(arb: fc.Arbitrary<T>) =>
    fc
      .array(fc.tuple(fc.option(arb, { nil: null }), fc.integer({ min: 1, max: 4 })), { maxLength: 12 })
      .map((rs) => rs.flatMap(([v, n]) => Array.from({ length: n }, () => v)));
  fc.assert(fc.property(runs(fc.double()), (vs) => void expect(built(prim.double, vs)).toEqual(reference(prim.double, vs))));
  fc.assert(
    fc.property(runs(fc.string({ unit: 'binary' })), (vs) => void expect(built(prim.string, vs)).toEqual(reference(prim.string, vs))),
  );
  fc.assert(
    fc.property(
      runs(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
      (vs) => void expect(built(prim.long, vs)).toEqual(reference(prim.long, vs)),
    ),
  );
  fc.assert(fc.property(runs(fc.integer()), (vs) => void expect(built(prim.int, vs)).toEqual(reference(prim.int, vs))));
});
