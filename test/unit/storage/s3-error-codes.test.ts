// S3 credential answers as codes (adapters/storage/errors.ts fromS3Error): AWS's ExpiredToken (which
// the local S3 servers never send: moto does not enforce expiry) is STORAGE_CREDENTIALS_EXPIRED, the
// SDK's empty chain STORAGE_CREDENTIALS_MISSING, a refused token or signature STORAGE_ACCESS_DENIED.
import { fromS3Error } from '../../../adapters/storage/errors';
import { ErrorCode } from '../../../core/errors';

function sdkError(name: string, status: number | undefined): Error {
  return Object.assign(new Error(`${name} message`), { name, $metadata: { httpStatusCode: status } });
}

describe('fromS3Error: credentials', () => {
  it.each([
    ['ExpiredToken', 400, ErrorCode.STORAGE_CREDENTIALS_EXPIRED],
    ['ExpiredTokenException', 400, ErrorCode.STORAGE_CREDENTIALS_EXPIRED],
    ['CredentialsProviderError', undefined, ErrorCode.STORAGE_CREDENTIALS_MISSING],
    ['InvalidToken', 400, ErrorCode.STORAGE_ACCESS_DENIED],
    ['InvalidClientTokenId', 403, ErrorCode.STORAGE_ACCESS_DENIED],
    ['SignatureDoesNotMatch', 403, ErrorCode.STORAGE_ACCESS_DENIED],
    ['InvalidAccessKeyId', 403, ErrorCode.STORAGE_ACCESS_DENIED],
  ])('%s (HTTP %s) → %s, not retryable', (name, status, code) => {
    const e = fromS3Error(sdkError(name, status), 'read', 's3://b/k', 'AWS');
    expect(e.code).toBe(code);
    expect(e.retryable).toBe(false);
    expect(e.context).toMatchObject({ path: 's3://b/k', op: 'read', s3Error: name });
  });
});
