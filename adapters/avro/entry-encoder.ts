// Avro binary encoding of one ADDED manifest_entry (schemas.ts manifestEntrySchema), written
// directly instead of through avsc: a manifest of a large table is tens of thousands of these, and
// building the record object avsc wants (five Maps turned into arrays of {key, value} records,
// Buffer views of every bound) then walking it through avsc's type tree cost ~75 µs per 20-column
// file on the converting thread — a quarter of its CPU (bench/convert). The bytes are exactly
// avsc's (test/adapters/avro/entry-encoder.test.ts compares both on generated files): zig-zag
// varints for int/long, length-prefixed strings and bytes, a union as its branch index, a non-empty
// array as one block (count, items, 0). The partition record is encoded once per partition tuple by
// the caller (avsc over the r102 schema) and spliced in as bytes.
import { ErrorCode, MigrationError } from '../../core/errors';
import type { DataFile } from '../../core/iceberg/manifest';
import { DataFileContent, ManifestEntryStatus } from '../../core/iceberg/spec-constants';

/** A growable output buffer with the Avro primitives the manifest entry needs. */
export class AvroBytes {
  private buf = Buffer.allocUnsafe(4096);
  private at = 0;

  get length(): number {
    return this.at;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }

  /** Avro int/long: zig-zag varint. Numbers must be safe integers; bigints any 64-bit value. */
  long(v: number | bigint): void {
    if (typeof v === 'number' && v >= -0x40000000 && v < 0x40000000 && Number.isInteger(v)) {
      // Fast path: the zig-zag value fits 31 bits, so 32-bit arithmetic is exact.
      let z = (v << 1) ^ (v >> 31);
      this.room(5);
      while (z > 0x7f) {
        this.buf[this.at++] = (z & 0x7f) | 0x80;
        z >>>= 7;
      }
      this.buf[this.at++] = z;
      return;
    }
    if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new RangeError(`${v} is not a safe integer`);
    const b = BigInt(v);
    if (b < -(1n << 63n) || b >= 1n << 63n) throw new RangeError(`${b} does not fit a long`);
    let z = b < 0n ? ((-b - 1n) << 1n) | 1n : b << 1n;
    this.room(10);
    while (z > 0x7fn) {
      this.buf[this.at++] = Number(z & 0x7fn) | 0x80;
      z >>= 7n;
    }
    this.buf[this.at++] = Number(z);
  }

  bytes(b: Uint8Array): void {
    this.long(b.length);
    this.raw(b);
  }

  raw(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  string(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.long(n);
    this.room(n);
    this.at += this.buf.write(s, this.at, n, 'utf8');
  }

  /** The bytes written so far (a view: valid until the next write or reset). */
  view(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  /** Drops everything after the first `length` bytes. */
  truncate(length: number): void {
    this.at = Math.min(this.at, length);
  }

  reset(): void {
    this.at = 0;
  }
}

const NULL_BRANCH = 0;
const VALUE_BRANCH = 1;

/** ["null", array<T>]: null, or the value branch and the items as one block (count, items, 0). */
function optionalArray<T>(out: AvroBytes, items: readonly T[] | undefined, write: (x: T) => void): void {
  if (items === undefined) {
    out.long(NULL_BRANCH);
    return;
  }
  out.long(VALUE_BRANCH);
  if (items.length > 0) {
    out.long(items.length);
    for (const x of items) write(x);
  }
  out.long(0);
}

/** Optional int-keyed map as Iceberg writes it: an optional array of k/v records, keys ascending. */
function intMap<V>(out: AvroBytes, m: ReadonlyMap<number, V> | undefined, value: (v: V) => void): void {
  if (m === undefined) {
    out.long(NULL_BRANCH);
    return;
  }
  out.long(VALUE_BRANCH);
  if (m.size > 0) {
    out.long(m.size);
    // Maps from the footer readers are built in ascending key order: no sort needed then.
    let ascending = true;
    let last = -Infinity;
    m.forEach((_v, k) => {
      if (k <= last) ascending = false;
      last = k;
    });
    if (ascending) {
      m.forEach((v, k) => {
        out.long(k);
        value(v);
      });
    } else {
      for (const k of [...m.keys()].sort((a, b) => a - b)) {
        out.long(k);
        value(m.get(k) as V);
      }
    }
  }
  out.long(0);
}

/**
 * The Avro framing of one of encodeMetrics' maps, for callers that stream the entries themselves
 * (parquet.ts parquetStatsEncoded, from its accumulators, without building Maps): `open` with the
 * entry count, then `count` × (key as a long, value), keys ascending, then `close`; or `absent`.
 */
export const metricsMap = {
  open(out: AvroBytes, count: number): void {
    out.long(VALUE_BRANCH);
    if (count > 0) out.long(count);
  },
  close(out: AvroBytes): void {
    out.long(0);
  },
  absent(out: AvroBytes): void {
    out.long(NULL_BRANCH);
  },
} as const;

type Metrics = Pick<DataFile, 'columnSizes' | 'valueCounts' | 'nullValueCounts' | 'nanValueCounts' | 'lowerBounds' | 'upperBounds'>;
const long =
  (out: AvroBytes) =>
  (v: number): void =>
    out.long(v);

/**
 * manifest_entry's column_sizes, value_counts, null_value_counts, nan_value_counts, lower_bounds and
 * upper_bounds (consecutive in data_file), as encodeAddedEntry writes them: a footer thread encodes
 * them once, and the manifest writer copies the bytes (DataFile.encodedMetrics).
 */
export function encodeMetrics(out: AvroBytes, f: Metrics): void {
  const asLong = long(out);
  const bytes = (b: Uint8Array): void => out.bytes(b);
  intMap(out, f.columnSizes, asLong);
  intMap(out, f.valueCounts, asLong);
  intMap(out, f.nullValueCounts, asLong);
  intMap(out, f.nanValueCounts, asLong);
  intMap(out, f.lowerBounds, bytes);
  intMap(out, f.upperBounds, bytes);
}

/**
 * Appends the manifest_entry of `f` (status ADDED; snapshot id and both sequence numbers null, so
 * they are inherited from the manifest list) to `out`. `partition` is the encoded r102 record.
 */
export function encodeAddedEntry(out: AvroBytes, f: DataFile, partition: Uint8Array): void {
  try {
    out.long(ManifestEntryStatus.ADDED);
    out.long(NULL_BRANCH); // snapshot_id
    out.long(NULL_BRANCH); // sequence_number
    out.long(NULL_BRANCH); // file_sequence_number
    out.long(DataFileContent.DATA);
    out.string(f.filePath);
    out.string(f.fileFormat);
    out.raw(partition);
    out.long(f.recordCount);
    out.long(f.fileSizeInBytes);
    if (f.encodedMetrics === undefined) encodeMetrics(out, f);
    else if (f.columnSizes ?? f.valueCounts ?? f.nullValueCounts ?? f.nanValueCounts ?? f.lowerBounds ?? f.upperBounds)
      throw new Error('encoded metrics and metric maps together');
    else out.raw(f.encodedMetrics);
    if (f.keyMetadata === undefined) out.long(NULL_BRANCH);
    else {
      out.long(VALUE_BRANCH);
      out.bytes(f.keyMetadata);
    }
    optionalArray(out, f.splitOffsets, long(out));
    out.long(NULL_BRANCH); // equality_ids
    if (f.sortOrderId === undefined) out.long(NULL_BRANCH);
    else {
      out.long(VALUE_BRANCH);
      out.long(f.sortOrderId);
    }
    out.long(NULL_BRANCH); // referenced_data_file
  } catch (e) {
    throw new MigrationError(
      ErrorCode.ICEBERG_MANIFEST_WRITE_FAILED,
      `cannot encode the manifest entry of ${f.filePath}: ${(e as Error).message}`,
      { file: f.filePath },
      { cause: e },
    );
  }
}
