// The Thrift compact-protocol reader under compact.ts (pure; no I/O): varints, binaries, list and
// field headers, and skipping of whatever the decoder does not read, without materialising it.
// Wire format: thrift/doc/specs/thrift-compact-protocol.md. Failures are CompactDecodeError.
/** Compact-protocol type ids (thrift-compact-protocol.md "Struct encoding"). */
export const T = {
  STOP: 0,
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

export class CompactDecodeError extends Error {}

const utf8 = new TextDecoder();

export class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}

  byte(): number {
    if (this.pos >= this.buf.length) throw new CompactDecodeError(`unexpected end of footer at byte ${this.pos}`);
    return this.buf[this.pos++] as number;
  }

  /** Unsigned varint as a number (≤ 2^53). */
  uvarint(): number {
    // Most varints in a footer (field deltas aside: lengths, small counts) are one or two bytes.
    const buf = this.buf;
    const p = this.pos;
    if (p + 1 < buf.length) {
      const b0 = buf[p] as number;
      if (b0 < 0x80) {
        this.pos = p + 1;
        return b0;
      }
      const b1 = buf[p + 1] as number;
      if (b1 < 0x80) {
        this.pos = p + 2;
        return (b0 & 0x7f) | (b1 << 7);
      }
    }
    return this.uvarintSlow();
  }

  private uvarintSlow(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return result;
      mul *= 128;
    }
    throw new CompactDecodeError(`varint longer than 56 bits at byte ${this.pos}`);
  }

  /** Zigzag varint (i16/i32/i64) as a number. */
  int(): number {
    const u = this.uvarint();
    // (u >>> 1) ^ -(u & 1), without 32-bit truncation.
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  /** Length of the last binary passed over by span(). */
  spanLength = 0;

  /** Passes over a binary: returns where its bytes start, leaves its length in `spanLength` (no view made). */
  span(): number {
    const n = this.uvarint();
    const start = this.pos;
    if (start + n > this.buf.length) throw new CompactDecodeError(`binary of ${n} bytes runs past the footer at byte ${start}`);
    this.pos = start + n;
    this.spanLength = n;
    return start;
  }

  binary(): Uint8Array {
    const start = this.span();
    return this.buf.subarray(start, this.pos);
  }

  string(): string {
    const b = this.binary();
    // Column and schema names are short and mostly ASCII: building those directly is several
    // times cheaper than a TextDecoder call; anything else goes through the decoder.
    if (b.length <= 64) {
      let ascii = true;
      for (let i = 0; i < b.length; i++) if ((b[i] as number) >= 0x80) ascii = false;
      if (ascii) return String.fromCharCode.apply(null, b as unknown as number[]);
    }
    return utf8.decode(b);
  }

  /** Element type of the last list header read by list(). */
  elementType = 0;

  /** List/set header: returns the size and leaves the element type in `elementType` (no tuple). */
  list(): number {
    const h = this.byte();
    this.elementType = h & 0x0f;
    return h >> 4 === 15 ? this.uvarint() : h >> 4;
  }

  /** Field id of the last header read by field(). */
  fieldId = 0;

  /**
   * The next field header of a struct whose previous field id was `last`: returns its type (STOP =
   * end of struct) and leaves its id in `fieldId` — for hand-written loops on hot structs.
   */
  field(last: number): number {
    const h = this.byte();
    const type = h & 0x0f;
    if (type !== T.STOP) {
      const delta = h >> 4;
      this.fieldId = delta === 0 ? this.int() : last + delta;
    }
    return type;
  }

  skip(type: number, depth = 0): void {
    if (depth > 64) throw new CompactDecodeError('nesting too deep');
    switch (type) {
      case T.TRUE:
      case T.FALSE:
        return;
      case T.BYTE:
        this.pos++;
        break;
      case T.I16:
      case T.I32:
      case T.I64:
        this.uvarint();
        return;
      case T.DOUBLE:
        this.pos += 8;
        break;
      case T.UUID:
        this.pos += 16;
        break;
      case T.BINARY:
        this.span();
        return;
      case T.LIST:
      case T.SET: {
        const n = this.list();
        const et = this.elementType;
        if (et === T.TRUE || et === T.FALSE)
          this.pos += n; // booleans in containers: one byte each
        else if (et === T.I32 || et === T.I64 || et === T.I16) this.pos = this.pastVarints(this.pos, n);
        else if (et === T.STRUCT) for (let i = 0; i < n; i++) this.skipStruct(depth + 1);
        else for (let i = 0; i < n; i++) this.skip(et, depth + 1);
        break;
      }
      case T.MAP: {
        const n = this.uvarint();
        if (n === 0) return;
        const kv = this.byte();
        for (let i = 0; i < n; i++) {
          this.skipElement(kv >> 4, depth + 1);
          this.skipElement(kv & 0x0f, depth + 1);
        }
        break;
      }
      case T.STRUCT:
        this.skipStruct(depth + 1);
        return;
      default:
        throw new CompactDecodeError(`unknown compact type ${type} at byte ${this.pos - 1}`);
    }
    if (this.pos > this.buf.length) throw new CompactDecodeError('field runs past the footer');
  }

  /** A container element: as a field, except that a boolean is one byte here (a field's is in its header). */
  private skipElement(type: number, depth: number): void {
    if (type === T.TRUE || type === T.FALSE) this.pos++;
    else this.skip(type, depth);
  }

  /** Where a run of `n` varints starting at `p` ends (no value decoded: the bytes that end one are counted). */
  private pastVarints(p: number, n: number): number {
    const buf = this.buf;
    for (let left = n; left > 0; p++) {
      if (p >= buf.length) throw new CompactDecodeError(`unexpected end of footer at byte ${p}`);
      if ((buf[p] as number) < 0x80) left--;
    }
    return p;
  }

  /**
   * Passes over a struct (its header read: the fields follow). Scalar fields — most of what is
   * skipped: encoding stats, size statistics, page index offsets — are passed over in this loop,
   * containers and nested structs through skip().
   */
  skipStruct(depth: number): void {
    if (depth > 64) throw new CompactDecodeError('nesting too deep');
    const buf = this.buf;
    const end = buf.length;
    let p = this.pos;
    for (;;) {
      if (p >= end) throw new CompactDecodeError(`unexpected end of footer at byte ${p}`);
      const h = buf[p++] as number;
      const type = h & 0x0f;
      if (type === T.STOP) break;
      if (h >> 4 === 0) p = this.pastVarints(p, 1); // a field id given in full (zigzag varint)
      if (type === T.I32 || type === T.I64 || type === T.I16) p = this.pastVarints(p, 1);
      else if (type === T.BINARY) {
        this.pos = p;
        this.span();
        p = this.pos;
      } else if (type === T.BYTE) p += 1;
      else if (type === T.DOUBLE) p += 8;
      else if (type !== T.TRUE && type !== T.FALSE) {
        this.pos = p;
        this.skip(type, depth);
        p = this.pos;
      }
    }
    if (p > end) throw new CompactDecodeError('field runs past the footer');
    this.pos = p;
  }

  /**
   * Reads a struct's fields in order; `field(id, type)` consumes the value and returns true, or
   * returns false to have it skipped.
   */
  struct(field: (id: number, type: number) => boolean, depth = 0): void {
    let id = 0;
    for (let t = this.field(0); t !== T.STOP; t = this.field(id)) {
      id = this.fieldId; // before the callback: a nested struct overwrites fieldId
      if (!field(id, t)) this.skip(t, depth);
    }
  }

  /** A list of structs. */
  structs<R>(one: () => R): R[] {
    const n = this.list();
    const et = this.elementType;
    if (et !== T.STRUCT) throw new CompactDecodeError(`expected a list of structs, found element type ${et}`);
    const out = new Array<R>(n);
    for (let i = 0; i < n; i++) out[i] = one();
    return out;
  }
}
