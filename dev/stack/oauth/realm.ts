// The Keycloak realm the `oauth` component imports at every start: one confidential client that may
// use only the client-credentials grant, a `catalog` client scope it may ask for, and a short
// access-token life (two such clients: the CLI's and the workers'). `basic` carries the `sub` claim (Keycloak ≥ 25 puts it in that scope). Dev tooling.
export interface RealmSettings {
  readonly realm: string;
  /** The confidential clients (the CLI's and the workers', so a test can tell their tokens apart). */
  readonly clientIds: readonly string[];
  readonly clientSecret: string;
  readonly scope: string;
  readonly tokenLifespanSeconds: number;
}

export function realmJson(s: RealmSettings): string {
  const oidc = 'openid-connect';
  const realm = {
    realm: s.realm,
    enabled: true,
    accessTokenLifespan: s.tokenLifespanSeconds,
    clientScopes: [
      {
        name: 'basic',
        protocol: oidc,
        attributes: { 'include.in.token.scope': 'false' },
        protocolMappers: [
          {
            name: 'sub',
            protocol: oidc,
            protocolMapper: 'oidc-sub-mapper',
            config: { 'access.token.claim': 'true', 'introspection.token.claim': 'true' },
          },
        ],
      },
      { name: s.scope, protocol: oidc, attributes: { 'include.in.token.scope': 'true' } },
    ],
    clients: s.clientIds.map((clientId) => ({
      clientId,
      enabled: true,
      protocol: oidc,
      publicClient: false,
      clientAuthenticatorType: 'client-secret',
      secret: s.clientSecret,
      serviceAccountsEnabled: true,
      standardFlowEnabled: false,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: false,
      attributes: { 'access.token.lifespan': String(s.tokenLifespanSeconds) },
      defaultClientScopes: ['basic'],
      optionalClientScopes: [s.scope],
    })),
  };
  return `${JSON.stringify(realm, null, 2)}\n`;
}
