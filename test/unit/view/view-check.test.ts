// validateIcebergView's Spark check over a fake engine (no components): equal sides are recorded
// under validation.spark and audited; unequal sides are VIEW_VALIDATION_MISMATCH (non-retryable,
// recorded first); no `rewrite:` section or `viewCheck: false` records why it was skipped; a job that
// fails or refuses its spec is VIEW_CHECK_FAILED. The spec the engine gets names the view's inputs.
import type { OpsDeps } from '../../../ops/context';
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { ViewCheckResult, ViewCheckSpec } from '../../../core/view/check-spec';
import { inv, table } from '../assess/fixture';
import { setup } from './fixture';

const orders = inv(table({ database: 'lb', name: 'orders', sd: { location: 's3a://wh/lb/orders' } }));
const side = { rows: 20, checksum: 'a'.repeat(64) };

function withEngine(run: (spec: ViewCheckSpec) => Promise<ViewCheckResult>, rewrite: Partial<NonNullable<OpsDeps['rewrite']>> | null = {}) {
  const specs: ViewCheckSpec[] = [];
  const extra = {
    hms: { getTables: (db: string, names: string[]) => Promise.resolve(db === 'lb' && names[0] === 'orders' ? [orders] : []) },
    engine: {
      runViewCheckJob: (spec: ViewCheckSpec, _t: string, o: { timeoutMs: number }) => {
        specs.push({ ...spec, timeoutMs: o.timeoutMs } as ViewCheckSpec);
        return run(spec);
      },
    },
    ...(rewrite === null
      ? {}
      : {
          rewrite: {
            command: ['spark-submit'],
            env: {},
            warehouse: 's3://w/rw',
            catalogProperties: { type: 'rest' },
            timeoutMinutes: 3,
            workDir: '/tmp/x',
            ...rewrite,
          },
        }),
  } as unknown as Partial<OpsDeps>;
  const s = setup({ extra });
  return { ...s, specs };
}

const sparkOf = (rec: { validation: unknown }) => (rec.validation as { spark: unknown }).spark;

describe('validateIcebergView runs the view in Spark', () => {
  it('equal sides: recorded under validation.spark and audited in view.validated', async () => {
    const s = withEngine(() => Promise.resolve({ status: 'checked', iceberg: side, hive: side, equal: true, seconds: 4.5 }));
    await s.acts.createIcebergView(s.ref);
    expect(await s.acts.validateIcebergView(s.ref)).toMatchObject({ ok: true });
    const spark = { jobId: s.specs[0]!.jobId, iceberg: side, hive: side, equal: true, seconds: 4.5 };
    expect(sparkOf(s.rec())).toEqual(spark);
    expect((s.rec().validation as { ok: boolean }).ok).toBe(true);
    expect(s.events.map((e) => [e.action, e.details.spark])).toEqual([
      ['view.created', undefined],
      ['view.validated', spark],
    ]);
    expect(s.specs[0]).toMatchObject({
      view: { namespace: 'ice_lb', name: 'v' },
      hiveSql: 'SELECT `orders`.`id` FROM `lb`.`orders`',
      catalog: { name: 'lake', properties: { type: 'rest' } },
      timeoutMs: 180_000,
    });
    expect(s.specs[0]!.inputs.map((i) => [i.kind, i.name])).toEqual([['table', 'lb.orders']]);
  });

  it('unequal sides: VIEW_VALIDATION_MISMATCH, not retryable, recorded and audited first', async () => {
    const other = { rows: 19, checksum: 'b'.repeat(64) };
    const s = withEngine(() => Promise.resolve({ status: 'checked', iceberg: other, hive: side, equal: false, seconds: 1 }));
    await s.acts.createIcebergView(s.ref);
    const err = (await s.acts.validateIcebergView(s.ref).catch((e: unknown) => e)) as MigrationError;
    expect(err).toBeInstanceOf(MigrationError);
    expect([err.code, err.retryable]).toEqual([ErrorCode.VIEW_VALIDATION_MISMATCH, false]);
    expect(err.message).toMatch(/rows 20 → 19, checksum aaaaaaaaaaaa → bbbbbbbbbbbb/);
    expect(sparkOf(s.rec())).toMatchObject({ equal: false, iceberg: other, hive: side });
    expect(s.events.at(-1)).toMatchObject({ action: 'view.validated', details: { ok: false } });
  });

  it.each([
    ['no rewrite: section', null, 'no spark-submit configured'],
    ['viewCheck: false', { viewCheck: false }, 'turned off (rewrite.viewCheck: false)'],
  ])('%s: the check is skipped and says why; the engine is not called', async (_what, rewrite, why) => {
    const s = withEngine(() => Promise.reject(new Error('must not run')), rewrite);
    await s.acts.createIcebergView(s.ref);
    expect(await s.acts.validateIcebergView(s.ref)).toMatchObject({ ok: true });
    expect(sparkOf(s.rec())).toEqual({ skipped: why });
    expect(s.events.at(-1)?.details.spark).toEqual({ skipped: why });
    expect(s.specs).toEqual([]);
  });

  it('a job that fails keeps its coded error; a refused spec is VIEW_CHECK_FAILED, not retryable', async () => {
    const boom = new MigrationError(ErrorCode.VIEW_CHECK_FAILED, 'lb.v: view check job x exited 1 without a result', {});
    const s = withEngine(() => Promise.reject(boom));
    await s.acts.createIcebergView(s.ref);
    await expect(s.acts.validateIcebergView(s.ref)).rejects.toBe(boom);
    expect(s.events.map((e) => e.action)).toEqual(['view.created']);
    const r = withEngine(() => Promise.resolve({ status: 'bad-spec', error: 'spec version 2 is not 1' }));
    await r.acts.createIcebergView(r.ref);
    await expect(r.acts.validateIcebergView(r.ref)).rejects.toMatchObject({
      code: ErrorCode.VIEW_CHECK_FAILED,
      retryable: false,
      message: expect.stringContaining('refused its spec: spec version 2 is not 1'),
    });
  });
});
