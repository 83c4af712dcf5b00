// The names of a plan's Temporal workflows, in one place for the CLI, the workflows and the
// activities: the plan id users type (first 12 hex of the plan hash) and each workflow id built
// from it. Pure; no I/O.

export const planId = (hash: string): string => hash.slice(0, 12);
export const planWorkflowId = (hash: string): string => `migrate/${planId(hash)}`;
export const waveWorkflowId = (hash: string, wave: number): string => `${planWorkflowId(hash)}/wave-${wave}`;
export const tableWorkflowId = (hash: string, wave: number, tableId: string): string => `${waveWorkflowId(hash, wave)}/${tableId}`;
export const rollbackWorkflowId = (hash: string, wave: number): string => `${planWorkflowId(hash)}/rollback-wave-${wave}`;
/** `migrate cutover --wave N`: one id per wave (a second run while one runs attaches to it). */
export const cutoverWorkflowId = (hash: string, wave: number): string => `${planWorkflowId(hash)}/cutover-wave-${wave}`;
/** A sync run of a plan (CLI start or schedule): `sync/<plan id>/<stamp>`; the schedule is `sync/<plan id>`. */
export const syncScheduleId = (hash: string): string => `sync/${planId(hash)}`;
export const syncWorkflowId = (hash: string, stamp: string): string => `${syncScheduleId(hash)}/${stamp}`;
