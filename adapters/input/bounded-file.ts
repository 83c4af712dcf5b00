// Reading a file a user named (config, plan, lineage, keys, certificates) without trusting what it
// is: opened non-blocking, so a FIFO cannot hang the open; refused unless fstat says it is a regular
// file (devices such as /dev/zero, sockets, directories); read with a cap whatever its size said, so
// a file that grows while we read cannot exhaust memory. Each refusal is the caller's coded error.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Stats } from 'node:fs';
import type { ErrorCode } from '../../core/errors';
import { MigrationError } from '../../core/errors';

export interface BoundedRead {
  /** What the file is, for messages: "config file", "plan file", "plan.lineage". */
  readonly what: string;
  /** The code every refusal carries (the caller's: CONFIG_INVALID, USAGE, LINEAGE_INVALID...). */
  readonly code: ErrorCode;
  /** At most this many bytes are read; a larger file is refused. */
  readonly maxBytes: number;
  /** The code of a too-large file, when it has its own (PLAN_TOO_LARGE). */
  readonly tooLargeCode?: ErrorCode;
}

const KIND: readonly [(s: Stats) => boolean, string][] = [
  [(s) => s.isDirectory(), 'a directory'],
  [(s) => s.isFIFO(), 'a FIFO (named pipe)'],
  [(s) => s.isCharacterDevice() || s.isBlockDevice(), 'a device'],
  [(s) => s.isSocket(), 'a socket'],
];

function openRegular(file: string, o: BoundedRead): number {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const errno = (e as NodeJS.ErrnoException).code;
    throw new MigrationError(o.code, `cannot read ${o.what} ${file}: ${errno ?? (e as Error).message}`, { file });
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    const kind = KIND.find(([is]) => is(st))?.[1];
    throw new MigrationError(
      o.code,
      `cannot read ${o.what} ${file}: not a regular file${kind ? ` (it is ${kind})` : ''}; give a regular file`,
      {
        file,
      },
    );
  }
  if (st.size > o.maxBytes) {
    closeSync(fd);
    throw tooLarge(file, o, st.size);
  }
  return fd;
}

function tooLarge(file: string, o: BoundedRead, size?: number): MigrationError {
  const has = size === undefined ? `more than ${o.maxBytes} bytes` : `${size} bytes`;
  return new MigrationError(o.tooLargeCode ?? o.code, `${o.what} ${file}: ${has}; it may hold at most ${o.maxBytes} bytes`, {
    file,
    limit: o.maxBytes,
    ...(size === undefined ? {} : { bytes: size }),
  });
}

/** The file's bytes: a regular file of at most `maxBytes`, read with that bound. */
export function readBoundedFile(file: string, o: BoundedRead): Buffer {
  const fd = openRegular(file, o);
  const buf = Buffer.allocUnsafe(Math.min(o.maxBytes, 1 << 20) + 1);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      const got = readSync(fd, buf, 0, buf.length, null);
      if (got === 0) break;
      total += got;
      if (total > o.maxBytes) throw tooLarge(file, o);
      chunks.push(Buffer.from(buf.subarray(0, got)));
    }
  } catch (e) {
    if (e instanceof MigrationError) throw e;
    throw new MigrationError(o.code, `cannot read ${o.what} ${file}: ${(e as Error).message}`, { file });
  } finally {
    closeSync(fd);
  }
  return Buffer.concat(chunks, total);
}

/** The file as UTF-8 text (invalid bytes refused with the caller's code). */
export function readBoundedText(file: string, o: BoundedRead): string {
  const bytes = readBoundedFile(file, o);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new MigrationError(o.code, `${o.what} ${file}: not UTF-8 text`, { file });
  }
}
