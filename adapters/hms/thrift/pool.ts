// A small pool of HMS connections: at most `size` open, each used by one call at a time; broken
// connections (closed, timed out) are dropped and replaced on demand. Adapter code.
import { ErrorCode } from '../../../core/errors';
import { openHms } from './connection';
import type { HmsConnectOptions, HmsConnection } from './connection';
import { hmsError } from './errors';

export class HmsPool {
  private readonly idle: HmsConnection[] = [];
  private readonly waiters: (() => void)[] = [];
  private open = 0;
  private closed = false;

  constructor(
    readonly uri: string,
    private readonly opts: HmsConnectOptions,
    readonly size: number,
  ) {
    if (!Number.isInteger(size) || size < 1) throw hmsError(ErrorCode.INTERNAL, `pool size must be a positive integer, got ${size}`);
  }

  /** Borrow a connection for `fn`; it returns to the pool if still usable. */
  async use<T>(fn: (conn: HmsConnection) => Promise<T>): Promise<T> {
    const conn = await this.acquire();
    try {
      return await fn(conn);
    } finally {
      this.release(conn);
    }
  }

  /** A connection for the caller alone; connect failures (HMS_UNREACHABLE) surface here. */
  async acquire(): Promise<HmsConnection> {
    for (;;) {
      if (this.closed) throw hmsError(ErrorCode.INTERNAL, `HMS pool for ${this.uri} is closed`);
      const conn = this.idle.pop();
      if (conn) {
        if (conn.usable) return conn;
        this.open -= 1;
        continue;
      }
      if (this.open < this.size) {
        this.open += 1;
        try {
          return await openHms(this.uri, this.opts);
        } catch (e) {
          this.open -= 1;
          this.waiters.shift()?.();
          throw e;
        }
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  release(conn: HmsConnection): void {
    if (this.closed || !conn.usable) {
      conn.close();
      this.open -= 1;
    } else this.idle.push(conn);
    this.waiters.shift()?.();
  }

  close(): void {
    this.closed = true;
    for (const c of this.idle.splice(0)) c.close();
    this.open = 0;
    for (const w of this.waiters.splice(0)) w();
  }
}
