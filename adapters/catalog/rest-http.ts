// HTTP transport of the REST catalog client: one call = one deadline (`timeoutMs`, retries
// included), each attempt also bounded by `attemptTimeoutMs`. Idempotent reads (GET, HEAD) are
// retried on 5xx/429/timeouts/connection failures with capped exponential backoff and jitter
// (Retry-After honoured); mutations are never retried here — the caller decides what an unknown
// outcome means (reload and compare). A 401 with an OAuth2 token refreshes it once (and resends once). Every non-2xx
// becomes a MigrationError (the REST error model, docs/design/iceberg-spec.md §6 "Errors"); headers — tokens — never
// enter an error.
import * as http from 'node:http';
import * as https from 'node:https';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { RequestAuth } from './request-auth';
import { causeText } from './rest-auth';

export interface HttpSettings {
  /** Whole-call deadline, retries included (default 30 s). */
  readonly timeoutMs: number;
  /** One attempt's deadline (default 10 s, never beyond the call's). */
  readonly attemptTimeoutMs: number;
  /** Attempts for idempotent reads (default 4); mutations get exactly one. */
  readonly maxAttempts: number;
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
}

export const DEFAULT_HTTP: HttpSettings = {
  timeoutMs: 30_000,
  attemptTimeoutMs: 10_000,
  maxAttempts: 4,
  retryBaseDelayMs: 200,
  retryMaxDelayMs: 5_000,
};

export interface RestRequest {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  /** Path from the catalog root, already encoded (`/v1/…`). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Statuses returned to the caller instead of thrown (e.g. 404 for exists checks). */
  readonly pass?: readonly number[];
}

export interface RestResponse {
  readonly status: number;
  readonly text: string;
}

/** The REST error model `{"error":{"message","type","code"}}`; tolerant of anything else. */
export function errorModel(text: string): { type: string; message: string } {
  try {
    const e = (JSON.parse(text) as { error?: { type?: unknown; message?: unknown } }).error;
    return { type: typeof e?.type === 'string' ? e.type : '', message: typeof e?.message === 'string' ? e.message : '' };
  } catch {
    return { type: '', message: text.slice(0, 200) };
  }
}

/** Map a non-2xx answer to a code (exhaustive over the statuses the spec names). */
export function httpError(method: string, path: string, status: number, text: string): MigrationError {
  const { type, message } = errorModel(text);
  const what = `${method} ${path}: HTTP ${status}${type ? ` ${type}` : ''}${message ? `: ${message}` : ''}`;
  const ctx = { method, path, status, type };
  if (status === 404) return new MigrationError(ErrorCode.CATALOG_NOT_FOUND, what, ctx);
  if (status === 409) {
    const conflict = type === 'NamespaceNotEmptyException' || type === 'CommitFailedException';
    return new MigrationError(conflict ? ErrorCode.CATALOG_CONFLICT : ErrorCode.CATALOG_ALREADY_EXISTS, what, ctx);
  }
  if (status === 401 || status === 403 || status === 419) return new MigrationError(ErrorCode.CATALOG_AUTH_FAILED, what, ctx);
  // The reference server answers 500 NotFoundException when a metadata file it must read is missing
  // (register of an unreadable location, load of a table whose metadata was deleted): not transient.
  if (status >= 500 && type === 'NotFoundException') return new MigrationError(ErrorCode.CATALOG_METADATA_UNREADABLE, what, ctx);
  if (status === 429 || status >= 500) return new MigrationError(ErrorCode.CATALOG_SERVER_ERROR, what, ctx);
  return new MigrationError(ErrorCode.CATALOG_HTTP_ERROR, what, ctx, { retryable: false });
}

const IDEMPOTENT = new Set(['GET', 'HEAD']);

/**
 * One request over node:http(s) with a keep-alive agent, the whole answer read; rejects with an
 * Error named TimeoutError when `budgetMs` passes first. (fetch cost ~2 ms of CPU per call in Node
 * 20 — a sync makes two per table: bench/sync/profile.ts --cpu-profile.)
 */
function send(
  url: URL,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
  agent: http.Agent,
  budgetMs: number,
): Promise<RestResponse & { retryAfter: string | null }> {
  const mod = url.protocol === 'https:' ? https : http;
  const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
  const all = payload === undefined ? headers : { ...headers, 'content-length': String(payload.length) };
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { method, headers: all, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), retryAfter: retryAfter ?? null });
      });
    });
    const timer = setTimeout(() => {
      const e = new Error(`no answer in ${budgetMs} ms`);
      e.name = 'TimeoutError';
      req.destroy(e);
    }, budgetMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(payload);
  });
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Retry-After as seconds or an HTTP date → ms; undefined when absent or unreadable. */
function retryAfterMs(h: string | null, now: number): number | undefined {
  if (h === null) return undefined;
  if (/^\d+$/.test(h.trim())) return Number(h.trim()) * 1000;
  const at = Date.parse(h);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class RestHttp {
  /** Attempts made (all calls), for tests and metrics. */
  attempts = 0;
  private httpAgent: http.Agent | undefined;
  private httpsAgent: https.Agent | undefined;

  constructor(
    readonly baseUri: string,
    private readonly auth: RequestAuth,
    private readonly settings: HttpSettings,
    private readonly headers: Readonly<Record<string, string>> = {},
  ) {}

  url(req: Pick<RestRequest, 'path' | 'query'>): string {
    const q = Object.entries(req.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined);
    return `${this.baseUri}${req.path}${q.length === 0 ? '' : `?${new URLSearchParams(q).toString()}`}`;
  }

  async call(req: RestRequest): Promise<RestResponse> {
    const deadline = Date.now() + this.settings.timeoutMs;
    const maxAttempts = IDEMPOTENT.has(req.method) ? this.settings.maxAttempts : 1;
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      let res: RestResponse & { retryAfter: string | null };
      try {
        res = await this.once(req, deadline);
      } catch (e) {
        if (!(e instanceof MigrationError) || !e.retryable || attempt >= maxAttempts) throw e;
        await this.backoff(attempt, deadline, undefined, e);
        continue;
      }
      if (res.status === 401 && this.auth.refreshable && !refreshed) {
        // An expired or revoked token: the request was not processed, so resending is safe.
        refreshed = true;
        this.auth.invalidate();
        attempt--;
        continue;
      }
      if ((res.status >= 200 && res.status < 300) || req.pass?.includes(res.status)) return res;
      const err = httpError(req.method, req.path, res.status, res.text);
      if (!err.retryable || attempt >= maxAttempts) throw err;
      await this.backoff(attempt, deadline, retryAfterMs(res.retryAfter, Date.now()), err);
    }
  }

  /** Wait before the next attempt; out of time → rethrow the last error. */
  private async backoff(attempt: number, deadline: number, hint: number | undefined, last: MigrationError): Promise<void> {
    const exp = Math.min(this.settings.retryMaxDelayMs, this.settings.retryBaseDelayMs * 2 ** (attempt - 1));
    const delay = hint ?? exp * (0.5 + Math.random() / 2);
    if (Date.now() + delay >= deadline) throw last;
    await sleep(delay);
  }

  private async once(req: RestRequest, deadline: number): Promise<RestResponse & { retryAfter: string | null }> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw this.timeout(req, this.settings.timeoutMs);
    const budget = Math.min(this.settings.attemptTimeoutMs, remaining);
    const headers: Record<string, string> = { accept: 'application/json', ...this.headers, ...req.headers };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const url = this.url(req);
    Object.assign(headers, await this.auth.headersFor({ method: req.method, url, headers, body: req.body }));
    this.attempts++;
    try {
      return await send(new URL(url), req.method, headers, req.body, this.agentFor(url), budget);
    } catch (e) {
      const name = (e as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') throw this.timeout(req, budget);
      throw new MigrationError(
        ErrorCode.CATALOG_UNREACHABLE,
        `${req.method} ${this.baseUri}${req.path}: ${(e as NodeJS.ErrnoException).code ?? causeText(e)}`,
        { method: req.method, path: req.path },
        { cause: e },
      );
    }
  }

  /** The keep-alive agent of the scheme (the system's CAs and NODE_EXTRA_CA_CERTS for https, as fetch had). */
  private agentFor(url: string): http.Agent {
    if (url.startsWith('https:')) return (this.httpsAgent ??= new https.Agent({ keepAlive: true }));
    return (this.httpAgent ??= new http.Agent({ keepAlive: true }));
  }

  private timeout(req: RestRequest, ms: number): MigrationError {
    return new MigrationError(
      ErrorCode.CATALOG_TIMEOUT,
      `${req.method} ${this.baseUri}${req.path}: no answer within ${ms} ms (call deadline ${this.settings.timeoutMs} ms)`,
      { method: req.method, path: req.path, timeoutMs: ms },
    );
  }
}
