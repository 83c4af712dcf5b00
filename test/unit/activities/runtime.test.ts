// The Temporal side of the operations' runtime (activities/runtime.ts): inside an activity it hands
// the operations the activity's identity (the idempotency key and the owning run), its heartbeat,
// its cancellation signal and the previous attempt's details; outside one, nothing.
import { MockActivityEnvironment } from '@temporalio/testing';
import { idempotencyKey } from '../../../core/audit/idempotency';
import { runOf, stepKey, temporalRuntime } from '../../../activities/runtime';

const RUN = { workflowId: 'migrate/abc/wave-1/db.t', runId: 'run-9' };

describe('temporalRuntime', () => {
  it('outside an activity: no invocation, no run, no key', () => {
    expect([temporalRuntime.current(), runOf(), stepKey('table.registered', 'hms:db.t')]).toEqual([undefined, undefined, null]);
  });

  it('inside one: its identity, the previous details, its heartbeat and its cancellation', async () => {
    const env = new MockActivityEnvironment({ activityId: '5', workflowExecution: RUN, heartbeatDetails: ['done'] });
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const seen = await env.run(async () => {
      const inv = temporalRuntime.current();
      inv?.heartbeat({ step: 1 });
      const before = inv?.signal.aborted;
      env.cancel();
      await new Promise((r) => setImmediate(r));
      return {
        identity: inv?.identity,
        details: inv?.heartbeatDetails,
        before,
        after: inv?.signal.aborted,
        run: runOf(),
        key: stepKey('a', 'o'),
      };
    });
    expect(seen).toEqual({
      identity: { ...RUN, activityId: '5' },
      details: ['done'],
      before: false,
      after: true,
      run: 'run-9',
      key: idempotencyKey({ ...RUN, activityId: '5', action: 'a', object: 'o' }),
    });
    expect(beats).toEqual([{ step: 1 }]);
  });
});
