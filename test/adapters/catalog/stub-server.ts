// A tiny REST catalog stub on loopback for what the reference server cannot show: auth (bearer,
// OAuth2 client credentials with expiry and revocation), a `prefix` from /v1/config, vended
// credentials, and scripted failures (503s on reads, 5xx on register that did or did not land).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export type Handler = (req: Seen) => { status: number; body?: unknown; headers?: Record<string, string> } | undefined;

export class StubCatalog {
  readonly seen: Seen[] = [];
  readonly tokenRequests: URLSearchParams[] = [];
  /** Tokens the stub accepts; tests revoke by deleting. */
  readonly validTokens = new Set<string>();
  /** Static bearer token accepted besides the issued ones. */
  staticToken: string | undefined;
  tokenLifetimeS: number | undefined = 3600;
  client = { id: 'migrator', secret: 'client-secret-value' };
  /** Per-test routes, tried before the defaults. */
  handler: Handler = () => undefined;
  private server: Server | undefined;
  private issued = 0;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        this.handle(
          { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') },
          res,
        ),
      );
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()));
  }

  requests(method: string, pathPart: string): Seen[] {
    return this.seen.filter((s) => s.method === method && s.url.includes(pathPart));
  }

  private handle(req: Seen, res: ServerResponse): void {
    this.seen.push(req);
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (req.method === 'POST' && req.url === '/v1/oauth/tokens') {
      const form = new URLSearchParams(req.body);
      this.tokenRequests.push(form);
      if (
        form.get('grant_type') !== 'client_credentials' ||
        form.get('client_id') !== this.client.id ||
        form.get('client_secret') !== this.client.secret
      ) {
        send(401, { error: 'invalid_client', error_description: 'bad client credentials' });
        return;
      }
      const token = `issued-${++this.issued}`;
      this.validTokens.add(token);
      send(200, {
        access_token: token,
        token_type: 'bearer',
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        ...(this.tokenLifetimeS === undefined ? {} : { expires_in: this.tokenLifetimeS }),
      });
      return;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined || !(this.validTokens.has(token) || token === this.staticToken)) {
      send(401, { error: { message: 'Not authorized', type: 'NotAuthorizedException', code: 401 } });
      return;
    }
    const custom = this.handler(req);
    if (custom !== undefined) {
      send(custom.status, custom.body, custom.headers);
      return;
    }
    if (req.method === 'GET' && req.url.startsWith('/v1/config')) {
      send(200, {
        defaults: { 'client.region': 'eu-west-1' },
        overrides: { prefix: 'cat1' },
        endpoints: [
          'GET /v1/{prefix}/namespaces',
          'HEAD /v1/{prefix}/namespaces/{namespace}',
          'POST /v1/{prefix}/namespaces/{namespace}/register',
        ],
      });
      return;
    }
    send(404, { error: { message: `no route ${req.method} ${req.url}`, type: 'NoSuchNamespaceException', code: 404 } });
  }
}
