// SigV4 authorization of REST catalog requests (AWS Glue's Iceberg REST endpoint, S3 Tables): every
// request signed with the credentials of the AWS SDK's default chain (environment, shared config and
// SSO profiles, web identity, container and instance roles), which the chain caches and refreshes
// before they expire. Secrets never enter an error; `identity()` names the key id's prefix only.
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { AuthRequest, RequestAuth } from './request-auth';
import type { AwsCredentials } from './sigv4';
import { signRequest } from './sigv4';

export interface SigV4Settings {
  /** The signing name: `glue` or `s3tables` (or another, for an endpoint behind a proxy). */
  readonly service: string;
  readonly region: string;
  /** Default: the AWS SDK's default credential chain. */
  readonly credentials?: () => Promise<AwsCredentials>;
  readonly now?: () => Date;
}

/** What doctor shows of the credentials in use: never the secret, and only the key id's first characters. */
export interface SigV4Identity {
  readonly service: string;
  readonly region: string;
  readonly accessKeyIdPrefix: string;
  /** Which link of the chain gave them: environment, profile, sso, web identity, container, instance metadata. */
  readonly source: string;
  readonly sessionToken: boolean;
  readonly expiresAt?: number;
}

type ChainCredentials = AwsCredentials & { readonly expiration?: Date; readonly $source?: Record<string, unknown> };

/** The AWS SDK's credential-feature ids (`$source`) → what an operator calls that link of the chain. */
const SOURCES: readonly (readonly [RegExp, string])[] = [
  [/^CREDENTIALS_ENV_VARS_STS_WEB_ID_TOKEN$|WEB_ID/, 'web identity token (AWS_WEB_IDENTITY_TOKEN_FILE)'],
  [/^CREDENTIALS_ENV_VARS$/, 'environment (AWS_ACCESS_KEY_ID)'],
  [/SSO/, 'SSO profile'],
  [/PROCESS/, 'credential_process profile'],
  [/PROFILE/, 'shared config/credentials profile'],
  [/^CREDENTIALS_HTTP$/, 'container credentials endpoint'],
  [/IMDS/, 'instance metadata (EC2 role)'],
];

export function credentialSource(c: ChainCredentials): string {
  const ids = Object.keys(c.$source ?? {});
  for (const [re, name] of SOURCES) if (ids.some((id) => re.test(id))) return name;
  return ids.length === 0 ? 'instance metadata or container role' : ids.join(', ');
}

export class SigV4Auth implements RequestAuth {
  readonly refreshable = false;
  private readonly credentials: () => Promise<ChainCredentials>;

  constructor(private readonly s: SigV4Settings) {
    this.credentials = s.credentials ?? defaultProvider();
  }

  invalidate(): void {
    // The chain refreshes expiring credentials itself; a 403 is not cured by asking again.
  }

  useServerEndpoint(): void {
    // No token endpoint: every request is signed.
  }

  private async resolve(): Promise<ChainCredentials> {
    try {
      return await this.credentials();
    } catch (e) {
      throw new MigrationError(
        ErrorCode.CATALOG_AUTH_FAILED,
        `SigV4 (${this.s.service}, ${this.s.region}): no AWS credentials from the default chain: ${(e as Error).message}`,
        { service: this.s.service, region: this.s.region },
      );
    }
  }

  async headersFor(req: AuthRequest): Promise<Record<string, string>> {
    const credentials = await this.resolve();
    return signRequest({
      ...req,
      region: this.s.region,
      service: this.s.service,
      credentials,
      now: this.s.now?.() ?? new Date(),
    });
  }

  async identity(): Promise<SigV4Identity> {
    const c = await this.resolve();
    return {
      service: this.s.service,
      region: this.s.region,
      accessKeyIdPrefix: `${c.accessKeyId.slice(0, 4)}…`,
      source: credentialSource(c),
      sessionToken: c.sessionToken !== undefined && c.sessionToken !== '',
      ...(c.expiration !== undefined ? { expiresAt: c.expiration.getTime() } : {}),
    };
  }
}
