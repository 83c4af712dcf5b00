// The signals a running plan workflow takes (pause, resume, cancel) and what each does: plain data,
// so the CLI can list them in --help without loading the Temporal client (app/status/status.ts sends them).
export const PLAN_SIGNAL_HELP = {
  pause: 'pause before the next wave starts',
  resume: 'resume a paused plan',
  cancel: 'stop the plan before the next wave (running waves finish)',
} as const;
export type PlanSignal = keyof typeof PLAN_SIGNAL_HELP;
