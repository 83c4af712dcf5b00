// The codes a plan file (or a plan id) the user gave can end with (app/plan-input.ts): bad input,
// exit 2 like a config error. Apart from plan-input.ts so the CLI's exit-code table loads without it.
import { ErrorCode } from '../core/errors';

export const PLAN_INPUT_CODES: ReadonlySet<string> = new Set<string>([
  ErrorCode.PLAN_INVALID,
  ErrorCode.PLAN_HASH_MISMATCH,
  ErrorCode.PLAN_VERSION_UNSUPPORTED,
  ErrorCode.PLAN_UNSIGNED,
  ErrorCode.PLAN_SIGNATURE_INVALID,
  ErrorCode.PLAN_TOO_LARGE,
  ErrorCode.PLAN_EMPTY,
]);
