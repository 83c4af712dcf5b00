// An Avro container's encoding facts (core/readers/classify.ts FileFacts): the writer schema from
// the header's `avro.schema` metadata (Avro spec "Object Container Files"), parsed JSON. One ranged
// read of the file's head; no block is read.
import { ErrorCode, MigrationError } from '../../core/errors';
import type { FileFacts } from '../../core/readers/classify';
import type { ObjectStore } from '../../core/storage/object-store';

const HEAD_BYTES = 64 * 1024;
const MAGIC = [0x4f, 0x62, 0x6a, 0x01]; // "Obj" 1

function corrupt(path: string, why: string): MigrationError {
  return new MigrationError(ErrorCode.FORMAT_CORRUPT_FOOTER, `Avro file ${path}: ${why}`, { path, format: 'AVRO' });
}

/** The header metadata entry `key` of a container whose first bytes are `head`, or undefined. */
export function avroHeaderEntry(head: Uint8Array, key: string, path = ''): Uint8Array | undefined {
  if (MAGIC.some((m, i) => head[i] !== m)) throw corrupt(path, 'no Avro magic (Obj\\x01) at the start');
  let pos = 4;
  const long = (): number => {
    let n = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      const b = head[pos++];
      if (b === undefined) throw corrupt(path, `header longer than ${head.length} bytes read`);
      n += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
      mul *= 128;
    }
    throw corrupt(path, 'overlong varint in the header');
  };
  const text = new TextDecoder();
  for (let count = long(); count !== 0; count = long()) {
    if (count < 0) {
      count = -count;
      long();
    }
    for (let i = 0; i < count; i++) {
      const kl = long();
      const k = text.decode(head.subarray(pos, pos + kl));
      pos += kl;
      const vl = long();
      if (kl < 0 || vl < 0 || pos + vl > head.length) throw corrupt(path, 'header metadata runs past the bytes read');
      if (k === key) return head.subarray(pos, pos + vl);
      pos += vl;
    }
  }
  return undefined;
}

/** FileFacts of the Avro container at `path` (exact `size`). */
export async function readAvroFacts(store: ObjectStore, path: string, size: number): Promise<FileFacts> {
  const head = await store.readRange(path, 0, Math.min(size, HEAD_BYTES));
  const raw = avroHeaderEntry(head, 'avro.schema', path);
  if (raw === undefined) throw corrupt(path, 'no avro.schema in the header');
  try {
    return { format: 'avro', schema: JSON.parse(new TextDecoder().decode(raw)) as unknown };
  } catch {
    throw corrupt(path, 'avro.schema is not JSON');
  }
}
