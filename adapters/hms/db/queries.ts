// The backing-DB reader's statement runner: the leader session (the snapshot) and, on first use,
// forks on its snapshot; `IN (...)` lists in chunks; driver errors translated at this edge; no
// statement after close. Shared by reader.ts and both read paths (row-path.ts, pg-json.ts).
import { ErrorCode, MigrationError } from '../../../core/errors';
import { chunks, id } from './rows';
import { DEFAULT_DB_OPTIONS, translateSqlError } from './session';
import type { HmsDbOptions, Row, SqlSession } from './session';

export class DbQueries {
  readonly opts: Required<HmsDbOptions>;
  private closed = false;
  /** Extra sessions on the leader's snapshot (Postgres), made on first use; closed with the reader. */
  private readonly forks: SqlSession[] = [];
  private forkFailed = false;

  constructor(
    readonly session: SqlSession,
    opts: HmsDbOptions = {},
  ) {
    this.opts = { ...DEFAULT_DB_OPTIONS, ...opts };
  }

  get backend(): SqlSession['backend'] {
    return this.session.backend;
  }

  async q(what: string, sql: string, params: readonly unknown[] = [], session: SqlSession = this.session): Promise<Row[]> {
    if (this.closed)
      throw new MigrationError(
        ErrorCode.HMS_UNREACHABLE,
        `HMS backing DB (${this.session.backend}): reader is closed`,
        { operation: what },
        { retryable: false },
      );
    try {
      return await session.query(sql, params);
    } catch (e) {
      throw translateSqlError(e, this.session.backend, what);
    }
  }

  /** `SELECT … WHERE col IN (…)` over all ids, in chunks; `sql` has one `{in}` marker. */
  async qIn(what: string, sql: string, ids: readonly unknown[], extra: readonly unknown[] = []): Promise<Row[]> {
    const out: Row[] = [];
    for (const part of chunks([...new Set(ids.map(id))], this.opts.inChunk)) {
      const rows = await this.q(what, sql.replace('{in}', part.map(() => '?').join(',')), [...extra, ...part]);
      for (const r of rows) out.push(r);
    }
    return out;
  }

  /** Up to `parallel - 1` forks on the leader's snapshot (sessions that can fork), then the leader. */
  async workers(): Promise<SqlSession[]> {
    const fork = this.session.fork?.bind(this.session);
    while (fork !== undefined && this.forks.length < this.opts.parallel - 1 && !this.forkFailed) {
      try {
        this.forks.push(await fork());
      } catch {
        // No second snapshot (e.g. a server that cannot export one): carry on with what we have.
        this.forkFailed = true;
      }
    }
    // Forks first: they take the first groups (the leader also serves the skew look-ups).
    return [...this.forks, this.session];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.forks.map((f) => f.close()));
    await this.session.close();
  }
}
