// Avro object container files (Avro spec "Object Container Files") written through an OutputFile
// we control. Records are encoded by avsc (a Type with a bigint-capable long, so 63-bit snapshot
// ids and long partition values stay exact); the header carries the schema JSON exactly as given,
// field ids included (docs/design/iceberg-spec.md §9). Blocks are flushed at `blockBytes`, so memory stays flat.
// The sync marker is derived from the file path: the same inputs give byte-identical files.
//
// Why not avsc's BlockEncoder: given a schema object it cannot take our long type (it calls
// Type.forSchema without options), and given a Type it rewrites the header schema without the ids.
import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import * as avro from 'avsc';
import { ErrorCode, MigrationError } from '../../core/errors';
import { AvroBytes } from './entry-encoder';
import type { AvroSchema } from './schemas';

/** Where a manifest or manifest list goes (local disk, S3 multipart, memory in tests). */
export interface OutputFile {
  write(chunk: Uint8Array): Promise<void>;
  /** Flush and close; `length` is the exact number of bytes written. */
  close(): Promise<{ length: number }>;
}

export type AvroCodec = 'deflate' | 'null';

const MAGIC = Uint8Array.of(0x4f, 0x62, 0x6a, 0x01); // "Obj" 1

const bigLong = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint | number) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(n));
    return b;
  },
  fromJSON: (v: number | string) => BigInt(v),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint' || (typeof n === 'number' && Number.isSafeInteger(n)),
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

/**
 * Compiled types by schema JSON: avsc compiles a reader, writer and checker per Type (generated
 * code), which cost a sync ~7 ms of CPU per table when every manifest read and write built its own
 * (bench/sync/profile.ts --cpu-profile). A Type holds no state between encodes, so one per schema
 * is shared; the map is bounded (a worker sees one schema per table shape, not per file).
 */
const compiled = new Map<string, avro.Type>();
const COMPILED_MAX = 512;

export function avroType(schema: AvroSchema): avro.Type {
  const key = JSON.stringify(schema);
  const hit = compiled.get(key);
  if (hit !== undefined) {
    // Most recently used last: the oldest is evicted first.
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  const type = compileType(schema);
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, type);
  return type;
}

function compileType(schema: AvroSchema): avro.Type {
  // `registry` covers the bare "long"; typeHook covers {"type":"long","logicalType":…} (timestamps,
  // times), which avsc would otherwise build as its number-only long.
  return avro.Type.forSchema(schema as avro.Schema, {
    registry: { long: bigLong },
    typeHook: (s) =>
      typeof s === 'object' && s !== null && !Array.isArray(s) && (s as { type?: unknown }).type === 'long' ? bigLong : undefined,
  });
}

const metaType = avro.Type.forSchema({ type: 'map', values: 'bytes' });
const longType = avro.Type.forSchema('long');

function syncMarkerFor(path: string): Buffer {
  return createHash('sha256').update(`avro-sync\u0000${path}`).digest().subarray(0, 16);
}

export interface ContainerOptions {
  readonly codec?: AvroCodec;
  readonly blockBytes?: number;
  /** Seeds the sync marker (use the file's final path). */
  readonly path: string;
}

export class AvroContainerWriter {
  private readonly type: avro.Type;
  private readonly sync: Buffer;
  private readonly codec: AvroCodec;
  private readonly blockBytes: number;
  /** The block being filled: records are encoded straight into it. */
  private readonly pending = new AvroBytes();
  private pendingCount = 0;
  private headerWritten = false;
  private written = 0;

  constructor(
    private readonly out: OutputFile,
    private readonly schema: AvroSchema,
    private readonly metadata: Readonly<Record<string, string>>,
    options: ContainerOptions,
  ) {
    this.type = avroType(schema);
    this.sync = syncMarkerFor(options.path);
    this.codec = options.codec ?? 'deflate';
    this.blockBytes = options.blockBytes ?? 64 * 1024;
  }

  private async emit(chunk: Uint8Array): Promise<void> {
    this.written += chunk.length;
    await this.out.write(chunk);
  }

  private async header(): Promise<void> {
    if (this.headerWritten) return;
    this.headerWritten = true;
    const meta: Record<string, Buffer> = {};
    for (const [k, v] of Object.entries(this.metadata)) meta[k] = Buffer.from(v, 'utf8');
    meta['avro.schema'] = Buffer.from(JSON.stringify(this.schema), 'utf8');
    meta['avro.codec'] = Buffer.from(this.codec, 'utf8');
    await this.emit(Buffer.concat([MAGIC, metaType.toBuffer(meta), this.sync]));
  }

  async append(record: unknown): Promise<void> {
    let buf: Buffer;
    try {
      buf = this.type.toBuffer(record);
    } catch (e) {
      throw new MigrationError(
        ErrorCode.ICEBERG_MANIFEST_WRITE_FAILED,
        `cannot encode an Avro record: ${(e as Error).message}`,
        {},
        { cause: e },
      );
    }
    await this.appendEncoded((out) => out.raw(buf));
  }

  /**
   * Appends one record that `encode` writes in Avro binary form itself (entry-encoder.ts), for
   * records too many for avsc's per-record cost. `encode` must write exactly one record of this
   * writer's schema; on a throw the partial record is dropped.
   */
  async appendEncoded(encode: (out: AvroBytes) => void): Promise<void> {
    await this.header();
    const start = this.pending.length;
    try {
      encode(this.pending);
    } catch (e) {
      this.pending.truncate(start);
      throw e;
    }
    this.pendingCount++;
    if (this.pending.length >= this.blockBytes) await this.flushBlock();
  }

  private async flushBlock(): Promise<void> {
    if (this.pendingCount === 0) return;
    const raw = this.pending.view();
    const data = this.codec === 'deflate' ? deflateRawSync(raw) : Buffer.from(raw);
    const count = this.pendingCount;
    this.pending.reset();
    this.pendingCount = 0;
    await this.emit(Buffer.concat([longType.toBuffer(count), longType.toBuffer(data.length), data, this.sync]));
  }

  /** Flush, close the output and return the exact file length. */
  async close(): Promise<{ length: number }> {
    await this.header();
    await this.flushBlock();
    const { length } = await this.out.close();
    if (length !== this.written) {
      throw new MigrationError(ErrorCode.ICEBERG_MANIFEST_WRITE_FAILED, `output reported ${length} bytes, ${this.written} were written`, {
        path: null,
      });
    }
    return { length };
  }
}
