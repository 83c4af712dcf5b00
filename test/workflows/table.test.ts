// tableWorkflow (workflows/table.ts) in the time-skipping test environment, on in-memory activities:
// the steps in order, the compensations in reverse when a step fails or the table is cancelled, a
// compensation that fails itself (COMPENSATION_INCOMPLETE), retried steps (their backoff timers
// skipped), views and the rewrite path, and the MigrationStatus each outcome leaves.
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TableOutcome } from '../../activities/index';
import { SA } from '../../workflows/common';
import type { TableInput } from '../../workflows/table';
import { tableWorkflow } from '../../workflows/table';
import { coded, Fakes, PLAN } from './helpers/fake-activities';
import type { World } from './helpers/fake-activities';
import { timeSkippingEnv, until, withWorker } from './helpers/env';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const world: World = { waves: [{ number: 1, tables: [{ id: 'db.t', team: 'crm' }] }] };
let n = 0;

/** Run one table workflow to its end; its outcome and its MigrationStatus. */
async function runTable(fakes: Fakes, input: Partial<TableInput> = {}): Promise<{ out: TableOutcome; status: unknown }> {
  return withWorker(env, fakes.activities, async (taskQueue) => {
    const h = await env.client.workflow.start(tableWorkflow, {
      taskQueue,
      workflowId: `table-${++n}`,
      args: [{ planHash: PLAN, tableId: 'db.t', ...input }],
    });
    const out = await h.result();
    return { out, status: (await h.describe()).typedSearchAttributes.get(SA.status) };
  });
}

describe('tableWorkflow in the time-skipping environment', () => {
  it('runs save+write, register, validate in that order and ends migrated (MigrationStatus succeeded), no undo', async () => {
    const f = new Fakes(world);
    const { out, status } = await runTable(f);
    expect(out).toEqual({ tableId: 'db.t', status: 'migrated' });
    expect(f.seq()).toEqual(['saveOriginalAndWrite db.t', 'registerTable db.t', 'validateTable db.t']);
    expect(status).toBe('succeeded');
  });

  it('a failed validation undoes in reverse: unregister, then delete our metadata, then markFailed with the code', async () => {
    const f = new Fakes(world, {
      validateTable: async () => {
        throw coded('VALIDATION_ROW_COUNT_MISMATCH');
      },
    });
    const { out, status } = await runTable(f);
    expect(out).toEqual({
      tableId: 'db.t',
      status: 'failed',
      code: 'VALIDATION_ROW_COUNT_MISMATCH',
      message: 'VALIDATION_ROW_COUNT_MISMATCH (test)',
    });
    expect(f.seq()).toEqual([
      'saveOriginalAndWrite db.t',
      'registerTable db.t',
      'validateTable db.t',
      'unregisterTable db.t',
      'deleteMetadata db.t',
      'markFailed db.t',
    ]);
    expect(f.of('markFailed')[0]?.args.slice(1)).toEqual(['VALIDATION_ROW_COUNT_MISMATCH', 'VALIDATION_ROW_COUNT_MISMATCH (test)']);
    expect(status).toBe('failed');
  });

  it('a failed register still unregisters (its undo is recorded before the step) and deletes our metadata', async () => {
    const f = new Fakes(world, {
      registerTable: async () => {
        throw coded('CATALOG_CONFLICT');
      },
    });
    const { out } = await runTable(f);
    expect(out).toMatchObject({ status: 'failed', code: 'CATALOG_CONFLICT' });
    expect(f.seq()).toEqual([
      'saveOriginalAndWrite db.t',
      'registerTable db.t',
      'unregisterTable db.t',
      'deleteMetadata db.t',
      'markFailed db.t',
    ]);
  });

  it('a failed write undoes only the write (delete our metadata): nothing was registered', async () => {
    const f = new Fakes(world, {
      saveOriginalAndWrite: async () => {
        throw coded('SOURCE_CHANGED');
      },
    });
    const { out, status } = await runTable(f);
    expect(out).toMatchObject({ status: 'failed', code: 'SOURCE_CHANGED' });
    expect(f.seq()).toEqual(['saveOriginalAndWrite db.t', 'deleteMetadata db.t', 'markFailed db.t']);
    expect(status).toBe('failed');
  });

  it('an undo that fails does not stop the others: COMPENSATION_INCOMPLETE names what is left and the original code', async () => {
    const f = new Fakes(world, {
      validateTable: async () => {
        throw coded('VALIDATION_FILES_MISMATCH');
      },
      unregisterTable: async () => {
        throw coded('CATALOG_SERVER_ERROR', { message: 'catalog said 500' });
      },
    });
    const { out, status } = await runTable(f);
    expect(f.seq('unregisterTable', 'deleteMetadata', 'markFailed')).toEqual([
      'unregisterTable db.t',
      'deleteMetadata db.t',
      'markFailed db.t',
    ]);
    expect(out).toMatchObject({ status: 'failed', code: 'COMPENSATION_INCOMPLETE' });
    const message = (out as { message: string }).message;
    expect(message).toContain('VALIDATION_FILES_MISMATCH');
    expect(message).toContain('unregister: CATALOG_SERVER_ERROR: catalog said 500');
    expect(message).toContain(`migrate repair ${PLAN.slice(0, 12)}`);
    expect(f.of('markFailed')[0]?.args[1]).toBe('COMPENSATION_INCOMPLETE');
    expect(status).toBe('failed');
  });

  it('a retryable failure is retried under the retry policy (its backoff timers skipped) and the table migrates', async () => {
    let attempts = 0;
    const f = new Fakes(world, {
      registerTable: async () => {
        if (++attempts < 8) throw coded('CATALOG_UNREACHABLE', { retryable: true });
        return { outcome: 'registered' };
      },
    });
    const t0 = await env.currentTimeMs();
    const wall = Date.now();
    const { out } = await runTable(f);
    expect(out).toEqual({ tableId: 'db.t', status: 'migrated' });
    expect(f.of('registerTable')).toHaveLength(8);
    // Backoff 1+2+4+8+16+30+30 s (initial 1 s, ×2, at most 30 s) passed on the server's clock, not ours.
    expect((await env.currentTimeMs()) - t0).toBeGreaterThanOrEqual(91_000);
    expect(Date.now() - wall).toBeLessThan(60_000);
  });

  it('a retryable failure that outlasts the 10 attempts fails the table with its code and compensates', async () => {
    const f = new Fakes(world, {
      registerTable: async () => {
        throw coded('CATALOG_UNREACHABLE', { retryable: true });
      },
    });
    const { out } = await runTable(f);
    expect(f.of('registerTable')).toHaveLength(10);
    expect(out).toMatchObject({ status: 'failed', code: 'CATALOG_UNREACHABLE' });
    expect(f.seq('unregisterTable', 'deleteMetadata', 'markFailed')).toEqual([
      'unregisterTable db.t',
      'deleteMetadata db.t',
      'markFailed db.t',
    ]);
  });

  it('a view is created as an Iceberg view and read back; its failed read-back drops the view, then our metadata', async () => {
    const ok = new Fakes({ ...world, views: ['db.t'] });
    expect((await runTable(ok)).out).toEqual({ tableId: 'db.t', status: 'migrated' });
    expect(ok.seq()).toEqual(['saveOriginalAndWrite db.t', 'createIcebergView db.t', 'validateIcebergView db.t']);

    const bad = new Fakes(
      { ...world, views: ['db.t'] },
      {
        validateIcebergView: async () => {
          throw coded('VALIDATION_SCHEMA_MISMATCH');
        },
      },
    );
    const { out, status } = await runTable(bad);
    expect(out).toMatchObject({ status: 'failed', code: 'VALIDATION_SCHEMA_MISMATCH' });
    expect(bad.seq()).toEqual([
      'saveOriginalAndWrite db.t',
      'createIcebergView db.t',
      'validateIcebergView db.t',
      'dropIcebergView db.t',
      'deleteMetadata db.t',
      'markFailed db.t',
    ]);
    expect(status).toBe('failed');
  });

  it('a view the catalog cannot hold is skipped with its code (MigrationStatus skipped), nothing undone', async () => {
    const f = new Fakes(
      { ...world, views: ['db.t'] },
      { createIcebergView: async () => ({ created: false, code: 'VIEW_DIALECT_UNSUPPORTED', message: 'no' }) },
    );
    const { out, status } = await runTable(f);
    expect(out).toEqual({ tableId: 'db.t', status: 'skipped', reason: 'VIEW_DIALECT_UNSUPPORTED' });
    expect(f.seq()).toEqual(['saveOriginalAndWrite db.t', 'createIcebergView db.t']);
    expect(status).toBe('skipped');
  });

  it('the rewrite path: one rewrite step; its failure drops the rewritten table only (the metadata-only undo is replaced)', async () => {
    const ok = new Fakes({ ...world, rewrite: ['db.t'] }, { rewriteTable: async () => ({}) as never });
    expect((await runTable(ok)).out).toEqual({ tableId: 'db.t', status: 'migrated' });
    expect(ok.seq()).toEqual(['saveOriginalAndWrite db.t', 'rewriteTable db.t']);

    const bad = new Fakes(
      { ...world, rewrite: ['db.t'] },
      {
        rewriteTable: async () => {
          throw coded('VALIDATION_ROW_COUNT_MISMATCH');
        },
        dropRewrite: async () => ({}) as never,
      },
    );
    expect((await runTable(bad)).out).toMatchObject({ status: 'failed', code: 'VALIDATION_ROW_COUNT_MISMATCH' });
    expect(bad.seq()).toEqual(['saveOriginalAndWrite db.t', 'rewriteTable db.t', 'dropRewrite db.t', 'markFailed db.t']);
  });

  it('cancelled while writing: the write step is cancelled and waited for, then undone; the table ends CANCELLED (MigrationStatus cancelled)', async () => {
    let started!: () => void;
    const writing = new Promise<void>((r) => (started = r));
    let stoppedBeforeUndo = false;
    const f = new Fakes(world, {
      saveOriginalAndWrite: async () => {
        const ctx = Context.current();
        started();
        try {
          for (;;) {
            ctx.heartbeat();
            await ctx.sleep(100);
          }
        } finally {
          // WAIT_CANCELLATION_COMPLETED: no undo may have started while this step still runs.
          stoppedBeforeUndo = f.of('deleteMetadata').length === 0;
        }
      },
    });
    const { out, status } = await withWorker(env, f.activities, async (taskQueue) => {
      const h = await env.client.workflow.start(tableWorkflow, {
        taskQueue,
        workflowId: `table-${++n}`,
        args: [{ planHash: PLAN, tableId: 'db.t', timeouts: { heartbeatSeconds: 2 } }],
      });
      await writing;
      await h.cancel();
      await until(() => f.of('markFailed').length > 0);
      const o = await h.result();
      return { out: o, status: (await h.describe()).typedSearchAttributes.get(SA.status) };
    });
    expect(out).toMatchObject({ status: 'failed', code: 'CANCELLED' });
    expect(f.seq()).toEqual(['saveOriginalAndWrite db.t', 'deleteMetadata db.t', 'markFailed db.t']);
    expect(f.of('markFailed')[0]?.args[1]).toBe('CANCELLED');
    expect(stoppedBeforeUndo).toBe(true);
    expect(status).toBe('cancelled');
  });
});
