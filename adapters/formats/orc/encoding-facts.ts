// An ORC file's encoding facts (core/readers/classify.ts FileFacts): the PostScript's compression
// kind and the Footer's type kinds with the column each names. Tail only (the footer reader's own
// read, footer.ts readOrcTail, plus the PostScript it already checks); no stripe is read. A footer
// this runtime cannot decompress still gives its codec (the types are then unknown, and say so).
// Field numbers: orc_proto.proto (PostScript.compression = 2; Footer.types = 4; Type.kind = 1,
// subtypes = 2, fieldNames = 3).
import { MigrationError } from '../../../core/errors';
import type { FileFacts } from '../../../core/readers/classify';
import type { ObjectStore } from '../../../core/storage/object-store';
import { readOrcTail } from './footer';
import type { Message } from './protobuf';
import { decodeMessage, messages, strings, uint, uints } from './protobuf';

/** orc_proto.proto CompressionKind names by value. */
const COMPRESSION = ['NONE', 'ZLIB', 'SNAPPY', 'LZO', 'LZ4', 'ZSTD'];
/** orc_proto.proto Type.Kind names by value. */
const KIND = [
  'BOOLEAN',
  'BYTE',
  'SHORT',
  'INT',
  'LONG',
  'FLOAT',
  'DOUBLE',
  'STRING',
  'BINARY',
  'TIMESTAMP',
  'LIST',
  'MAP',
  'STRUCT',
  'UNION',
  'DECIMAL',
  'DATE',
  'VARCHAR',
  'CHAR',
  'TIMESTAMP_INSTANT',
];

/** The type kinds of a decoded Footer, each with its column path (pre-order from the root struct). */
export function orcTypeKinds(footer: Message): { kind: string; column: string }[] {
  const types = messages(footer, 4);
  const out: { kind: string; column: string }[] = [];
  const visit = (id: number, column: string, depth: number): void => {
    const t = types[id];
    if (t === undefined || depth > 64) return;
    const kind = KIND[Number(uint(t, 1) ?? 0n)] ?? 'UNKNOWN';
    if (id !== 0) out.push({ kind, column });
    const names = strings(t, 3);
    uints(t, 2).forEach((sub, i) => {
      const part =
        kind === 'STRUCT' ? (names[i] ?? `_col${i}`) : kind === 'LIST' ? 'element' : kind === 'MAP' ? (i === 0 ? 'key' : 'value') : `${i}`;
      visit(sub, column === '' ? part : `${column}.${part}`, depth + 1);
    });
  };
  visit(0, '', 0);
  return out;
}

/** The compression kind named by the PostScript at the end of `tail` (the file's last bytes). */
export function orcCompression(tail: Uint8Array): string {
  const psLen = tail[tail.length - 1] ?? 0;
  if (psLen === 0 || psLen + 1 > tail.length) return 'UNKNOWN';
  const ps = decodeMessage(tail.subarray(tail.length - 1 - psLen, tail.length - 1));
  const c = Number(uint(ps, 2) ?? 0n);
  return COMPRESSION[c] ?? `#${c}`;
}

/** FileFacts of the ORC file at `path` (exact `size`). */
export async function readOrcFacts(store: ObjectStore, path: string, size: number): Promise<FileFacts> {
  const compression = orcCompression(await store.readRange(path, Math.max(0, size - 256), size));
  try {
    const { footer } = await readOrcTail(store, path, size);
    return { format: 'orc', compression, types: orcTypeKinds(footer) };
  } catch (e) {
    // A codec this runtime cannot inflate (LZ4, LZO, ZSTD on an old Node): the codec is still a fact.
    if (!(e instanceof MigrationError) || e.code !== 'FORMAT_UNSUPPORTED') throw e;
    return { format: 'orc', compression, types: [] };
  }
}
