// The credentials of the lean S3 path (object-read/s3-ranged-get.ts): the SDK's default chain (environment,
// shared profile, web identity, container and instance metadata; the S3 client's own provider),
// memoized and resolved again CREDENTIAL_MARGIN_MS before `expiration`. Nothing is ever signed with
// credentials past their expiration: a provider that hands back expired ones, or none, is a coded
// error. Secrets never leave this object except into a signature; `describe()` is what may be shown.
import { ErrorCode, MigrationError } from '../../core/errors';

export interface S3Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
  /** The SDK's record of which provider produced them (feature ids, @aws-sdk/types feature-ids). */
  readonly $source?: Readonly<Record<string, unknown>>;
}

/** The SDK's identity provider shape: `forceRefresh` bypasses its own memo. */
export type S3CredentialProvider = (options?: { forceRefresh?: boolean }) => Promise<S3Credentials>;

/** Refresh temporary credentials this long before they expire (the SDK's own chain refreshes at 5 min too). */
export const CREDENTIAL_MARGIN_MS = 5 * 60_000;

/** Where credentials came from, by the SDK's credential feature id (AWS SDK feature-ids, "CREDENTIALS_*"). */
const SOURCES: Readonly<Record<string, string>> = {
  CREDENTIALS_CODE: 'code',
  CREDENTIALS_ENV_VARS: 'environment (AWS_ACCESS_KEY_ID)',
  CREDENTIALS_ENV_VARS_STS_WEB_ID_TOKEN: 'web identity (AWS_WEB_IDENTITY_TOKEN_FILE)',
  CREDENTIALS_STS_ASSUME_ROLE_WEB_ID: 'web identity (AssumeRoleWithWebIdentity)',
  CREDENTIALS_PROFILE_STS_WEB_ID_TOKEN: 'shared profile, web identity',
  CREDENTIALS_STS_ASSUME_ROLE: 'shared profile, assumed role',
  CREDENTIALS_PROFILE_SOURCE_PROFILE: 'shared profile, source_profile',
  CREDENTIALS_PROFILE_SSO: 'shared profile, SSO',
  CREDENTIALS_SSO: 'SSO',
  CREDENTIALS_PROFILE_PROCESS: 'shared profile, credential_process',
  CREDENTIALS_PROFILE: 'shared profile',
  CREDENTIALS_HTTP: 'container credentials endpoint',
  CREDENTIALS_IMDS: 'instance metadata (IMDS)',
};

/** What doctor may show of a credential set: never the secret or the token. */
export interface CredentialDescription {
  readonly source: string;
  /** The first 4 characters of the access key id (AKIA: long-term, ASIA: temporary). */
  readonly accessKeyPrefix: string;
  readonly session: boolean;
  /** ISO time of expiry, when temporary. */
  readonly expiresAt: string | undefined;
}

export function describeCredentials(c: S3Credentials, env: NodeJS.ProcessEnv = process.env): CredentialDescription {
  const ids = Object.keys(c.$source ?? {});
  // The most specific feature recorded: the chain records the outer provider last.
  const known = ids.filter((id) => SOURCES[id] !== undefined);
  const source = known.length === 0 ? unrecordedSource(c, env) : known.map((id) => SOURCES[id]).join(' → ');
  return {
    source,
    accessKeyPrefix: `${c.accessKeyId.slice(0, 4)}…`,
    session: c.sessionToken !== undefined,
    expiresAt: c.expiration?.toISOString(),
  };
}

/**
 * Every link of the default chain records a feature id on what it returns except the two metadata
 * services' own providers (the legacy container provider and IMDS): an unrecorded set is from the
 * container endpoint when its variables are set, else a session is from instance metadata.
 */
function unrecordedSource(c: S3Credentials, env: NodeJS.ProcessEnv): string {
  if ((env.AWS_CONTAINER_CREDENTIALS_FULL_URI ?? env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI ?? '') !== '') return SOURCES.CREDENTIALS_HTTP!;
  const imdsOff = (env.AWS_EC2_METADATA_DISABLED ?? 'false').toLowerCase() !== 'false';
  if (!imdsOff && c.sessionToken !== undefined) return SOURCES.CREDENTIALS_IMDS!;
  return 'AWS SDK default chain';
}

function credentialsError(e: unknown): MigrationError {
  if (e instanceof MigrationError) return e;
  const err = (e ?? {}) as { name?: string; message?: string };
  return new MigrationError(
    ErrorCode.STORAGE_CREDENTIALS_MISSING,
    `S3: no AWS credentials from the default chain (${err.name ?? 'Error'}: ${err.message ?? ''})`,
    { s3Error: err.name },
    { cause: e },
  );
}

/** Memoized credentials with refresh before expiry; concurrent callers share one resolution. */
export class RefreshingCredentials {
  private current: S3Credentials | undefined;
  private pending: Promise<S3Credentials> | undefined;
  /** Resolutions of the underlying provider (for tests and doctor). */
  resolutions = 0;

  constructor(
    private readonly provider: S3CredentialProvider,
    private readonly marginMs: number = CREDENTIAL_MARGIN_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private fresh(c: S3Credentials | undefined): c is S3Credentials {
    return c !== undefined && (c.expiration === undefined || c.expiration.getTime() - this.now() > this.marginMs);
  }

  /** Credentials valid for at least the margin (or, right after a refresh, valid at all). */
  async get(): Promise<S3Credentials> {
    if (this.fresh(this.current)) return this.current;
    this.pending ??= this.resolve().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async resolve(): Promise<S3Credentials> {
    let c: S3Credentials;
    try {
      this.resolutions += 1;
      c = await this.provider();
      // The chain memoizes too, with its own clock check a moment after ours: what it hands back
      // may be the set we just judged stale. Ask past its memo once.
      if (!this.fresh(c)) c = await this.provider({ forceRefresh: true });
    } catch (e) {
      throw credentialsError(e);
    }
    if (c.expiration !== undefined && c.expiration.getTime() <= this.now()) {
      // Never sign with what the provider already calls expired: the server would refuse it (ExpiredToken).
      throw new MigrationError(
        ErrorCode.STORAGE_CREDENTIALS_EXPIRED,
        `S3: the credential provider (${describeCredentials(c).source}) returned credentials that expired at ${c.expiration.toISOString()}`,
        { expiresAt: c.expiration.toISOString(), source: describeCredentials(c).source },
      );
    }
    this.current = c;
    return c;
  }
}
