// A minimal protobuf wire-format reader (varint, 64-bit, length-delimited, 32-bit), enough for
// ORC's PostScript, Footer and statistics messages (orc_proto.proto). No schema: a message is
// decoded to field number → raw values, and accessors interpret them.

export type WireValue = bigint | Uint8Array;

/** field number → values in order (repeated fields keep every occurrence). */
export type Message = ReadonlyMap<number, readonly WireValue[]>;

function varint(buf: Uint8Array, pos: { p: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const b = buf[pos.p++];
    if (b === undefined) throw new Error('protobuf: truncated varint');
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return result;
    shift += 7n;
    if (shift > 70n) throw new Error('protobuf: varint too long');
  }
}

export function decodeMessage(buf: Uint8Array): Message {
  const out = new Map<number, WireValue[]>();
  const pos = { p: 0 };
  while (pos.p < buf.length) {
    const key = Number(varint(buf, pos));
    const field = key >>> 3;
    const wire = key & 7;
    let v: WireValue;
    if (wire === 0) v = varint(buf, pos);
    else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      if (pos.p + n > buf.length) throw new Error('protobuf: truncated fixed field');
      v = buf.subarray(pos.p, pos.p + n);
      pos.p += n;
    } else if (wire === 2) {
      const len = Number(varint(buf, pos));
      if (pos.p + len > buf.length) throw new Error(`protobuf: field ${field} length ${len} exceeds the message`);
      v = buf.subarray(pos.p, pos.p + len);
      pos.p += len;
    } else throw new Error(`protobuf: unsupported wire type ${wire} (field ${field})`);
    if (field === 0) throw new Error('protobuf: field number 0');
    const list = out.get(field) ?? [];
    list.push(v);
    out.set(field, list);
  }
  return out;
}

export function uint(m: Message, field: number): bigint | undefined {
  const v = m.get(field)?.at(-1);
  return typeof v === 'bigint' ? v : undefined;
}
export function sint(m: Message, field: number): bigint | undefined {
  const v = uint(m, field);
  return v === undefined ? undefined : (v >> 1n) ^ -(v & 1n);
}
export function bool(m: Message, field: number): boolean | undefined {
  const v = uint(m, field);
  return v === undefined ? undefined : v !== 0n;
}
export function double(m: Message, field: number): number | undefined {
  const v = m.get(field)?.at(-1);
  return v instanceof Uint8Array && v.length === 8 ? new DataView(v.buffer, v.byteOffset, 8).getFloat64(0, true) : undefined;
}
export function bytes(m: Message, field: number): Uint8Array | undefined {
  const v = m.get(field)?.at(-1);
  return v instanceof Uint8Array ? v : undefined;
}
const utf8 = new TextDecoder('utf-8', { fatal: true });
export function string(m: Message, field: number): string | undefined {
  const b = bytes(m, field);
  return b === undefined ? undefined : utf8.decode(b);
}
export function strings(m: Message, field: number): string[] {
  return (m.get(field) ?? []).filter((v): v is Uint8Array => v instanceof Uint8Array).map((b) => utf8.decode(b));
}
export function messages(m: Message, field: number): Message[] {
  return (m.get(field) ?? []).filter((v): v is Uint8Array => v instanceof Uint8Array).map(decodeMessage);
}
export function message(m: Message, field: number): Message | undefined {
  const b = bytes(m, field);
  return b === undefined ? undefined : decodeMessage(b);
}
/** A repeated uint32 field, packed or not. */
export function uints(m: Message, field: number): number[] {
  const out: number[] = [];
  for (const v of m.get(field) ?? []) {
    if (typeof v === 'bigint') out.push(Number(v));
    else {
      const pos = { p: 0 };
      while (pos.p < v.length) out.push(Number(varint(v, pos)));
    }
  }
  return out;
}
