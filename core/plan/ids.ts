// The names of a plan's Temporal workflows, in one place for the CLI, the workflows and the
// activities: the plan id users type (first 12 hex of the plan hash) and each workflow id built
// from it. Pure; no I/O.

export const planId = (hash: string): string => hash.slice(0, 12);
export const planWorkflowId = (hash: string): string => `migrate/${planId(hash)}`;
export const waveWorkflowId = (hash: string, wave: number): string => `${planWorkflowId(hash)}/wave-${wave}`;
export const tableWorkflowId = (hash: string, wave: number, tableId: string): string => `${waveWorkflowId(hash, wave)}/${tableId}`;
export const rollbackWorkflowId = (hash: string, wave: number): string => `${planWorkflowId(hash)}/rollback-wave-${wave}`;
