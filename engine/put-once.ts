// Idempotent create of a file we own: create-only put (If-None-Match / O_EXCL); when the object is
// already there, it must hold exactly these bytes (a rerun of the same conversion) — anything else
// is a coded conflict and nothing is overwritten.
import { ErrorCode, MigrationError } from '../core/errors';
import type { ObjectStore } from '../core/storage/object-store';
import type { PutOutcome } from '../core/engine-port/conversion';

export async function putOnce(store: ObjectStore, path: string, bytes: Uint8Array): Promise<PutOutcome> {
  try {
    await store.put(path, bytes, { ifNoneMatch: '*' });
    return 'created';
  } catch (e) {
    if (!(e instanceof MigrationError) || e.code !== ErrorCode.STORAGE_PRECONDITION_FAILED) throw e;
  }
  const info = await store.head(path);
  if (info.size === bytes.length) {
    const existing = await store.readRange(path, 0, info.size);
    if (
      Buffer.compare(
        Buffer.from(existing.buffer, existing.byteOffset, existing.byteLength),
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      ) === 0
    )
      return 'identical';
  }
  throw new MigrationError(
    ErrorCode.STORAGE_PRECONDITION_FAILED,
    `${path} already exists with different content: an earlier conversion of this table under the same plan wrote other metadata (the source changed since?). Roll the table back, or plan again.`,
    { path, existingSize: info.size, size: bytes.length },
  );
}
