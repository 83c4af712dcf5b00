// The result of one `doctor` check as a probe reports it (app/doctor/doctor.ts adds the component and
// endpoint): shared by the per-system doctor modules so they cannot drift apart.

export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One result of a probe: ok unless `status` says otherwise. */
export interface Outcome {
  readonly check: string;
  readonly status?: CheckStatus;
  readonly version?: string;
  readonly latencyMs?: number;
  readonly detail: string;
  readonly code?: string;
  readonly remedy?: string;
}
