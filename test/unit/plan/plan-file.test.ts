// Plan file: build → serialize → parse round trip, canonical form, tamper detection, version
// handling and the upgrade chain, schema errors with paths; version 3's per-table pins (covered by
// the hash) and a recorded version 2 plan read as unpinned.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson, sha256Hex } from '../../../core/hash';
import { buildGraph } from '../../../core/plan/graph';
import { buildPlan, parsePlan, planHash, serializePlan } from '../../../core/plan/plan-file';
import type { PlanFile } from '../../../core/plan/plan-file';
import { upgradePlanDocument } from '../../../core/plan/upgrade';
import { planWaves } from '../../../core/plan/waves';
import { conversionPin } from '../../../core/plan/pin';
import { plannedPartitions } from '../../../core/plan/partition-set';
import { baseOptions, edge, table } from './fixtures';
import { inv, partition, table as hiveTable } from '../assess/fixture';
import { errorOf } from '../../helpers/errors';

const header = {
  createdAt: '2025-03-01T12:00:00.000Z',
  toolVersion: '0.1.0',
  source: { uri: 'thrift://hms:9083', label: 'prod' },
  targetCatalog: 'lake',
  throughput: { filesPerSecond: 100, bytesPerSecond: 1e6, perTableOverheadSeconds: 1.5 },
};

const make = (): PlanFile =>
  buildPlan(
    header,
    planWaves(
      buildGraph(
        [table('s.a', { files: 150, bytes: 2e6 }), table('s.v', { kind: 'view', files: 0, bytes: 0 }), table('s.gone', { class: 'skip' })],
        [edge('s.a', 's.v'), edge('s.a', 'x.unknown')],
      ),
      baseOptions,
    ),
  );

describe('plan file', () => {
  it('carries waves with table entries and estimates, notPlanned and findings', () => {
    const p = make();
    expect(p.waves).toEqual([
      {
        number: 1,
        tables: [{ id: 's.a', team: 'data', class: 'migrate', fingerprint: 'fp-s.a', files: 150, bytes: 2e6, pin: null, partitions: null }],
        estimates: { files: 150, bytes: 2e6, expectedSeconds: 5 },
      },
      {
        number: 2,
        tables: [{ id: 's.v', team: 'data', class: 'migrate', fingerprint: 'fp-s.v', files: 0, bytes: 0, pin: null, partitions: null }],
        estimates: { files: 0, bytes: 0, expectedSeconds: 2 },
      },
    ]);
    expect(p.notPlanned).toEqual([{ id: 's.gone', reason: 'CLASS_SKIP' }]);
    expect(p.findings.map((f) => f.code)).toEqual(['UNKNOWN_EDGE_ENDPOINT']);
    expect(p.options).toMatchObject({ canary: null, teamBlastRadiusPct: 100, pins: {}, excludes: [] });
  });

  it('serializes canonically with hash = sha256(canonical JSON without hash), and parses back', () => {
    const p = make();
    const text = serializePlan(p);
    const { hash, ...rest } = JSON.parse(text) as PlanFile;
    expect(text).toBe(canonicalJson(JSON.parse(text)));
    expect(hash).toBe(sha256Hex(canonicalJson(rest)));
    expect(hash).toBe(p.hash);
    expect(parsePlan(text)).toEqual(p);
    expect(serializePlan(parsePlan(text))).toBe(text);
  });

  it('refuses a tampered plan with PLAN_HASH_MISMATCH', () => {
    const text = serializePlan(make());
    const e = errorOf(() => parsePlan(text.replace('"number":2', '"number":3')));
    expect([e.code, e.context['paths']]).toEqual(['PLAN_HASH_MISMATCH', ['hash']]);
    const reformatted = JSON.stringify(JSON.parse(text), null, 2);
    expect(parsePlan(reformatted).hash).toBe(make().hash);
  });

  it('refuses future, missing and nonsense versions with PLAN_VERSION_UNSUPPORTED', () => {
    const doc = JSON.parse(serializePlan(make())) as Record<string, unknown>;
    for (const version of [4, 0, '2', undefined]) {
      const e = errorOf(() => parsePlan(JSON.stringify({ ...doc, version })));
      expect([e.code, e.context['paths']]).toEqual(['PLAN_VERSION_UNSUPPORTED', ['version']]);
    }
  });

  it('refuses non-JSON, non-objects and schema violations with PLAN_INVALID and paths', () => {
    expect(errorOf(() => parsePlan('{nope')).code).toBe('PLAN_INVALID');
    expect(errorOf(() => parsePlan('[1]')).code).toBe('PLAN_INVALID');
    const doc = JSON.parse(serializePlan(make())) as PlanFile;
    const bad = { ...doc, waves: [{ ...doc.waves[0]!, tables: [{ ...doc.waves[0]!.tables[0]!, files: -1 }] }], extra: 1 };
    const e = errorOf(() => parsePlan(JSON.stringify({ ...bad, hash: planHash(bad) })));
    expect(e.code).toBe('PLAN_INVALID');
    expect(e.context['paths']).toEqual(['waves[0].tables[0].files', '(root)']);
  });

  it('runs the upgrade chain step by step and refuses gaps', () => {
    const chain = {
      1: (d: Record<string, unknown>) => ({ ...d, version: 2, a: 1 }),
      2: (d: Record<string, unknown>) => ({ ...d, version: 3, b: 2 }),
    };
    expect(upgradePlanDocument({ version: 1 }, chain, 3)).toEqual({ version: 3, a: 1, b: 2 });
    expect(upgradePlanDocument({ version: 2 }, chain, 3)).toEqual({ version: 3, b: 2 });
    expect(errorOf(() => upgradePlanDocument({ version: 1 }, { 1: chain[1] }, 3)).message).toMatch(/no upgrade from plan version 2/);
    expect(errorOf(() => upgradePlanDocument({ version: 1 }, { 1: (d) => d }, 2)).message).toMatch(/produced version 1/);
  });
});

const V2 = readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'plans', 'v2-plan.json'), 'utf8');
const hive = inv(hiveTable({ partitionKeys: [{ name: 'dt', type: 'string', comment: null }] }), [partition('dt=1'), partition('dt=2')]);

const pinned = (): PlanFile =>
  buildPlan(
    header,
    planWaves(
      buildGraph([table('s.a', { files: 2, bytes: 200, pin: conversionPin(hive), partitions: plannedPartitions(hive) })], []),
      baseOptions,
    ),
  );

describe('plan version 3: conversion pins', () => {
  it('carries each table’s pin and partition summary, round-trips, and the hash covers them', () => {
    const p = pinned();
    expect(p.version).toBe(3);
    const entry = p.waves[0]!.tables[0]!;
    expect(entry.pin).toEqual(conversionPin(hive));
    expect(entry.partitions).toMatchObject({ count: 2 });
    const text = serializePlan(p);
    expect(parsePlan(text)).toEqual(p);
    // An edit of a pinned column type (to make a changed table pass) is detected.
    const edited = text.replace('"type":"bigint"', '"type":"int"');
    expect(edited).not.toBe(text);
    expect(errorOf(() => parsePlan(edited)).code).toBe('PLAN_HASH_MISMATCH');
    const e = errorOf(() => parsePlan(text.replace('"newestCreateTime":0', '"newestCreateTime":9')));
    expect(e.code).toBe('PLAN_HASH_MISMATCH');
  });

  it('refuses a version 3 entry without a pin member, or with a malformed one (PLAN_INVALID with the path)', () => {
    const doc = JSON.parse(serializePlan(pinned())) as PlanFile;
    const t0 = doc.waves[0]!.tables[0]!;
    const { pin: _pin, ...noPin } = t0;
    for (const [bad, where] of [
      [noPin, 'waves[0].tables[0].pin'],
      [{ ...t0, pin: { ...t0.pin, columns: 'id' } }, 'waves[0].tables[0].pin.columns'],
    ] as const) {
      const d = { ...doc, waves: [{ ...doc.waves[0]!, tables: [bad] }] };
      const err = errorOf(() => parsePlan(JSON.stringify({ ...d, hash: planHash(d as never) })));
      expect([err.code, err.context['paths']]).toEqual(['PLAN_INVALID', [where]]);
    }
  });

  it('reads a recorded version 2 plan: same hash and target, every table unpinned (pin and partitions null)', () => {
    const v2 = JSON.parse(V2) as Record<string, unknown>;
    const p = parsePlan(V2);
    expect([p.version, p.hash, p.target?.catalog]).toEqual([3, v2['hash'], 'lake']);
    expect(p.waves.flatMap((w) => w.tables.map((t) => [t.id, t.fingerprint, t.pin, t.partitions]))).toEqual([
      ['sales.orders', 'fp-sales.orders', null, null],
      ['sales.v_orders', 'fp-sales.v_orders', null, null],
    ]);
    expect(errorOf(() => parsePlan(V2.replace('"files":12', '"files":13'))).code).toBe('PLAN_HASH_MISMATCH');
  });

  it('refuses a version 2 document whose table carries a pin (a member version 2 never had)', () => {
    const v2 = JSON.parse(V2) as { waves: { tables: object[] }[] } & Record<string, unknown>;
    const w0 = v2.waves[0]!;
    const doc = { ...v2, waves: [{ ...w0, tables: [{ ...w0.tables[0], pin: conversionPin(hive) }] }, ...v2.waves.slice(1)] };
    const e = errorOf(() => parsePlan(JSON.stringify({ ...doc, hash: planHash(doc) })));
    expect([e.code, e.context['paths']]).toEqual(['PLAN_INVALID', ['waves[0].tables[0].pin']]);
  });
});
