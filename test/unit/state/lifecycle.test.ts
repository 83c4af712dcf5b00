// The table lifecycle as data (core/state/lifecycle.ts): walk the transition table — every status
// reachable from pending, every audit action a table step writes in it, no way out of a terminal
// status but the listed re-entries, the forward and cutover paths in status.ts's order — and prove
// the one recording function (engine/record-transition.ts) refuses what its row does not allow and
// builds the event as the steps did before it (object, digests, details, key, fence).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { AuditAction } from '../../../core/audit/chain';
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { Transition } from '../../../core/state/lifecycle';
import { REENTRIES, TABLE_STATUSES, TERMINAL_STATUSES, TRANSITIONS, planTransition } from '../../../core/state/lifecycle';
import { CUTOVER_STEPS, FORWARD_STEPS, nextCutoverStep, nextStep } from '../../../core/state/status';
import type { TableStatus, TableUpdate } from '../../../core/state/store';
import { recordTransition } from '../../../engine/record-transition';

const root = path.resolve(__dirname, '..', '..', '..');
const read = (f: string): string => readFileSync(path.join(root, f), 'utf8');
const moves = TRANSITIONS.filter((t): t is Transition & { to: TableStatus } => t.to !== null);

/** Actions appended without a state change (StateStore.appendAudit), each with where. */
const WITHOUT_STATE_CHANGE: Record<string, string> = {
  [AuditAction.PLAN_SUBMITTED]: 'app/apply/apply.ts: the plan stored',
  [AuditAction.WAVE_APPROVED]: 'activities/index.ts: a human decision',
  [AuditAction.WAVE_APPROVAL_REFUSED]: 'activities/index.ts',
  [AuditAction.PLAN_SIGNATURE_VERIFIED]: 'activities/index.ts',
  [AuditAction.PLAN_REFUSED]: 'activities/index.ts',
  [AuditAction.TABLE_UNREGISTERED]: 'undo/rollback/repair: the catalog entry dropped; the record moves with the step after',
  [AuditAction.TABLE_METADATA_DELETED]: 'undo/rollback: our files deleted',
  [AuditAction.ROLLBACK_FORCED]: 'rollback --force: a human decision',
  [AuditAction.VALIDATION_RUN]: 'nightly validation: rows, not the record',
  [AuditAction.VIEW_DROPPED]: 'undo/rollback of a view',
  [AuditAction.AUDIT_KEY_ACTIVATED]: 'the chain itself',
  [AuditAction.AUDIT_ANCHORED]: 'the chain itself',
};

describe('the transition table', () => {
  it('names each step once and lists only known statuses', () => {
    expect(new Set(TRANSITIONS.map((t) => t.step)).size).toBe(TRANSITIONS.length);
    for (const t of TRANSITIONS) {
      expect(t.from.length).toBeGreaterThan(0);
      for (const s of [...t.from, ...(t.to === null ? [] : [t.to])]) expect(TABLE_STATUSES).toContain(s);
    }
  });

  it('reaches every status from pending', () => {
    const seen = new Set<TableStatus>(['pending']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const t of moves)
        if (!seen.has(t.to) && t.from.some((f) => seen.has(f))) {
          seen.add(t.to);
          grew = true;
        }
    }
    expect([...seen].sort()).toEqual([...TABLE_STATUSES].sort());
  });

  it('every audit action is either written by a table transition or appended without a state change, never both', () => {
    const byTransition = new Set<string>(TRANSITIONS.map((t) => t.action));
    for (const a of Object.values(AuditAction)) expect([a, byTransition.has(a) !== a in WITHOUT_STATE_CHANGE]).toEqual([a, true]);
    // The table-step actions, as docs/audit.md lists them per step.
    expect([...byTransition].sort()).toEqual(
      [
        'table.original-saved',
        'table.metadata-written',
        'table.registered',
        'table.validated',
        'table.failed',
        'table.read-back',
        'table.rewritten',
        'table.rewrite-dropped',
        'view.skipped',
        'view.created',
        'view.validated',
        'table.synced',
        'table.fenced',
        'table.cutover',
        'table.unfenced',
        'table.put-back',
        'table.rolled-back',
        'table.repaired',
      ].sort(),
    );
  });

  it('leaves a terminal status only by the listed re-entries', () => {
    const leaving = moves.filter((t) => t.from.some((f) => (TERMINAL_STATUSES as readonly string[]).includes(f) && f !== t.to));
    expect(leaving.map((t) => t.step).sort()).toEqual(Object.keys(REENTRIES).sort());
  });

  it('follows status.ts: the forward path one step at a time, the cutover path after migrated', () => {
    for (let s: TableStatus | null = 'pending'; s !== null && nextStep(s) !== null; s = nextStep(s)) {
      const to = nextStep(s)!;
      expect([s, to, moves.some((t) => t.from.includes(s!) && t.to === to)]).toEqual([s, to, true]);
    }
    for (const s of CUTOVER_STEPS) {
      const to = nextCutoverStep(s);
      if (to !== null)
        expect(moves.filter((t) => t.from.includes(s) && t.to === to).map((t) => t.step)).toEqual([to === 'fenced' ? 'fence' : 'cutover']);
    }
    // Along the path a transition only moves forward; back is rollback's unfence alone.
    const order: readonly TableStatus[] = [...FORWARD_STEPS, 'fenced', 'cutover'];
    const back = moves.filter(
      (t) => order.includes(t.to) && t.from.some((f) => order.includes(f) && order.indexOf(f) > order.indexOf(t.to)),
    );
    expect(back.map((t) => t.step)).toEqual(['unfence']);
  });

  it('each row names where it is recorded, and that file records that step', () => {
    for (const t of TRANSITIONS) {
      const [file, fn] = t.by.split(' ');
      const src = read(file!);
      expect([t.step, src.includes(`'${t.step}'`), src.includes(`function ${fn}`)]).toEqual([t.step, true, true]);
    }
  });

  it('nothing in ops/, activities/ or engine/ records a step but engine/record-transition.ts', () => {
    const callers: string[] = [];
    for (const dir of ['ops', 'activities', 'engine', 'app', 'cli'])
      for (const f of readdirSync(path.join(root, dir), { recursive: true }) as string[])
        if (f.endsWith('.ts') && /\.recordStep\(/.test(read(path.join(dir, f)))) callers.push(path.join(dir, f));
    // app/worker/observe.ts wraps the store (it passes every call through, counting status changes).
    expect(callers.sort()).toEqual(['app/worker/observe.ts', 'engine/record-transition.ts']);
    for (const dir of ['ops', 'activities'])
      for (const f of readdirSync(path.join(root, dir)).filter((x) => x.endsWith('.ts')))
        expect([f, read(path.join(dir, f)).includes('recordStep')]).toEqual([f, false]);
  });
});

const ref = { planHash: 'p'.repeat(64), tableId: 'db.t' };
const who = {
  at: '2026-01-01T00:00:00.000Z',
  actor: 'worker:w',
  run: 'run-1',
  key: (a: string, o: string, d?: string | null) => `${a}|${o}|${String(d)}`,
};

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof MigrationError) return `${e.code}${e.retryable ? ' retryable' : ''}`;
    throw e;
  }
  return 'recorded';
}

describe('planTransition and recordTransition', () => {
  const registered = { status: 'registered' as TableStatus, snapshotId: '7' };
  const facts = {
    set: { validation: { ok: true } },
    before: null,
    after: 'v',
    details: { ok: true, snapshotId: '7', rows: 1, files: 1, findings: 0, sincePlan: {} },
  };

  it('builds the update, the event and the run fence from the row', () => {
    const p = planTransition(ref, registered, 'validate', facts, who);
    expect(p.update).toEqual({ validation: { ok: true }, status: 'migrated' });
    expect(p.event).toEqual({
      at: who.at,
      actor: 'worker:w',
      action: 'table.validated',
      object: 'hms:db.t',
      planHash: ref.planHash,
      beforeDigest: null,
      afterDigest: 'v',
      details: facts.details,
      idempotencyKey: 'table.validated|hms:db.t|undefined',
    });
    expect(p.opts).toEqual({ run: 'run-1' });
    // A status that stays: no status in the update.
    expect(planTransition(ref, registered, 'validate-refused', facts, who).update).toEqual({ validation: { ok: true } });
  });

  it('no key, no run, no actor source: none in the event or the call (as outside a worker)', () => {
    const p = planTransition(
      ref,
      { status: 'fenced', snapshotId: null },
      'cutover',
      { before: 'a', after: 'b', details: { snapshotId: null, metadataLocation: 'm', mode: 'register', validation: {} } },
      { at: who.at, actor: 'ops' },
    );
    expect(['idempotencyKey' in p.event, 'actorSource' in p.event, p.opts]).toEqual([false, false, undefined]);
  });

  it('a sync: keyed by the snapshot it records, fenced on the snapshot the record was at, object named by the row', () => {
    const details = {
      target: 'lake:ice_db.t',
      snapshotId: '8',
      parentSnapshotId: '7',
      operation: 'append',
      commit: 'committed',
      filesAdded: 1,
      filesRemoved: 0,
      recordsAdded: 1,
      recordsRemoved: 0,
      metadataLocation: 'm2',
      validation: {},
      hmsDigest: 'h',
    };
    const set = { metadataLocation: 'm2', snapshotId: '8', writtenFiles: [], original: null, originalDigest: 'h', sync: null };
    const p = planTransition(
      ref,
      { status: 'migrated', snapshotId: '7' },
      'sync',
      { set, before: 'o', after: 'x', details },
      { ...who, actorSource: 'os' },
    );
    expect([p.event.idempotencyKey, p.opts, p.event.actorSource, p.update.status]).toEqual([
      'table.synced|hms:db.t|8',
      { snapshotId: '7' },
      'os',
      undefined,
    ]);
    const target = planTransition(
      ref,
      { status: 'written', snapshotId: null },
      'register',
      { target: 'lake:ice_db.t', before: null, after: 'd', details: { metadataLocation: 'm', outcome: 'registered' } },
      who,
    );
    expect(target.event.object).toBe('lake:ice_db.t');
  });

  it.each([
    ['a from-status the row does not list', () => planTransition(ref, { status: 'written', snapshotId: null }, 'validate', facts, who)],
    [
      'a terminal status left by a step that is no re-entry',
      () =>
        planTransition(
          ref,
          { status: 'cutover', snapshotId: null },
          'fence',
          { before: null, after: null, details: { mode: 'x', fence: 'none' } },
          who,
        ),
    ],
    [
      'a field the row does not set',
      () => planTransition(ref, registered, 'validate', { ...facts, set: { validation: {}, snapshotId: '1' } }, who),
    ],
    ['a field the row sets left out', () => planTransition(ref, registered, 'validate', { ...facts, set: {} }, who)],
    [
      'the status set by the step',
      () => planTransition(ref, registered, 'validate', { ...facts, set: { validation: {}, status: 'migrated' } as TableUpdate }, who),
    ],
    [
      'a detail the row does not list',
      () => planTransition(ref, registered, 'validate', { ...facts, details: { ...facts.details, extra: 1 } }, who),
    ],
    ['a detail the row lists left out', () => planTransition(ref, registered, 'validate', { ...facts, details: { ok: true } }, who)],
    [
      'a named object where the row names the Hive table',
      () => planTransition(ref, registered, 'validate', { ...facts, target: 'lake:x' }, who),
    ],
    [
      'no object where the row wants one',
      () =>
        planTransition(
          ref,
          { status: 'written', snapshotId: null },
          'register',
          { before: null, after: 'd', details: { metadataLocation: 'm', outcome: 'registered' } },
          who,
        ),
    ],
  ])('refuses %s: TABLE_TRANSITION_REFUSED, not retryable', (_what, f) => {
    expect(refusal(f)).toBe(ErrorCode.TABLE_TRANSITION_REFUSED);
  });

  it('recordTransition calls the store once with the planned update and event, and never on a refusal', async () => {
    const calls: unknown[][] = [];
    const state = { recordStep: (...a: unknown[]) => (calls.push(a), Promise.resolve(a[3] as never)) };
    await recordTransition(state, ref, registered, 'validate', facts, who);
    await recordTransition(
      state,
      ref,
      { status: 'migrated', snapshotId: '7' },
      'fail',
      {
        set: { errorCode: 'X', errorMessage: 'm', ownerRun: null },
        before: null,
        after: null,
        details: { code: 'X', message: 'm', leftovers: [] },
      },
      who,
    );
    await expect(
      recordTransition(
        state,
        ref,
        { status: 'failed', snapshotId: null },
        'fail',
        {
          set: { errorCode: 'X', errorMessage: 'm', ownerRun: null },
          before: null,
          after: null,
          details: { code: 'X', message: 'm', leftovers: [] },
        },
        who,
      ),
    ).rejects.toMatchObject({ code: ErrorCode.TABLE_TRANSITION_REFUSED });
    expect(calls.map((c) => [c[0], c[1], (c[2] as TableUpdate).status, (c[3] as { action: string }).action, c.length])).toEqual([
      [ref.planHash, 'db.t', 'migrated', 'table.validated', 5],
      [ref.planHash, 'db.t', 'failed', 'table.failed', 4],
    ]);
  });
});
