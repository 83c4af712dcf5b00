// Plan file version 2: the pinned target (pinnedTarget from config, targetMismatch against a
// worker's config) and the upgrade of a recorded version 1 plan (target null = not pinned).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configSchema } from '../../../core/config/schema';
import { parsePlan, planHash, serializePlan } from '../../../core/plan/plan-file';
import { pinnedTarget, targetConfigOf, targetMismatch } from '../../../core/plan/target';
import type { PlanTarget, TargetConfig } from '../../../core/plan/target';
import { CURRENT_PLAN_VERSION } from '../../../core/plan/upgrade';
import { TARGET, errorOf, makePlan } from './plan-input-helpers';

const V1 = readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'plans', 'v1-plan.json'), 'utf8');
const rest = { catalogName: 'lake', type: 'rest', namespacePrefix: 'mig_' };

describe('pinned target', () => {
  it('is taken from the catalog section with defaults filled: hive mode register, prefix ""', () => {
    const hive = configSchema.parse({ catalog: { name: 'hms2', type: 'hive', uri: 'thrift://h:9083' } });
    expect(pinnedTarget(hive)).toEqual({ catalog: 'hms2', type: 'hive', mode: 'register', namespacePrefix: '' });
    const r = configSchema.parse({ catalog: { name: 'lake', type: 'rest', uri: 'http://c:8181', namespacePrefix: 'mig_' } });
    expect(pinnedTarget(r)).toEqual(TARGET);
    expect(pinnedTarget(configSchema.parse({}))).toBeNull();
  });

  it('is written into the plan, covered by the hash, and read back', () => {
    const p = makePlan();
    expect(p.version).toBe(3);
    expect(parsePlan(serializePlan(p)).target).toEqual(TARGET);
    const doc = JSON.parse(serializePlan(p)) as Record<string, unknown>;
    const edited = { ...doc, target: { ...TARGET, namespacePrefix: 'other_' } };
    expect(errorOf(() => parsePlan(JSON.stringify(edited))).code).toBe('PLAN_HASH_MISMATCH');
  });

  it.each<[string, TargetConfig, RegExp | null, PlanTarget?]>([
    ['the same config', rest, null],
    [
      'the same config written with defaults left out',
      { catalogName: 'h', type: 'hive' },
      null,
      { catalog: 'h', type: 'hive', mode: 'register', namespacePrefix: '' },
    ],
    ['another namespace prefix', { ...rest, namespacePrefix: 'x_' }, /namespacePrefix: plan "mig_", worker "x_"/],
    ['no namespace prefix', { catalogName: 'lake', type: 'rest' }, /namespacePrefix: plan "mig_", worker ""/],
    ['another catalog name', { ...rest, catalogName: 'lake2' }, /catalog: plan "lake", worker "lake2"/],
    ['another catalog type', { ...rest, type: 'hive' }, /type: plan "rest", worker "hive"; mode: plan null, worker "register"/],
    [
      'another hive mode',
      { catalogName: 'h', type: 'hive', mode: 'in-place' },
      /mode: plan "register", worker "in-place"/,
      { catalog: 'h', type: 'hive', mode: 'register', namespacePrefix: '' },
    ],
  ])('targetMismatch with %s', (_what, worker, expected, pinned = TARGET) => {
    const got = targetMismatch({ target: pinned }, worker);
    if (expected === null) expect(got).toBeNull();
    else expect(got).toMatch(expected);
  });

  it('lets any worker act on an unpinned plan (null or absent target), and no worker without a catalog act on a pinned one', () => {
    expect(targetMismatch({ target: null }, rest)).toBeNull();
    expect(targetMismatch({}, undefined)).toBeNull();
    expect(targetMismatch({ target: TARGET }, undefined)).toMatch(/no catalog configured/);
    expect(
      targetMismatch(
        { target: TARGET },
        targetConfigOf(configSchema.parse({ catalog: { name: 'lake', type: 'rest', uri: 'http://c', namespacePrefix: 'mig_' } })),
      ),
    ).toBeNull();
  });
});

describe('plan version 1 → 2 (→ 3)', () => {
  it('reads a recorded version 1 plan: same hash, same waves, target null (not pinned)', () => {
    expect(CURRENT_PLAN_VERSION).toBe(3);
    const v1 = JSON.parse(V1) as Record<string, unknown>;
    const p = parsePlan(V1);
    expect([p.version, p.target, p.hash, p.signature]).toEqual([3, null, v1['hash'], undefined]);
    expect(p.waves.map((w) => w.tables.map((t) => t.id))).toEqual([['sales.orders'], ['sales.v_orders']]);
    expect(targetMismatch(p, { catalogName: 'anything', type: 'hive' })).toBeNull();
  });

  it('still detects an edit of a version 1 plan', () => {
    expect(errorOf(() => parsePlan(V1.replace('"files":12', '"files":13'))).code).toBe('PLAN_HASH_MISMATCH');
  });

  it.each(['target', 'signature'])('refuses a version 1 document carrying %s (members v1 never had)', (key) => {
    const v1 = JSON.parse(V1) as Record<string, unknown>;
    const doc = { ...v1, [key]: { catalog: 'lake' } };
    const e = errorOf(() => parsePlan(JSON.stringify({ ...doc, hash: planHash(doc) })));
    expect([e.code, e.context['paths']]).toEqual(['PLAN_INVALID', [key]]);
  });
});
