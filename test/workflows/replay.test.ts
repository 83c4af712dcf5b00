// Recorded histories (test/fixtures/histories/, recorded from a real apply on the dev server with
// dev/tools/record-histories.ts) replay against today's workflow code without nondeterminism
// errors: a change to workflows/ that would break running migrations fails here first (changes go
// behind `patched`, docs/design/temporal-rules.md §2 (l)). Also
// checks that a deliberately changed workflow does fail replay (the test can fail).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { ReplayWorkerOptions } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { buildWorkflowBundle } from '../../dev/build';

const dir = path.join(__dirname, '..', 'fixtures', 'histories');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

/**
 * Every recorded history replayed by ONE replay worker (its workflow code bundled once), each
 * history under its file name: the file → its replay error (undefined: replayed without one).
 */
async function replayAll(options: ReplayWorkerOptions): Promise<Map<string, Error | undefined>> {
  const histories = files.map((f) => ({ workflowId: f, history: historyFromJSON(JSON.parse(readFileSync(path.join(dir, f), 'utf8'))) }));
  const results = new Map<string, Error | undefined>();
  for await (const r of Worker.runReplayHistories(options, histories)) results.set(r.workflowId, r.error);
  return results;
}

/** The history `file` was replayed, without an error (the error itself fails the test). */
function expectReplayed(results: Map<string, Error | undefined>, file: string): void {
  expect(results.has(file)).toBe(true);
  const error = results.get(file);
  if (error !== undefined) throw error;
}

describe('workflow replay', () => {
  it('has recorded histories of every workflow type, including a compensated failure and a view', () => {
    const types = new Set(files.map((f) => f.replace(/^v[\d.]+-/, '').split('-')[0]));
    expect([...types].sort()).toEqual([
      'cutoverWorkflow',
      'migrationWorkflow',
      'nightlyValidationWorkflow',
      'rollbackWaveWorkflow',
      'syncWorkflow',
      'tableWorkflow',
      'waveWorkflow',
    ]);
    expect(files).toEqual(expect.arrayContaining(['tableWorkflow-failed-compensated.json', 'tableWorkflow-view-skipped.json']));
    // Since patch iceberg-views a view becomes an Iceberg view: created, validated, rolled back.
    const created = readFileSync(path.join(dir, 'v0.3-tableWorkflow-view-created.json'), 'utf8');
    expect([created.includes('"createIcebergView"'), created.includes('"validateIcebergView"')]).toEqual([true, true]);
    expect(readFileSync(path.join(dir, 'v0.3-rollbackWaveWorkflow-view.json'), 'utf8')).toContain('"rollbackTable"');
  });

  it('covers a wave whose tables went in batches (patch apply-batched-tables): applyTables activities, no table workflow', () => {
    const wave = readFileSync(path.join(dir, 'v0.5-waveWorkflow-batched.json'), 'utf8');
    expect(wave).toContain('"applyTables"');
    expect(wave).not.toContain('"tableWorkflow"');
  });

  it('covers both table-step versions: histories from before and after the original moved into the write step', () => {
    const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    // Activity type names are plain strings in the history JSON.
    expect(read('tableWorkflow-0.json')).toContain('"snapshotOriginal"');
    expect(read('tableWorkflow-0.json')).not.toContain('saveOriginalAndWrite');
    for (const f of ['v0.2-tableWorkflow-0.json', 'v0.2-tableWorkflow-failed-compensated.json', 'v0.2-tableWorkflow-view-skipped.json']) {
      expect(read(f)).toContain('"saveOriginalAndWrite"');
      expect(read(f)).not.toContain('"snapshotOriginal"');
    }
  });

  it('covers the failure shapes of 0.3: a cancelled plan and wave, a table compensated on cancel, a wave whose table workflow was terminated', () => {
    const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    expect(files).toEqual(
      expect.arrayContaining([
        'v0.3-migrationWorkflow-cancelled.json',
        'v0.3-waveWorkflow-cancelled.json',
        'v0.3-tableWorkflow-cancelled-compensated.json',
        'v0.3-waveWorkflow-child-terminated.json',
        'v0.3-migrationWorkflow-table-terminated.json',
      ]),
    );
    // What makes each a failure shape, as recorded: the cancel request, the undo, the terminated child.
    expect(read('v0.3-waveWorkflow-cancelled.json')).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED');
    expect(read('v0.3-tableWorkflow-cancelled-compensated.json')).toContain('"deleteMetadata"');
    expect(read('v0.3-waveWorkflow-child-terminated.json')).toContain('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED');
  });

  it('covers the sync runs: a commit, a refusal, a worker killed twice during syncTable (attempt 3 completed), a scheduled run', () => {
    const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    expect(files).toEqual(
      expect.arrayContaining([
        'syncWorkflow-0.json',
        'syncWorkflow-refused.json',
        'syncWorkflow-worker-killed.json',
        'syncWorkflow-scheduled.json',
      ]),
    );
    expect(read('syncWorkflow-worker-killed.json')).toMatch(/"attempt": *3/);
  });

  it('covers cutover: a table cut over by a worker killed three times, a whole wave, a rerun that changes nothing, and a rollback that unfences first (the patched step)', () => {
    const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    expect(files).toEqual(
      expect.arrayContaining(['cutoverWorkflow-worker-killed.json', 'cutoverWorkflow-0.json', 'cutoverWorkflow-unchanged.json']),
    );
    for (const step of ['"fenceTable"', '"finalSync"', '"finalValidation"', '"markCutOver"'])
      expect(read('cutoverWorkflow-0.json')).toContain(step);
    expect(read('cutoverWorkflow-worker-killed.json')).toMatch(/"attempt": *[2-9]/);
    // The rollback recorded after cutover carries the patch marker and the unfence before each rollbackTable.
    expect(read('rollbackWaveWorkflow-unfence.json')).toContain('EVENT_TYPE_MARKER_RECORDED');
    expect(read('rollbackWaveWorkflow-unfence.json')).toContain('"unfenceTable"');
    // The histories from before cutover existed replay without the unfence (patched() is false there).
    expect(read('rollbackWaveWorkflow-0.json')).not.toContain('unfenceTable');
  });

  it('covers the rollback order (patch rollback-dependent-views-first): a refused rollback and one that takes the views first', () => {
    const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    const markers = (f: string): string[] =>
      (
        JSON.parse(read(f)) as {
          events: { markerRecordedEventAttributes?: { details?: Record<string, { payloads: { data: string }[] }> } }[];
        }
      ).events
        .flatMap((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [])
        .map((p) => (JSON.parse(Buffer.from(p.data, 'base64').toString('utf8')) as { id: string }).id);
    // Recorded from test/e2e/views.test.ts: wave 1 read by the views of waves 2 and 3.
    const refused = 'v0.5-rollbackWaveWorkflow-order-refused.json';
    const first = 'v0.5-rollbackWaveWorkflow-views-first.json';
    for (const f of [refused, first]) expect(markers(f)).toContain('rollback-dependent-views-first');
    expect(read(refused)).toContain('"rollbackOrder"');
    expect(read(refused)).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
    expect(read(refused)).not.toContain('"rollbackTable"');
    expect(read(first).match(/"rollbackTable"/g)).toHaveLength(4);
    // Rollbacks recorded before the patch replay without the check.
    expect(read('v0.3-rollbackWaveWorkflow-view.json')).not.toContain('"rollbackOrder"');
  });

  it('covers a sync that continued as new: the first run (patch marker, then continue-as-new) and the run it started (carried tables)', () => {
    const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    expect(files).toEqual(expect.arrayContaining(['syncWorkflow-continued-as-new.json', 'syncWorkflow-continued.json']));
    expect(read('syncWorkflow-continued-as-new.json')).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
    expect(read('syncWorkflow-continued-as-new.json')).toContain('EVENT_TYPE_MARKER_RECORDED');
    expect(read('syncWorkflow-continued.json')).toContain('"continuedExecutionRunId"');
    expect(read('syncWorkflow-continued.json')).not.toContain('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
  });

  it('covers a rollback that continued as new (patch rollback-continue-as-new): the first run, a carried run that continued again, the last', () => {
    const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    const names = ['continued-as-new', 'continued-again', 'continued'].map((x) => `v0.6-rollbackWaveWorkflow-${x}.json`);
    expect(files).toEqual(expect.arrayContaining(names));
    const [first, again, last] = names.map(read) as [string, string, string];
    // Recorded by test/workflows/rollback.test.ts (25 tables, 10 a run): the patch marker, then continue-as-new.
    const marker = Buffer.from('{"id":"rollback-continue-as-new","deprecated":false}').toString('base64');
    for (const h of [first, again]) {
      expect(h).toContain(marker);
      expect(h).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
      expect(h.match(/"rollbackTable"/g)).toHaveLength(10);
    }
    // Only the first run reads the wave; the others go on with what was carried.
    expect([first.includes('"migratedTables"'), again.includes('"migratedTables"'), last.includes('"migratedTables"')]).toEqual([
      true,
      false,
      false,
    ]);
    expect(last).toContain('"continuedExecutionRunId"');
    expect(last).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    expect(last.match(/"rollbackTable"/g)).toHaveLength(5);
    // The same shape from the real server (test/e2e/apply-batched.test.ts, --tables-per-run 2): first run and last.
    const server = read('v0.6-rollbackWaveWorkflow-server-continued-as-new.json');
    expect([
      server.includes(marker),
      server.includes('"migratedTables"'),
      server.includes('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW'),
    ]).toEqual([true, true, true]);
    expect(read('v0.6-rollbackWaveWorkflow-server-continued.json')).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    // The rollbacks recorded before the patch ran in one run.
    expect(read('v0.5-rollbackWaveWorkflow-views-first.json')).not.toContain('CONTINUED_AS_NEW');
  });

  it('covers the batched sync (patch sync-batched-tables): syncTables activities, a run that continued as new and the run it started', () => {
    const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    expect(files).toEqual(expect.arrayContaining(['syncWorkflow-batched-continued-as-new.json', 'syncWorkflow-batched-continued.json']));
    expect(read('syncWorkflow-batched-continued-as-new.json')).toContain('"syncTables"');
    // The patch marker: its id travels as a JSON payload, base64-encoded in the history.
    expect(read('syncWorkflow-batched-continued-as-new.json')).toContain('EVENT_TYPE_MARKER_RECORDED');
    expect(read('syncWorkflow-batched-continued-as-new.json')).toContain(Buffer.from('"sync-batched-tables"').toString('base64'));
    expect(read('syncWorkflow-batched-continued-as-new.json')).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
    expect(read('syncWorkflow-batched-continued.json')).toContain('"syncTables"');
    // The histories from before the patch: one syncTable per table, no batch.
    expect(read('syncWorkflow-0.json')).not.toContain('"syncTables"');
  });

  it('covers the paged sync (patch sync-paged-outcomes): outcomes written by recordSyncOutcomes, a run that continued as new carrying counts, and the run it started', async () => {
    const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    // Recorded from test/e2e/sync-hard.test.ts (--tables-per-run 1, two tables) with HIM_RECORD_HISTORIES.
    const first = 'v0.6-syncWorkflow-paged-continued-as-new.json';
    const next = 'v0.6-syncWorkflow-paged-continued.json';
    for (const f of [first, next]) {
      expect(read(f)).toContain('"recordSyncOutcomes"');
      expect(read(f)).toContain(Buffer.from('"sync-paged-outcomes"').toString('base64'));
    }
    expect(read(first)).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
    // The carry holds counts, not outcomes; the result names where the outcomes are.
    const payload = (f: string, pick: (e: Record<string, unknown>) => unknown): Record<string, unknown> => {
      const events = (JSON.parse(read(f)) as { events: Record<string, unknown>[] }).events;
      const p = events.map(pick).find((x) => x !== undefined) as { payloads: { data: string }[] };
      return JSON.parse(Buffer.from(p.payloads[0]?.data ?? '', 'base64').toString('utf8')) as Record<string, unknown>;
    };
    const carried = payload(first, (e) => (e.workflowExecutionContinuedAsNewEventAttributes as { input?: unknown } | undefined)?.input)
      .carried as Record<string, unknown>;
    expect(carried.done).toBeUndefined();
    expect(carried.tally).toMatchObject({ done: 1 });
    const result = payload(next, (e) => (e.workflowExecutionCompletedEventAttributes as { result?: unknown } | undefined)?.result);
    expect(result.tables).toBeUndefined();
    expect(result.outcomes).toMatchObject({ count: 2 });
    // No history from before the patch writes outcomes.
    for (const f of files.filter((x) => x.includes('syncWorkflow') && !x.startsWith('v0.6-')))
      expect(read(f)).not.toContain('"recordSyncOutcomes"');
  });

  it('covers the search attributes that follow the status (patch search-attributes-follow-status): every workflow ends on its final MigrationStatus', () => {
    // The upserts as recorded: each event's attributes, their values JSON payloads in base64.
    const upserts = (f: string): Record<string, unknown>[] => {
      const h = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as {
        events: {
          eventType: string;
          upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes: { indexedFields: Record<string, { data: string }> } };
        }[];
      };
      return h.events
        .filter((e) => e.eventType === 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES')
        .map((e) =>
          Object.fromEntries(
            Object.entries(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes.indexedFields ?? {}).map(([k, v]) => [
              k,
              JSON.parse(Buffer.from(v.data, 'base64').toString('utf8')) as unknown,
            ]),
          ),
        )
        .filter((u) => !('TemporalChangeVersion' in u));
    };
    const statuses = (f: string): unknown[] => upserts(f).flatMap((u) => ('MigrationStatus' in u ? [u.MigrationStatus] : []));
    expect(statuses('v0.4-migrationWorkflow-succeeded.json')).toEqual(['running', 'succeeded']);
    expect(statuses('v0.4-migrationWorkflow-failed.json')).toEqual(['running', 'failed']);
    expect(statuses('v0.4-migrationWorkflow-cancelled-waiting.json')).toEqual(['waiting-approval', 'cancelled']);
    expect(statuses('v0.4-waveWorkflow-succeeded.json')).toEqual(['running', 'succeeded']);
    expect(statuses('v0.4-waveWorkflow-failed.json')).toEqual(['running', 'failed']);
    expect(statuses('v0.4-tableWorkflow-succeeded.json')).toEqual(['succeeded']);
    expect(statuses('v0.4-tableWorkflow-source-changed.json')).toEqual(['failed']);
    expect(statuses('v0.4-cutoverWorkflow-0.json')).toEqual(['cutting-over', 'cutover']);
    expect(statuses('v0.4-rollbackWaveWorkflow-0.json')).toEqual(['rolled-back']);
    // Cancelled while its table was being written: the table compensates (deleteMetadata) and ends `cancelled`, as do its wave and plan.
    expect(statuses('v0.4-tableWorkflow-cancelled.json')).toEqual(['cancelled']);
    expect(readFileSync(path.join(dir, 'v0.4-tableWorkflow-cancelled.json'), 'utf8')).toContain('"deleteMetadata"');
    expect(statuses('v0.4-waveWorkflow-cancelled.json')).toEqual(['running', 'cancelled']);
    expect(statuses('v0.4-migrationWorkflow-cancelled-in-flight.json')).toEqual(['running', 'cancelled']);
    expect(upserts('v0.4-rollbackWaveWorkflow-0.json')[0]).toEqual({
      MigrationTeam: expect.arrayContaining([expect.stringMatching(/-crm$/)]),
    });
    // The histories from before the patch upsert no MigrationStatus in tables and never move a plan's.
    expect(statuses('v0.3-tableWorkflow-cancelled-compensated.json')).toEqual([]);
    expect(statuses('v0.3-migrationWorkflow-cancelled.json')).toEqual([]);
  });

  describe('with the workflow code bundled from workflowsPath (as Worker.create does)', () => {
    let results = new Map<string, Error | undefined>();
    beforeAll(async () => {
      results = await replayAll({ workflowsPath: require.resolve('../../workflows/index'), replayName: 'recorded' });
    }, 300_000);

    it.each(files)('%s replays without nondeterminism', (file) => expectReplayed(results, file));
  });

  it('a changed step order is caught as nondeterminism', async () => {
    const history = JSON.parse(readFileSync(path.join(dir, 'tableWorkflow-0.json'), 'utf8')) as unknown;
    await expect(
      Worker.runReplayHistory({ workflowsPath: require.resolve('../fixtures/workflows-changed'), replayName: 'changed' }, history as never),
    ).rejects.toThrow(/[Nn]ondetermin/);
    // ... and by the batch replay the tests above use: the history's error is reported, not lost.
    const results = await replayAll({ workflowsPath: require.resolve('../fixtures/workflows-changed'), replayName: 'changed-batch' });
    expect(results.get('tableWorkflow-0.json')?.message).toMatch(/[Nn]ondetermin/);
    expect(() => expectReplayed(results, 'tableWorkflow-0.json')).toThrow(/[Nn]ondetermin/);
  }, 300_000);
});

// What an installed worker runs: the bundle dev/build.ts builds ahead of time (dist/workflow-bundle.js,
// loaded with `workflowBundle`) must be the same code as the `workflowsPath` bundling above.
describe('workflow replay on the bundle built ahead of time', () => {
  let results = new Map<string, Error | undefined>();
  beforeAll(async () => {
    results = await replayAll({ workflowBundle: { code: await buildWorkflowBundle() }, replayName: 'built-ahead' });
  }, 300_000);

  it.each(files)('%s replays without nondeterminism', (file) => expectReplayed(results, file));
});
