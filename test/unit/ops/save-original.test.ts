// The first table operation, over in-memory fakes and no Temporal: load the record → check its
// transition (core/state/lifecycle.ts) → read HMS live against the plan's pin → record. The runtime
// the activity shim fills in (ops/runtime.ts) gives the event its idempotency key and the record its
// owning run; a refused transition, a changed or dropped table record nothing.
import type { AuditEventInput } from '../../../core/audit/chain';
import { idempotencyKey } from '../../../core/audit/idempotency';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { tableFingerprint } from '../../../core/hive/fingerprint';
import type { TableInventory } from '../../../core/hive/model';
import { conversionPin } from '../../../core/plan/pin';
import type { TableRecord, TableUpdate } from '../../../core/state/store';
import type { OpsDeps } from '../../../ops/context';
import { opsContext } from '../../../ops/context';
import type { OpsRuntime } from '../../../ops/runtime';
import { tableOps } from '../../../ops/table';
import { inv, table } from '../assess/fixture';
import { BASE_DEPS, PLAN, migratedRecord } from '../activities/record';

const ID = { workflowId: 'migrate/pppppppppppp/wave-1/db.t', runId: 'run-1', activityId: '7' };
const planned = inv(table());

function setup(o: { status: TableRecord['status']; live: TableInventory | undefined }) {
  let rec = migratedRecord({ status: o.status, original: null, originalDigest: null, metadataLocation: null, snapshotId: null });
  const recorded: { update: TableUpdate; event: AuditEventInput }[] = [];
  const updates: Partial<TableRecord>[] = [];
  let hmsReads = 0;
  const plan = {
    hash: PLAN,
    waves: [{ number: 1, tables: [{ id: 'db.t', class: 'migrate', fingerprint: tableFingerprint(planned), pin: conversionPin(planned) }] }],
  };
  const deps = {
    ...BASE_DEPS,
    actor: 'worker:test',
    hms: {
      listTables: () => Promise.resolve(o.live === undefined ? [] : ['t']),
      getTables: () => {
        hmsReads++;
        return Promise.resolve(o.live === undefined ? [] : [o.live]);
      },
    },
    state: {
      getPlan: () => Promise.resolve(plan),
      getTable: () => Promise.resolve(rec),
      updateTable: (_p: string, _t: string, u: Partial<TableRecord>) => {
        updates.push(u);
        rec = { ...rec, ...u };
        return Promise.resolve();
      },
      tablesSharingLocation: () => Promise.resolve([]),
      recordStep: (_p: string, _t: string, update: TableUpdate, event: AuditEventInput) => {
        recorded.push({ update, event });
        rec = { ...rec, ...update } as TableRecord;
        return Promise.resolve(event);
      },
    },
  } as unknown as OpsDeps;
  const runtime: OpsRuntime = {
    current: () => ({
      identity: ID,
      heartbeatDetails: undefined,
      heartbeat: () => undefined,
      signal: new AbortController().signal,
      workflowRunning: () => Promise.resolve(false),
    }),
  };
  const ops = tableOps(opsContext(deps, runtime));
  return {
    save: () => ops.snapshotOriginal({ planHash: PLAN, tableId: 'db.t' }),
    recorded,
    updates,
    rec: () => rec,
    hmsReads: () => hmsReads,
  };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MigrationError) return e.code;
    throw e;
  }
  return 'recorded';
}

describe('the save-original operation (ops/table.ts snapshotOriginal)', () => {
  it.each(['pending', 'failed'] as const)(
    '%s: the live table saved as one transition, keyed by the activity the runtime names',
    async (status) => {
      const s = setup({ status, live: planned });
      await expect(s.save()).resolves.toEqual({ digest: tableFingerprint(planned), view: false });
      expect(s.updates).toEqual([{ ownerRun: 'run-1' }]);
      expect(s.recorded).toHaveLength(1);
      const [r] = s.recorded;
      expect(r!.update).toMatchObject({ status: 'original-saved', original: planned, originalDigest: tableFingerprint(planned) });
      expect(r!.event).toMatchObject({
        action: 'table.original-saved',
        actor: 'worker:test',
        afterDigest: tableFingerprint(planned),
        idempotencyKey: idempotencyKey({ ...ID, action: 'table.original-saved', object: 'hms:db.t' }),
      });
      // A retry finds the original saved: nothing read or recorded again.
      await expect(s.save()).resolves.toEqual({ digest: tableFingerprint(planned), view: false });
      expect(s.recorded).toHaveLength(1);
    },
  );

  it('a record whose row does not allow the step (rolled back, no original): TABLE_TRANSITION_REFUSED before HMS is read, nothing recorded', async () => {
    const s = setup({ status: 'rolled-back', live: planned });
    expect(await codeOf(s.save())).toBe(ErrorCode.TABLE_TRANSITION_REFUSED);
    expect([s.recorded, s.hmsReads()]).toEqual([[], 0]);
  });

  it('a table that no longer converts as pinned (a column added): SOURCE_CHANGED, nothing recorded', async () => {
    const changed = inv(table({ sd: { columns: [...table().sd.columns, { name: 'late', type: 'int', comment: null }] } }));
    const s = setup({ status: 'pending', live: changed });
    expect(await codeOf(s.save())).toBe(ErrorCode.SOURCE_CHANGED);
    expect(s.recorded).toEqual([]);
  });

  it('a table dropped from HMS: HMS_NOT_FOUND, nothing recorded', async () => {
    const s = setup({ status: 'pending', live: undefined });
    expect(await codeOf(s.save())).toBe(ErrorCode.HMS_NOT_FOUND);
    expect([s.recorded, s.rec().status]).toEqual([[], 'pending']);
  });
});
