// Translation of everything a Thrift call to HMS can fail with into MigrationError (docs/architecture.md "Habits" 5).
// Adapter code: nothing above adapters/ sees a Thrift exception type.
import thrift from 'thrift';
import { ErrorCode, MigrationError } from '../../../core/errors';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';

/** What every HMS error carries in `context` (besides call-specific keys such as db/table). */
export interface HmsErrorContext {
  readonly endpoint?: string;
  readonly method?: string;
  /** e.g. 'NoSuchObjectException', 'TApplicationException'. */
  readonly thriftType?: string;
  /** TApplicationException type (1 = UNKNOWN_METHOD: the server does not have this method). */
  readonly applicationExceptionType?: number;
  readonly [key: string]: unknown;
}

export function hmsError(code: ErrorCode, message: string, context: HmsErrorContext = {}, cause?: unknown): MigrationError {
  return new MigrationError(code, message, context, cause === undefined ? {} : { cause });
}

/** The names of every exception class the generated code exports (a new one in the IDL must be mapped below). */
type ExceptionName = {
  [K in keyof typeof ttypes]: (typeof ttypes)[K] extends new (...args: never[]) => thrift.Thrift.TException ? K : never;
}[keyof typeof ttypes];

/**
 * Every declared HMS exception → our code. Exhaustive by type: adding an exception to the IDL fails
 * the build until it is mapped here. (Generated exceptions have an empty constructor.name: match
 * with instanceof.)
 */
const EXCEPTION_CODES: { readonly [K in ExceptionName]: readonly [new (...args: never[]) => object, ErrorCode] } = {
  NoSuchObjectException: [ttypes.NoSuchObjectException, ErrorCode.HMS_NOT_FOUND],
  UnknownDBException: [ttypes.UnknownDBException, ErrorCode.HMS_NOT_FOUND],
  UnknownTableException: [ttypes.UnknownTableException, ErrorCode.HMS_NOT_FOUND],
  AlreadyExistsException: [ttypes.AlreadyExistsException, ErrorCode.HMS_ALREADY_EXISTS],
  MetaException: [ttypes.MetaException, ErrorCode.HMS_THRIFT_ERROR],
  InvalidObjectException: [ttypes.InvalidObjectException, ErrorCode.HMS_THRIFT_ERROR],
  InvalidOperationException: [ttypes.InvalidOperationException, ErrorCode.HMS_THRIFT_ERROR],
  ConfigValSecurityException: [ttypes.ConfigValSecurityException, ErrorCode.HMS_THRIFT_ERROR],
  // Transaction calls (the seed's writes; get_valid_write_ids): a bad txn id is a metastore answer, not a retry.
  NoSuchTxnException: [ttypes.NoSuchTxnException, ErrorCode.HMS_THRIFT_ERROR],
  TxnAbortedException: [ttypes.TxnAbortedException, ErrorCode.HMS_THRIFT_ERROR],
};

/** thrift.Thrift.TApplicationExceptionType.UNKNOWN_METHOD: the server has no such method (version probe). */
export const UNKNOWN_METHOD = 1;

/** True when the server answered "Invalid method name": the method does not exist in its version. */
export function isUnknownMethod(e: unknown): boolean {
  return (
    e instanceof MigrationError && e.context.thriftType === 'TApplicationException' && e.context.applicationExceptionType === UNKNOWN_METHOD
  );
}

/** Translate whatever a generated client call rejected with. Already-translated errors pass through. */
export function translateCallError(e: unknown, method: string, endpoint: string): MigrationError {
  if (e instanceof MigrationError) return e;
  for (const [name, [cls, code]] of Object.entries(EXCEPTION_CODES)) {
    if (e instanceof cls) {
      const msg = (e as { message?: string | null }).message ?? '';
      return hmsError(code, `${method} on ${endpoint}: ${name}: ${msg}`, { endpoint, method, thriftType: name }, e);
    }
  }
  if (e instanceof thrift.Thrift.TApplicationException) {
    const type = (e as unknown as { type?: number }).type;
    return hmsError(
      ErrorCode.HMS_THRIFT_ERROR,
      `${method} on ${endpoint}: TApplicationException: ${e.message}`,
      {
        endpoint,
        method,
        thriftType: 'TApplicationException',
        ...(type === undefined ? {} : { applicationExceptionType: type }),
      },
      e,
    );
  }
  const msg = e instanceof Error ? e.message : String(e);
  const thriftType = e instanceof Error ? e.name : typeof e;
  return hmsError(ErrorCode.HMS_THRIFT_ERROR, `${method} on ${endpoint}: ${msg}`, { endpoint, method, thriftType }, e);
}
