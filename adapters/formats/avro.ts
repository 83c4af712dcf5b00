// Avro object-container files → record count (Avro spec "Object Container Files"), as Iceberg's
// Avro.rowCount: walk the block headers (object count + byte size), checking each block's sync
// marker, skipping block data — records are never decoded. Reads ranged windows of the file: a
// block larger than the window costs one small read at the next block header.
import { ErrorCode, MigrationError } from '../../core/errors';
import type { FileStats, FooterContext, FooterReader } from '../../core/storage/file-stats';
import type { ObjectStore } from '../../core/storage/object-store';

export const AVRO_WINDOW_BYTES = 1024 * 1024;
const MAGIC = [0x4f, 0x62, 0x6a, 0x01]; // "Obj" 1
const SYNC = 16;
/** Longest zig-zag varint long. */
const MAX_VARINT = 10;

function corrupt(path: string, why: string): MigrationError {
  return new MigrationError(ErrorCode.FORMAT_CORRUPT_FOOTER, `Avro file ${path}: ${why}`, { path, format: 'AVRO' });
}

class Window {
  private start = 0;
  private buf: Uint8Array = new Uint8Array(0);
  reads = 0;
  constructor(
    private readonly store: ObjectStore,
    private readonly path: string,
    private readonly size: number,
    private readonly windowBytes: number,
  ) {}

  /** Bytes [offset, offset + n) (fewer at the end of the file). */
  async at(offset: number, n: number): Promise<Uint8Array> {
    const end = Math.min(this.size, offset + n);
    if (offset < this.start || end > this.start + this.buf.length) {
      this.start = offset;
      this.buf = await this.store.readRange(this.path, offset, Math.min(this.size, offset + Math.max(n, this.windowBytes)));
      this.reads++;
    }
    return this.buf.subarray(offset - this.start, end - this.start);
  }
}

/** A zig-zag varint long at the start of `b`: [value, bytes used]. */
function readLong(b: Uint8Array, path: string): [number, number] {
  let n = 0n;
  let shift = 0n;
  for (let i = 0; i < b.length && i < MAX_VARINT; i++) {
    const x = b[i] ?? 0;
    n |= BigInt(x & 0x7f) << shift;
    if ((x & 0x80) === 0) {
      const v = (n >> 1n) ^ -(n & 1n);
      return [Number(v), i + 1];
    }
    shift += 7n;
  }
  throw corrupt(path, 'truncated or overlong varint');
}

/** Offset just past the header (magic, metadata map, sync) and the sync marker. */
async function readHeader(w: Window, path: string): Promise<{ offset: number; sync: Uint8Array; schema?: string }> {
  const magic = await w.at(0, 4);
  if (magic.length < 4 || MAGIC.some((m, i) => magic[i] !== m)) throw corrupt(path, 'no Avro magic (Obj\\x01) at the start');
  let pos = 4;
  let schema: string | undefined;
  const long = async (): Promise<number> => {
    const [v, used] = readLong(await w.at(pos, MAX_VARINT), path);
    pos += used;
    return v;
  };
  // Metadata: map<bytes> as blocks of (count, [size,] entries…) ending with count 0.
  for (;;) {
    let count = await long();
    if (count === 0) break;
    if (count < 0) {
      count = -count;
      await long();
    }
    for (let i = 0; i < count; i++) {
      const klen = await long();
      if (klen < 0) throw corrupt(path, 'negative length in the header metadata');
      const key = new TextDecoder().decode(await w.at(pos, klen));
      pos += klen;
      const len = await long();
      if (len < 0) throw corrupt(path, 'negative length in the header metadata');
      if (key === 'avro.schema') schema = new TextDecoder().decode(await w.at(pos, len));
      pos += len;
    }
  }
  const sync = (await w.at(pos, SYNC)).slice();
  if (sync.length !== SYNC) throw corrupt(path, 'truncated header (no sync marker)');
  return { offset: pos + SYNC, sync, ...(schema === undefined ? {} : { schema }) };
}

/** Record count of the Avro container at `path` (exact `size`). */
export async function avroRecordCount(
  store: ObjectStore,
  path: string,
  size: number,
  windowBytes = AVRO_WINDOW_BYTES,
): Promise<{ records: number; blocks: number; reads: number; schema?: string }> {
  const w = new Window(store, path, size, windowBytes);
  const header = await readHeader(w, path);
  let pos = header.offset;
  let records = 0;
  let blocks = 0;
  while (pos < size) {
    const head = await w.at(pos, 2 * MAX_VARINT);
    const [count, a] = readLong(head, path);
    const [bytes, b] = readLong(head.subarray(a), path);
    if (count < 0 || bytes < 0) throw corrupt(path, `block ${blocks} has a negative count or size`);
    const syncAt = pos + a + b + bytes;
    const sync = await w.at(syncAt, SYNC);
    if (sync.length !== SYNC || sync.some((x, i) => x !== header.sync[i]))
      throw corrupt(path, `block ${blocks} at offset ${pos} does not end with the file's sync marker (truncated or corrupt)`);
    records += count;
    blocks++;
    pos = syncAt + SYNC;
  }
  return { records, blocks, reads: w.reads, ...(header.schema === undefined ? {} : { schema: header.schema }) };
}

/** FooterReader for Avro: record count only (Iceberg writes no column metrics for Avro imports). */
export class AvroFooterReader implements FooterReader {
  constructor(
    private readonly store: ObjectStore,
    private readonly windowBytes = AVRO_WINDOW_BYTES,
  ) {}

  async readStats(path: string, size: number, _context: FooterContext): Promise<FileStats> {
    const r = await avroRecordCount(this.store, path, size, this.windowBytes);
    const ids = r.schema === undefined ? undefined : avroFieldIds(r.schema);
    return ids === undefined
      ? { recordCount: r.records }
      : { recordCount: r.records, fileColumns: ids.columns, fileFieldIds: ids.fieldIds };
  }
}

type AvroSchema = string | AvroSchema[] | { readonly [k: string]: unknown };

/**
 * The column paths of an Avro writer schema and the Iceberg `field-id` (record fields),
 * `element-id` (arrays) and `key-id` / `value-id` (maps) at each level, as the Parquet reader
 * spells them (a list's element under `array`, a map's under `key_value`), or undefined when the
 * schema carries no ids or does not parse.
 */
export function avroFieldIds(json: string): { columns: string[][]; fieldIds: (number | null)[][] } | undefined {
  let root: AvroSchema;
  try {
    root = JSON.parse(json) as AvroSchema;
  } catch {
    return undefined;
  }
  const columns: string[][] = [];
  const fieldIds: (number | null)[][] = [];
  let any = false;
  const idOf = (v: unknown): number | null => {
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
    if (!Number.isInteger(n)) return null;
    any = true;
    return n;
  };
  const nonNull = (t: AvroSchema): AvroSchema => (Array.isArray(t) ? (t.find((x) => x !== 'null') ?? 'null') : t);
  const visit = (t: AvroSchema, at: string[], ids: (number | null)[]): void => {
    const u = nonNull(t);
    if (typeof u === 'object' && !Array.isArray(u) && u.type === 'record' && Array.isArray(u.fields)) {
      for (const f of u.fields as { name: string; type: AvroSchema; 'field-id'?: unknown }[])
        visit(f.type, [...at, f.name], [...ids, idOf(f['field-id'])]);
    } else if (typeof u === 'object' && !Array.isArray(u) && u.type === 'array') {
      visit(u.items as AvroSchema, [...at, 'array'], [...ids, idOf(u['element-id'])]);
    } else if (typeof u === 'object' && !Array.isArray(u) && u.type === 'map') {
      columns.push([...at, 'key_value', 'key']);
      fieldIds.push([...ids, null, idOf(u['key-id'])]);
      visit(u.values as AvroSchema, [...at, 'key_value', 'value'], [...ids, null, idOf(u['value-id'])]);
    } else {
      columns.push(at);
      fieldIds.push(ids);
    }
  };
  visit(root, [], []);
  return any ? { columns, fieldIds } : undefined;
}
