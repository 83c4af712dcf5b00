// Translation of S3 SDK and filesystem errors into MigrationError STORAGE_* codes (docs/architecture.md "Habits" 5):
// nothing above adapters/ sees an SDK error or an errno.
import { ErrorCode, MigrationError } from '../../core/errors';

type Op = 'list' | 'head' | 'read' | 'put' | 'delete';

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
}

const NOT_FOUND = new Set(['NoSuchKey', 'NoSuchBucket', 'NotFound']);
const DENIED = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'InvalidClientTokenId',
  'AllAccessDisabled',
]);
/** Temporary credentials past their expiry (AWS: ExpiredToken; STS-style servers: ExpiredTokenException). */
const EXPIRED = new Set(['ExpiredToken', 'ExpiredTokenException', 'TokenRefreshRequired']);
const PRECONDITION = new Set(['PreconditionFailed', 'ConditionalRequestConflict']);
const TRANSIENT = new Set([
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'TimeoutError',
  'AbortError',
  'ThrottlingException',
]);
const NETWORK_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
]);

/** An S3 SDK (or network) error on `op` of `path` as a MigrationError. */
export function fromS3Error(e: unknown, op: Op, path: string, endpoint: string): MigrationError {
  if (e instanceof MigrationError) return e;
  const err = (e ?? {}) as SdkError;
  const name = err.name ?? 'Error';
  const status = err.$metadata?.httpStatusCode;
  const where = `S3 ${endpoint}: ${op} ${path}`;
  const ctx = { path, op, status, s3Error: name };
  const opts = { cause: e };
  if (name === 'CredentialsProviderError')
    return new MigrationError(ErrorCode.STORAGE_CREDENTIALS_MISSING, `${where}: no AWS credentials (${err.message ?? ''})`, ctx, opts);
  if (EXPIRED.has(name))
    return new MigrationError(
      ErrorCode.STORAGE_CREDENTIALS_EXPIRED,
      `${where}: credentials expired (${name}: ${err.message ?? ''})`,
      ctx,
      opts,
    );
  if (NOT_FOUND.has(name) || status === 404)
    return new MigrationError(ErrorCode.STORAGE_NOT_FOUND, `${where}: not found (${name})`, ctx, opts);
  if (DENIED.has(name) || status === 403)
    return new MigrationError(ErrorCode.STORAGE_ACCESS_DENIED, `${where}: access denied (${name}: ${err.message ?? ''})`, ctx, opts);
  if (PRECONDITION.has(name) || status === 412)
    return new MigrationError(
      ErrorCode.STORAGE_PRECONDITION_FAILED,
      `${where}: precondition failed, the object already exists (${name})`,
      ctx,
      opts,
    );
  if (
    TRANSIENT.has(name) ||
    (status !== undefined && (status >= 500 || status === 429)) ||
    NETWORK_ERRNO.has(err.code ?? '') ||
    NETWORK_ERRNO.has(name) ||
    (status === undefined && err.$retryable !== undefined)
  ) {
    return new MigrationError(ErrorCode.STORAGE_UNREACHABLE, `${where}: ${name}: ${err.message ?? ''}`, ctx, opts);
  }
  if (status === undefined && /socket|network|connect|timed? ?out/i.test(err.message ?? '')) {
    return new MigrationError(ErrorCode.STORAGE_UNREACHABLE, `${where}: ${name}: ${err.message ?? ''}`, ctx, opts);
  }
  return new MigrationError(ErrorCode.STORAGE_ERROR, `${where}: ${name}: ${err.message ?? ''}`, ctx, opts);
}

/** A Node filesystem error on `op` of `path` as a MigrationError. */
export function fromFsError(e: unknown, op: Op, path: string): MigrationError {
  if (e instanceof MigrationError) return e;
  const err = (e ?? {}) as { code?: string; message?: string };
  const code = err.code ?? 'EUNKNOWN';
  const where = `local ${op} ${path}`;
  const ctx = { path, op, errno: code };
  const opts = { cause: e };
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new MigrationError(ErrorCode.STORAGE_NOT_FOUND, `${where}: not found (${code})`, ctx, opts);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new MigrationError(ErrorCode.STORAGE_ACCESS_DENIED, `${where}: access denied (${code})`, ctx, opts);
    case 'EEXIST':
      return new MigrationError(ErrorCode.STORAGE_PRECONDITION_FAILED, `${where}: precondition failed, the file already exists`, ctx, opts);
    case 'EMFILE':
    case 'ENFILE':
    case 'EAGAIN':
    case 'EBUSY':
    case 'ETIMEDOUT':
      return new MigrationError(ErrorCode.STORAGE_UNREACHABLE, `${where}: ${code}: ${err.message ?? ''}`, ctx, {
        ...opts,
        retryable: true,
      });
    default:
      return new MigrationError(ErrorCode.STORAGE_ERROR, `${where}: ${code}: ${err.message ?? ''}`, ctx, opts);
  }
}
