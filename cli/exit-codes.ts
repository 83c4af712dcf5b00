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

/**
 * Exit codes of commands whose own --help does not say them (cli/main.ts adds these lines); the
 * others say theirs next to their examples. docs/exit-codes.md has the whole table.
 */
export const EXIT_HELP_FALLBACK: Readonly<Record<string, string>> = {
  'audit verify': 'Exit codes: 0 the chain is intact; 1 it is broken, or the state DB cannot be reached; 2 bad configuration.',
};
