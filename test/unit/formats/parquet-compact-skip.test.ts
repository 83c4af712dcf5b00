// parquet/compact.ts passes over every field it does not use (skip / skipStruct) without decoding
// it. Generated Thrift compact values of every type — nested lists, sets, maps and structs, long-form
// field ids, empty and long containers — put in front of a field the decoder reads must leave that
// field read exactly (a skip that lands one byte off misreads it), and every truncation of them must
// fail with CompactDecodeError, never a wrong value, a crash or a hang.
import { CompactDecodeError, decodeFileMetaData } from '../../../adapters/formats/parquet/compact';
import { rng } from '../../helpers/rng';

const T = {
  TRUE: 1,
  FALSE: 2,
  BYTE: 3,
  I16: 4,
  I32: 5,
  I64: 6,
  DOUBLE: 7,
  BINARY: 8,
  LIST: 9,
  SET: 10,
  MAP: 11,
  STRUCT: 12,
  UUID: 13,
} as const;
const SCALARS = [T.BYTE, T.I16, T.I32, T.I64, T.DOUBLE, T.BINARY, T.UUID] as const;

function varint(out: number[], v: number): void {
  let n = v;
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}
const zigzag = (v: number): number => (v >= 0 ? v * 2 : -v * 2 - 1);

/** A random value of `type` (its compact encoding) into `out`; containers nest up to `depth`. */
function value(r: () => number, out: number[], type: number, depth: number): void {
  const count = (): number => (r() < 0.2 ? 0 : r() < 0.1 ? 15 + Math.floor(r() * 30) : 1 + Math.floor(r() * 4));
  switch (type) {
    case T.TRUE:
    case T.FALSE:
      out.push(r() < 0.5 ? 1 : 2); // only inside containers: a bool field carries its value in the header
      return;
    case T.BYTE:
      out.push(Math.floor(r() * 256));
      return;
    case T.I16:
    case T.I32:
    case T.I64:
      varint(out, zigzag(Math.floor((r() - 0.5) * (r() < 0.3 ? 2 ** 52 : 300))));
      return;
    case T.DOUBLE:
      for (let i = 0; i < 8; i++) out.push(Math.floor(r() * 256));
      return;
    case T.UUID:
      for (let i = 0; i < 16; i++) out.push(Math.floor(r() * 256));
      return;
    case T.BINARY: {
      const n = r() < 0.1 ? 200 + Math.floor(r() * 300) : Math.floor(r() * 12);
      varint(out, n);
      for (let i = 0; i < n; i++) out.push(Math.floor(r() * 256));
      return;
    }
    case T.LIST:
    case T.SET: {
      const n = count();
      const et = elementType(r, depth);
      if (n < 15) out.push((n << 4) | et);
      else {
        out.push(0xf0 | et);
        varint(out, n);
      }
      for (let i = 0; i < n; i++) value(r, out, et, depth - 1);
      return;
    }
    case T.MAP: {
      const n = count();
      varint(out, n);
      if (n === 0) return;
      const k = elementType(r, 0);
      const v = elementType(r, depth);
      out.push((k << 4) | v);
      for (let i = 0; i < n; i++) {
        value(r, out, k, 0);
        value(r, out, v, depth - 1);
      }
      return;
    }
    case T.STRUCT:
      fields(r, out, depth - 1, 1 + Math.floor(r() * 6));
      out.push(0);
      return;
    default:
      throw new Error(`type ${type}`);
  }
}

function elementType(r: () => number, depth: number): number {
  if (depth <= 0 || r() < 0.5) return r() < 0.15 ? (r() < 0.5 ? T.TRUE : T.FALSE) : (SCALARS[Math.floor(r() * SCALARS.length)] as number);
  return [T.LIST, T.SET, T.MAP, T.STRUCT][Math.floor(r() * 4)] as number;
}

/** `n` fields with random ids (from `first` on; short and long form headers) and types, without the STOP. */
function fields(r: () => number, out: number[], depth: number, n: number, first = 1): void {
  let last = 0; // a short-form header's delta counts from the previous field id of the struct, 0 at first
  for (let i = 0; i < n; i++) {
    const k = r();
    const type = k < 0.1 ? T.TRUE : k < 0.15 ? T.FALSE : elementType(r, depth);
    const id = r() < 0.3 ? first + 100 + Math.floor(r() * 20_000) : Math.max(first, last + 1 + Math.floor(r() * 15));
    const delta = id - last;
    if (delta > 0 && delta <= 15) out.push((delta << 4) | type);
    else {
      out.push(type);
      varint(out, zigzag(id));
    }
    last = id;
    if (type !== T.TRUE && type !== T.FALSE) value(r, out, type, depth);
  }
}

test('unknown fields of every type in front of a read field: skipped exactly; every cut fails with CompactDecodeError', () => {
  const r = rng(4242);
  let cuts = 0;
  let bytes = 0;
  const wrong: string[] = [];
  for (let n = 0; n < 400; n++) {
    const out: number[] = [];
    // Ids from 100 on: none that FileMetaData's decoder reads (1–9).
    fields(r, out, 4, 1 + Math.floor(r() * 5), 100);
    const unknown = out.length;
    // Then FileMetaData.num_rows (field 3, i64), given with a long-form id, and the STOP.
    const rows = Math.floor(r() * 1e9);
    out.push(T.I64);
    varint(out, zigzag(3));
    varint(out, zigzag(rows));
    out.push(0);
    const md = decodeFileMetaData(Uint8Array.from(out));
    expect(md.numRows).toBe(rows);
    expect(md.rowGroups).toEqual([]);
    bytes += unknown;
    const all = Uint8Array.from(out);
    const step = Math.max(1, Math.floor(out.length / 80)); // ~80 cuts per input, at random offsets
    for (let cut = Math.floor(r() * step); cut < out.length; cut += 1 + Math.floor(r() * 2 * step)) {
      cuts++;
      try {
        decodeFileMetaData(all.subarray(0, cut));
        wrong.push(`input ${n} cut at ${cut}: decoded`);
      } catch (e) {
        if (!(e instanceof CompactDecodeError)) wrong.push(`input ${n} cut at ${cut}: ${String(e)}`);
      }
    }
  }
  expect(wrong).toEqual([]);
  // The generator must produce substantial nested input, or this proves little.
  expect(bytes).toBeGreaterThan(100_000);
  expect(cuts).toBeGreaterThan(15_000);
});
