// Avro object container reader (spec "Object Container Files") for the files we read back to
// validate: manifest lists and manifests. Whole-file, synchronous decode of a buffer: header
// (magic, metadata map, sync marker), then blocks of (count, size, data, sync); codecs null and
// deflate. Longs decode as bigint (the writer's type), so 63-bit snapshot ids stay exact.
import { inflateRawSync } from 'node:zlib';
import * as avro from 'avsc';
import { ErrorCode, MigrationError } from '../../core/errors';
import { avroType } from './container';
import type { AvroSchema } from './schemas';

const MAGIC = [0x4f, 0x62, 0x6a, 0x01];
const metaType = avro.Type.forSchema({ type: 'map', values: 'bytes' });
const longType = avro.Type.forSchema('long');

export interface AvroContainer {
  readonly metadata: Readonly<Record<string, string>>;
  readonly schema: AvroSchema;
  readonly records: unknown[];
}

function corrupt(path: string, why: string, cause?: unknown): never {
  throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `${path}: not a readable Avro container (${why})`, { path }, { cause });
}

export function readAvroContainer(path: string, bytes: Uint8Array): AvroContainer {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 4 || MAGIC.some((b, i) => buf[i] !== b)) corrupt(path, 'bad magic');
  try {
    const meta = metaType.decode(buf, 4) as { value: Record<string, Buffer>; offset: number };
    if (meta.offset < 0) corrupt(path, 'truncated header');
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(meta.value)) metadata[k] = v.toString('utf8');
    const schema = JSON.parse(metadata['avro.schema'] ?? 'null') as AvroSchema;
    if (schema === null) corrupt(path, 'no avro.schema');
    const codec = metadata['avro.codec'] ?? 'null';
    if (codec !== 'null' && codec !== 'deflate') corrupt(path, `codec ${codec} is not supported`);
    const type = avroType(schema);
    let pos = meta.offset;
    const sync = buf.subarray(pos, pos + 16);
    pos += 16;
    const records: unknown[] = [];
    while (pos < buf.length) {
      const count = longType.decode(buf, pos) as { value: number; offset: number };
      const size = longType.decode(buf, count.offset) as { value: number; offset: number };
      if (count.offset < 0 || size.offset < 0 || size.offset + size.value + 16 > buf.length) corrupt(path, 'truncated block');
      const raw = buf.subarray(size.offset, size.offset + size.value);
      const data = codec === 'deflate' ? inflateRawSync(raw) : raw;
      let at = 0;
      for (let i = 0; i < count.value; i++) {
        const r = type.decode(data, at) as { value: unknown; offset: number };
        if (r.offset < 0) corrupt(path, 'truncated record');
        records.push(r.value);
        at = r.offset;
      }
      pos = size.offset + size.value;
      if (!buf.subarray(pos, pos + 16).equals(sync)) corrupt(path, 'sync marker mismatch');
      pos += 16;
    }
    return { metadata, schema, records };
  } catch (e) {
    if (e instanceof MigrationError) throw e;
    return corrupt(path, (e as Error).message, e);
  }
}
