// The port every authorization scheme of the REST catalog's transport implements (rest-http.ts):
// bearer and OAuth2 tokens (rest-auth.ts) and SigV4 (rest-sigv4.ts). Types only.

/** What the transport asks of any authorization scheme (tokens here; SigV4 in rest-sigv4.ts). */
export interface RequestAuth {
  /** True when a 401 may be cured by fetching a new token (then the request is resent once). */
  readonly refreshable: boolean;
  /** Forget cached credentials (after a 401). */
  invalidate(): void;
  /** Headers to add to this request (Authorization, and for SigV4 the x-amz-* it signs). */
  headersFor(req: AuthRequest): Promise<Record<string, string>>;
  /** The token endpoint the catalog announced in /v1/config (`oauth2-server-uri`). */
  useServerEndpoint(uri: string | undefined): void;
}

/** The request as it will be sent (URL encoded as on the wire; lower-case header names). */
export interface AuthRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}
