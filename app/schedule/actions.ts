// The actions on a plan's nightly validation schedule and what each does: plain data, so the CLI can
// list them in --help without loading the Temporal client (app/schedule/schedule.ts runs them).
export const SCHEDULE_ACTIONS = {
  describe: 'show the schedule, its state and recent runs',
  pause: 'stop firing until unpaused',
  unpause: 'fire again',
  delete: 'remove the schedule (runs and results stay)',
  trigger: 'start a run now (skipped if one is running)',
} as const;
export type ScheduleAction = keyof typeof SCHEDULE_ACTIONS;
