// Deterministic ids, so a rerun of the same plan writes the same files and the same table.
// Pure; no I/O, no randomness: every id is a hash of its inputs (SHA-256 from core/plan/hash.ts).
//   table UUID  = name-based UUID (RFC 9562 §5.8 v8, SHA-256 as in its Appendix B.2) of
//                 (namespace UUID, name) — the shape of UUIDv5 with SHA-256 instead of SHA-1.
//   snapshot id = the first 8 bytes of SHA-256(name) masked to a positive 63-bit long (Java masks
//                 a random UUID the same way: SnapshotIdGeneratorUtil); never 0.
import { ErrorCode, MigrationError } from '../errors';
import { uuidFromBytes, uuidToBytes } from './bounds';
import { sha256Hex } from '../hash';

const utf8 = new TextEncoder();

function sha256(data: Uint8Array): Uint8Array {
  const hex = sha256Hex(data);
  return Uint8Array.from({ length: 32 }, (_, i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

/** Our fixed namespace for migration ids (itself v8; change it and every derived id changes). */
export const MIGRATOR_NAMESPACE = 'b7d6a3f0-51c3-8e2a-9f4d-6c0e1a2b3c4d';

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Name-based UUID: SHA-256(namespace bytes ‖ UTF-8 name), version 8, RFC variant. */
export function nameBasedUuid(namespace: string, name: string): string {
  let ns: Uint8Array;
  try {
    ns = uuidToBytes(namespace);
  } catch {
    throw new MigrationError(ErrorCode.ICEBERG_VALUE_INVALID, `namespace '${namespace}' is not a UUID`, { namespace });
  }
  const digest = sha256(concat(ns, utf8.encode(name))).slice(0, 16);
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x80;
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80;
  return uuidFromBytes(digest);
}

/** Positive 63-bit id from SHA-256(name): the first 8 bytes, big-endian, top bit cleared; 0 → 1. */
export function positiveLongFromName(name: string): bigint {
  const d = sha256(utf8.encode(name));
  let v = 0n;
  for (let i = 0; i < 8; i++) v = (v << 8n) | BigInt(d[i] ?? 0);
  v &= (1n << 63n) - 1n;
  return v === 0n ? 1n : v;
}

export interface TableIdentity {
  /** The plan's content hash (core/plan), so a new plan gives new ids. */
  readonly planHash: string;
  /** e.g. `hms:<db>.<table>` → `rest:<ns>.<name>`; any stable text naming source and target. */
  readonly table: string;
}

/** The table UUID for (plan hash, table identity). */
export function deriveTableUuid(id: TableIdentity): string {
  return nameBasedUuid(MIGRATOR_NAMESPACE, `table\u0000${id.planHash}\u0000${id.table}`);
}

/** The snapshot id of the migration's append for (plan hash, table identity). */
export function deriveSnapshotId(id: TableIdentity): bigint {
  return positiveLongFromName(`snapshot\u0000${id.planHash}\u0000${id.table}`);
}

/** A short stable token for file names (e.g. manifests `<token>-m0.avro`). */
export function deriveFileToken(id: TableIdentity, purpose: string): string {
  return sha256Hex(utf8.encode(`file\u0000${purpose}\u0000${id.planHash}\u0000${id.table}`)).slice(0, 32);
}
