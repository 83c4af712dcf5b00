// Iceberg REST catalog client (apache/iceberg open-api, docs/design/iceberg-spec.md §6) implementing the
// IcebergCatalog port: /v1/config (defaults < client < overrides; `prefix`, `endpoints`,
// `oauth2-server-uri`, `header.*`), namespaces, tables, register with assert-create semantics and
// drop that never purges. Responses are parsed with core/iceberg/json (63-bit ids stay exact).
// Quirk of the Java reference server: HEAD/DELETE answer 200, not 204 — any 2xx is success.
import type {
  CommitOutcome,
  HiveOriginalPlace,
  IcebergCatalog,
  LoadedTable,
  Namespace,
  RegisterOutcome,
  SnapshotCommit,
  TableIdent,
  UnregisterOutcome,
} from '../../core/catalog/catalog';
import {
  HIVE_ORIGINAL_UNTOUCHED,
  checkNamespace,
  commitConflict,
  holdsCommit,
  existingEntryOutcome,
  formatTableIdent,
  isCredentialKey,
} from '../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../core/errors';
import { stringifyJson } from '../../core/iceberg/json';
import { snapshotToWire } from '../../core/iceberg/metadata-json';
import { MAIN_BRANCH } from '../../core/iceberg/spec-constants';
import type { RestAuth } from './rest-auth';
import type { RequestAuth } from './request-auth';
import { createRequestAuth } from './rest-auth';
import type { HttpSettings } from './rest-http';
import { DEFAULT_HTTP, RestHttp } from './rest-http';
import { RestViews } from './rest-views';
import { isObj, loadResult, metadataLocationOf, pages, parseBody, schemaUpdate, strMap } from './rest-wire';

export interface RestCatalogOptions {
  readonly name?: string;
  /** Catalog root, e.g. `http://127.0.0.1:8181` (the client appends `/v1/…`). */
  readonly uri: string;
  readonly warehouse?: string;
  readonly auth?: RestAuth;
  /** An authorizer made by the caller (it keeps it to read the token identity); wins over `auth`. */
  readonly authorizer?: RequestAuth;
  /** `X-Iceberg-Access-Delegation` values sent on load/register (e.g. `['vended-credentials']`). */
  readonly accessDelegation?: readonly ('vended-credentials' | 'remote-signing')[];
  /** Extra headers on every request (never secrets you would not want in a proxy log). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly http?: Partial<HttpSettings>;
  /** Register attempts when a 5xx/timeout leaves the table absent on reload (default 3). */
  readonly registerAttempts?: number;
}

/** Errors after which a mutation may or may not have landed: reload and compare. */
const UNKNOWN_OUTCOME = new Set<string>([
  ErrorCode.CATALOG_SERVER_ERROR,
  ErrorCode.CATALOG_TIMEOUT,
  ErrorCode.CATALOG_UNREACHABLE,
  ErrorCode.CATALOG_METADATA_UNREADABLE,
]);

/** How long a namespace this client created or found stays known to exist without asking again. */
const NAMESPACE_SEEN_MS = 60_000;

export class RestCatalog implements IcebergCatalog {
  /** The server writes the new metadata.json from the commit's updates. */
  readonly writesOwnMetadata = true;
  /** Namespaces created or found by createNamespace (encoded name → when), forgotten on drop or a register's 404. */
  private readonly namespacesSeen = new Map<string, number>();
  private constructor(
    readonly name: string,
    private readonly http: RestHttp,
    /** Merged catalog properties (credential keys removed). */
    readonly properties: Readonly<Record<string, string>>,
    private readonly endpoints: ReadonlySet<string> | undefined,
    private readonly options: RestCatalogOptions,
  ) {}

  /** A REST catalog only registers new entries: the Hive table stays as it was. */
  hiveOriginalPlace(): HiveOriginalPlace {
    return HIVE_ORIGINAL_UNTOUCHED;
  }

  /** GET /v1/config, then a client bound to the announced prefix, endpoints and headers. */
  static async connect(options: RestCatalogOptions): Promise<RestCatalog> {
    const uri = options.uri.replace(/\/+$/, '');
    const settings: HttpSettings = { ...DEFAULT_HTTP, ...options.http };
    const tokens = options.authorizer ?? createRequestAuth(options.auth ?? { type: 'none' }, uri, settings.attemptTimeoutMs);
    const bootstrap = new RestHttp(uri, tokens, settings, options.headers ?? {});
    const res = await bootstrap.call({ method: 'GET', path: '/v1/config', query: { warehouse: options.warehouse } });
    const body = parseBody(res.text, 'GET /v1/config');
    const client: Record<string, string> = options.warehouse === undefined ? {} : { warehouse: options.warehouse };
    const merged = { ...strMap(body.defaults), ...client, ...strMap(body.overrides) };
    tokens.useServerEndpoint(merged['oauth2-server-uri']);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(merged)) if (k.startsWith('header.')) headers[k.slice('header.'.length)] = v;
    const endpoints = Array.isArray(body.endpoints) ? new Set(body.endpoints.filter((e): e is string => typeof e === 'string')) : undefined;
    const http = new RestHttp(uri, tokens, settings, { ...headers, ...options.headers });
    const props = Object.fromEntries(Object.entries(merged).filter(([k]) => !isCredentialKey(k)));
    return new RestCatalog(options.name ?? 'rest', http, props, endpoints, options);
  }

  /** Iceberg views (rest-views.ts), over the same HTTP client, prefix and namespace encoding. */
  get views(): RestViews {
    return new RestViews(this.http, (ns) => this.nsPath(ns));
  }

  /** HTTP attempts made so far (retries included). */
  get attempts(): number {
    return this.http.attempts;
  }

  // ---- paths -------------------------------------------------------------------------------

  private root(): string {
    const prefix = this.properties.prefix;
    return prefix === undefined || prefix === '' ? '/v1' : `/v1/${prefix.replace(/^\/+|\/+$/g, '')}`;
  }

  private encodeNs(ns: Namespace): string {
    checkNamespace(ns);
    return ns.map(encodeURIComponent).join(encodeURIComponent(this.properties['namespace-separator'] ?? '\u001f'));
  }

  private nsPath(ns: Namespace): string {
    return `${this.root()}/namespaces/${this.encodeNs(ns)}`;
  }

  private tablePath(t: TableIdent): string {
    return `${this.nsPath(t.namespace)}/tables/${encodeURIComponent(t.name)}`;
  }

  /** Spec: without `endpoints`, servers support the default set, which has no HEAD routes. */
  private supports(endpoint: string): boolean {
    return this.endpoints?.has(endpoint) ?? false;
  }

  private delegation(): Record<string, string> {
    const d = this.options.accessDelegation ?? [];
    return d.length === 0 ? {} : { 'X-Iceberg-Access-Delegation': d.join(',') };
  }

  // ---- namespaces --------------------------------------------------------------------------

  async namespaceExists(ns: Namespace): Promise<boolean> {
    const head = this.supports('HEAD /v1/{prefix}/namespaces/{namespace}');
    const res = await this.http.call({ method: head ? 'HEAD' : 'GET', path: this.nsPath(ns), pass: [404] });
    return res.status !== 404;
  }

  async createNamespace(ns: Namespace, properties: Readonly<Record<string, string>> = {}): Promise<{ created: boolean }> {
    const key = this.encodeNs(ns);
    const seen = this.namespacesSeen.get(key);
    // Every table of a namespace asks for it: a recent answer stands in for the server's 409 (which
    // the reference server also logs as an error with its stack trace).
    if (seen !== undefined && Object.keys(properties).length === 0 && Date.now() - seen < NAMESPACE_SEEN_MS) return { created: false };
    let res;
    try {
      res = await this.http.call({
        method: 'POST',
        path: `${this.root()}/namespaces`,
        body: JSON.stringify({ namespace: ns, properties }),
        pass: [409],
      });
    } catch (e) {
      // Two creators at once: the reference JDBC catalog answers the loser with a 500 (a duplicate
      // key on its properties table), not a 409. The namespace is then there: nothing to do.
      if (e instanceof MigrationError && e.code === ErrorCode.CATALOG_SERVER_ERROR && (await this.namespaceExists(ns)))
        return { created: false };
      throw e;
    }
    this.namespacesSeen.set(key, Date.now());
    return { created: res.status !== 409 };
  }

  async dropNamespace(ns: Namespace): Promise<{ dropped: boolean }> {
    this.namespacesSeen.delete(this.encodeNs(ns));
    const res = await this.http.call({ method: 'DELETE', path: this.nsPath(ns), pass: [404] });
    return { dropped: res.status !== 404 };
  }

  async listNamespaces(parent?: Namespace): Promise<Namespace[]> {
    const query =
      parent === undefined ? {} : { parent: (checkNamespace(parent), parent.join(this.properties['namespace-separator'] ?? '\u001f')) };
    return pages(this.http, { method: 'GET', path: `${this.root()}/namespaces`, query }, 'namespaces', (v) =>
      Array.isArray(v) && v.every((l) => typeof l === 'string') ? (v as string[]) : undefined,
    );
  }

  // ---- tables ------------------------------------------------------------------------------

  async listTables(ns: Namespace): Promise<TableIdent[]> {
    return pages(this.http, { method: 'GET', path: `${this.nsPath(ns)}/tables` }, 'identifiers', (v) => {
      if (!isObj(v) || !Array.isArray(v.namespace) || typeof v.name !== 'string') return undefined;
      return { namespace: v.namespace.map(String), name: v.name };
    });
  }

  async tableExists(ident: TableIdent): Promise<boolean> {
    const head = this.supports('HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}');
    const res = await this.http.call({
      method: head ? 'HEAD' : 'GET',
      path: this.tablePath(ident),
      pass: [404],
      headers: head ? {} : this.delegation(),
    });
    return res.status !== 404;
  }

  async loadTable(ident: TableIdent): Promise<LoadedTable> {
    const res = await this.http.call({
      method: 'GET',
      path: this.tablePath(ident),
      query: { snapshots: 'all' },
      headers: this.delegation(),
    });
    return loadResult(ident, res.text, `GET ${this.tablePath(ident)}`);
  }

  /** The current metadata location, or undefined when the table does not exist (no metadata parse). */
  private async currentLocation(ident: TableIdent): Promise<string | undefined> {
    const path = this.tablePath(ident);
    const res = await this.http.call({ method: 'GET', path, pass: [404] });
    if (res.status === 404) return undefined;
    return metadataLocationOf(parseBody(res.text, `GET ${path}`), `GET ${path}`);
  }

  async registerTable(ident: TableIdent, metadataLocation: string): Promise<{ outcome: RegisterOutcome; table: LoadedTable }> {
    const path = `${this.nsPath(ident.namespace)}/register`;
    const body = JSON.stringify({ name: ident.name, 'metadata-location': metadataLocation });
    const attempts = Math.max(1, this.options.registerAttempts ?? 3);
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.http.call({ method: 'POST', path, body, headers: this.delegation() });
        return { outcome: 'registered', table: loadResult(ident, res.text, `POST ${path}`) };
      } catch (e) {
        if (!(e instanceof MigrationError)) throw e;
        // The namespace was taken as there from a recent answer, and someone dropped it since: create it again, once.
        if (e.code === ErrorCode.CATALOG_NOT_FOUND && this.namespacesSeen.delete(this.encodeNs(ident.namespace))) {
          await this.createNamespace(ident.namespace);
          continue;
        }
        if (e.code === ErrorCode.CATALOG_ALREADY_EXISTS) {
          const existing = await this.currentLocation(ident);
          if (existing === undefined) throw e; // dropped between the 409 and our look: let the caller retry
          return { outcome: existingEntryOutcome(ident, existing, metadataLocation), table: await this.loadTable(ident) };
        }
        if (!UNKNOWN_OUTCOME.has(e.code)) throw e;
        // The register may have landed: reload and compare before anything else (never clean up blind).
        const existing = await this.resolveUnknown(ident, e);
        if (existing !== undefined) {
          existingEntryOutcome(ident, existing, metadataLocation);
          return { outcome: 'registered', table: await this.loadTable(ident) };
        }
        if (e.code === ErrorCode.CATALOG_METADATA_UNREADABLE || attempt >= attempts) throw e;
      }
    }
  }

  /** Reload after an unknown outcome; a reload that fails too leaves the state unknown. */
  private async resolveUnknown(ident: TableIdent, cause: MigrationError): Promise<string | undefined> {
    try {
      return await this.currentLocation(ident);
    } catch (e) {
      throw new MigrationError(
        ErrorCode.CATALOG_COMMIT_STATE_UNKNOWN,
        `${formatTableIdent(ident)}: outcome unknown after "${cause.message}"; reload failed: ${(e as Error).message}`,
        { table: formatTableIdent(ident), first: cause.code, reload: e instanceof MigrationError ? e.code : 'unknown' },
        { cause: e },
      );
    }
  }

  /**
   * POST …/tables/{table} (CommitTableRequest, docs/design/iceberg-spec.md §6): requirements assert-table-uuid and
   * assert-ref-snapshot-id(main, base), updates add-snapshot + set-snapshot-ref(main). 409
   * CommitFailed → reload: at our snapshot → already-committed, else CATALOG_CONFLICT. 5xx/timeout
   * → reload and compare; still at the base → the original (retryable) error, nothing landed.
   */
  async commitTable(ident: TableIdent, c: SnapshotCommit): Promise<{ outcome: CommitOutcome; table: LoadedTable }> {
    const path = this.tablePath(ident);
    const id = c.snapshot.snapshotId;
    const schema = schemaUpdate(c);
    const body = stringifyJson({
      identifier: { namespace: [...ident.namespace], name: ident.name },
      requirements: [
        { type: 'assert-table-uuid', uuid: c.base.tableUuid },
        { type: 'assert-ref-snapshot-id', ref: MAIN_BRANCH, 'snapshot-id': c.base.snapshotId },
        ...schema.requirements,
      ],
      updates: [
        ...schema.updates,
        { action: 'add-snapshot', snapshot: snapshotToWire(c.snapshot) },
        { action: 'set-snapshot-ref', 'ref-name': MAIN_BRANCH, type: 'branch', 'snapshot-id': id },
      ],
    });
    try {
      const res = await this.http.call({ method: 'POST', path, body, headers: this.delegation() });
      return { outcome: 'committed', table: loadResult(ident, res.text, `POST ${path}`) };
    } catch (e) {
      if (!(e instanceof MigrationError)) throw e;
      if (e.code !== ErrorCode.CATALOG_CONFLICT && !UNKNOWN_OUTCOME.has(e.code)) throw e;
      const now = await this.reloadAfter(ident, e);
      if (now !== undefined && holdsCommit(now, c))
        return { outcome: e.code === ErrorCode.CATALOG_CONFLICT ? 'already-committed' : 'committed', table: now };
      if (e.code === ErrorCode.CATALOG_CONFLICT || (now !== undefined && now.metadata.currentSnapshotId !== c.base.snapshotId))
        throw commitConflict(ident, c, now?.metadataLocation ?? null);
      throw e;
    }
  }

  /** The table after an unknown or refused commit (undefined: gone); a failing reload leaves the state unknown. */
  private async reloadAfter(ident: TableIdent, cause: MigrationError): Promise<LoadedTable | undefined> {
    if ((await this.resolveUnknown(ident, cause)) === undefined) return undefined;
    return this.loadTable(ident);
  }

  async unregisterTable(ident: TableIdent, metadataLocation: string): Promise<{ outcome: UnregisterOutcome }> {
    const existing = await this.currentLocation(ident);
    if (existing === undefined) return { outcome: 'absent' };
    if (existing !== metadataLocation) {
      throw new MigrationError(
        ErrorCode.CATALOG_CONFLICT,
        `${formatTableIdent(ident)} now points at ${existing}, not the registered ${metadataLocation}: it was written to after registration; not dropping`,
        { table: formatTableIdent(ident), existing, registered: metadataLocation },
      );
    }
    try {
      const { dropped } = await this.dropTable(ident);
      return { outcome: dropped ? 'unregistered' : 'absent' };
    } catch (e) {
      if (!(e instanceof MigrationError) || !UNKNOWN_OUTCOME.has(e.code)) throw e;
      if ((await this.resolveUnknown(ident, e)) === undefined) return { outcome: 'unregistered' };
      throw e;
    }
  }

  async dropTable(ident: TableIdent): Promise<{ dropped: boolean }> {
    // purgeRequested=false always: a purge deletes every data file the table references (docs/design/iceberg-spec.md §7).
    const res = await this.http.call({ method: 'DELETE', path: this.tablePath(ident), query: { purgeRequested: 'false' }, pass: [404] });
    return { dropped: res.status !== 404 };
  }
}
