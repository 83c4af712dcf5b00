// Exit codes of `migrate`, documented in --help. One exit point (cli/main.ts) maps to them.
export const ExitCode = {
  OK: 0,
  /** A check or an operation failed (doctor found an unhealthy endpoint, ...). */
  FAILED: 1,
  /** Bad command line or configuration: nothing was attempted. */
  USAGE: 2,
  /** `migrate validate`: the checks ran and found drift. */
  DRIFT: 3,
  /** A bug: an error we did not anticipate. */
  INTERNAL: 70,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
