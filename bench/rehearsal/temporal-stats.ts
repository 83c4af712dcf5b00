// The rehearsal's Temporal figures: per workflow type the number of executions (runs) and their
// history sizes (events, bytes) from one visibility listing, streamed (nothing per workflow is kept
// but a few ids to sample); then the histories of a sample and of the largest run of each type
// fetched, and in them the largest payloads (activity inputs and results, workflow and child inputs
// and results), by kind.
import type { Client } from '@temporalio/client';

export interface TypeStats {
  runs: number;
  events: number;
  bytes: number;
  maxEvents: number;
  maxBytes: number;
  largest: string;
  largestRunId: string;
  sample: { id: string; runId: string }[];
}

export interface PayloadMax {
  bytes: number;
  workflowId: string;
  kind: string;
}

export interface HistoryStats {
  readonly byType: Record<string, TypeStats>;
  /** The largest payload of each kind seen in the fetched histories, then the largest of all. */
  readonly payloads: Record<string, PayloadMax>;
  readonly largestPayload: PayloadMax | null;
  readonly fetched: number;
  readonly listSeconds: number;
  readonly fetchSeconds: number;
}

type Payload = { data?: Uint8Array | null; metadata?: Record<string, Uint8Array> | null };

const payloadBytes = (p: Payload): number =>
  (p.data?.length ?? 0) + Object.entries(p.metadata ?? {}).reduce((s, [k, v]) => s + k.length + (v?.length ?? 0), 0);

const sum = (ps: { payloads?: Payload[] | null } | null | undefined): number =>
  (ps?.payloads ?? []).reduce((s, p) => s + payloadBytes(p), 0);

/** The payload-carrying fields of one history event: [kind, bytes]. */
function eventPayloads(e: Record<string, unknown>, actType: Map<number, string>): [string, number][] {
  const a = e as Record<string, Record<string, unknown> | null | undefined>;
  const out: [string, number][] = [];
  const sched = a.activityTaskScheduledEventAttributes;
  if (sched) {
    const name = (sched.activityType as { name?: string } | undefined)?.name ?? '?';
    actType.set(Number(e.eventId), name);
    out.push([`activity input ${name}`, sum(sched.input as never)]);
  }
  const done = a.activityTaskCompletedEventAttributes;
  if (done) out.push([`activity result ${actType.get(Number(done.scheduledEventId)) ?? '?'}`, sum(done.result as never)]);
  if (a.workflowExecutionStartedEventAttributes)
    out.push(['workflow input', sum(a.workflowExecutionStartedEventAttributes.input as never)]);
  if (a.workflowExecutionCompletedEventAttributes)
    out.push(['workflow result', sum(a.workflowExecutionCompletedEventAttributes.result as never)]);
  if (a.workflowExecutionContinuedAsNewEventAttributes)
    out.push(['continue-as-new input', sum(a.workflowExecutionContinuedAsNewEventAttributes.input as never)]);
  if (a.startChildWorkflowExecutionInitiatedEventAttributes)
    out.push(['child workflow input', sum(a.startChildWorkflowExecutionInitiatedEventAttributes.input as never)]);
  if (a.childWorkflowExecutionCompletedEventAttributes)
    out.push(['child workflow result', sum(a.childWorkflowExecutionCompletedEventAttributes.result as never)]);
  if (a.workflowExecutionSignaledEventAttributes)
    out.push(['signal input', sum(a.workflowExecutionSignaledEventAttributes.input as never)]);
  return out;
}

/** History sizes of every run whose workflow id starts with one of `prefixes`; `sample` runs per type fetched besides the largest. */
export async function historyStats(client: Client, prefixes: readonly string[], sample = 5): Promise<HistoryStats> {
  const byType: Record<string, TypeStats> = {};
  const t0 = performance.now();
  for (const prefix of prefixes) {
    for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH '${prefix}'` })) {
      const s = (byType[w.type] ??= { runs: 0, events: 0, bytes: 0, maxEvents: 0, maxBytes: 0, largest: '', largestRunId: '', sample: [] });
      const bytes = w.historySize ?? 0;
      s.runs++;
      s.events += w.historyLength;
      s.bytes += bytes;
      s.maxEvents = Math.max(s.maxEvents, w.historyLength);
      if (bytes >= s.maxBytes) Object.assign(s, { maxBytes: bytes, largest: w.workflowId, largestRunId: w.runId });
      // The 1st, 98th, 195th … run of the type listed: spread over the listing (newest first).
      if (s.sample.length < sample && (s.runs - 1) % 97 === 0) s.sample.push({ id: w.workflowId, runId: w.runId });
    }
  }
  const listSeconds = (performance.now() - t0) / 1000;
  const payloads: Record<string, PayloadMax> = {};
  let fetched = 0;
  const t1 = performance.now();
  for (const [type, s] of Object.entries(byType)) {
    for (const r of [{ id: s.largest, runId: s.largestRunId }, ...s.sample]) {
      if (r.id === '') continue;
      const h = await client.workflow.getHandle(r.id, r.runId).fetchHistory();
      fetched++;
      const actType = new Map<number, string>();
      for (const e of h.events ?? []) {
        for (const [what, bytes] of eventPayloads(e as never, actType)) {
          const kind = `${type}: ${what}`;
          if (bytes > (payloads[kind]?.bytes ?? -1)) payloads[kind] = { bytes, workflowId: r.id, kind };
        }
      }
    }
  }
  const largestPayload = Object.values(payloads).reduce<PayloadMax | null>((m, p) => (m === null || p.bytes > m.bytes ? p : m), null);
  return { byType, payloads, largestPayload, fetched, listSeconds, fetchSeconds: (performance.now() - t1) / 1000 };
}
