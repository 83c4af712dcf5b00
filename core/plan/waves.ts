// Wave planner: assigns every planned table a wave so that a table migrates in a LATER wave than
// every table it reads (strictly; a view is never registered in the same wave as its source),
// while a dependency cycle (SCC) goes wholly into one wave. Holds the table/file/byte caps and the
// per-team blast radius, puts a canary first, honours pins. Pure; no I/O; deterministic: tables
// are handled in id order, so input order never changes the result.
import { ErrorCode, MigrationError } from '../errors';
import type { Components, Csr, DependencyGraph } from './graph';
import { condense, cycleFindings, findCycles, stronglyConnected } from './graph';
import { WaveLoads, componentLoad, pickCanary } from './wave-loads';
import type { CompLoad } from './wave-loads';
import type { Finding, NotPlannedReason, PlanTable, TableId, WaveOptions } from './types';
import { FindingCode, NotPlannedReason as Reason, formatPath, parseWaveOptions } from './types';
import { compareIds } from './compare-ids';
import { TableClass } from '../assess/types';

export interface Wave {
  readonly number: number;
  /** Sorted by id. */
  readonly tables: readonly PlanTable[];
}

export interface WavePlan {
  readonly options: WaveOptions;
  /** Non-empty waves by number. Numbers only skip when a pin asks for a later wave. */
  readonly waves: readonly Wave[];
  readonly notPlanned: readonly { readonly id: TableId; readonly reason: NotPlannedReason }[];
  readonly findings: readonly Finding[];
}

function reasonFor(
  t: PlanTable,
  o: WaveOptions,
  excluded: ReadonlySet<TableId>,
  include: RegExp[],
  exclude: RegExp[],
): NotPlannedReason | null {
  if (excluded.has(t.id)) return Reason.EXCLUDED;
  if (o.scope.databases && !o.scope.databases.includes(t.database)) return Reason.OUT_OF_SCOPE;
  if (o.scope.include && !include.some((r) => r.test(t.id))) return Reason.OUT_OF_SCOPE;
  if (exclude.some((r) => r.test(t.id))) return Reason.OUT_OF_SCOPE;
  if (t.class === TableClass.SKIP) return Reason.CLASS_SKIP;
  if (t.class === TableClass.REWRITE_REQUIRED && !(o.rewrite && t.rewritable === true)) return Reason.CLASS_REWRITE_REQUIRED;
  return null;
}

/** Which tables are planned (mask) and why the others are not. */
function select(graph: DependencyGraph, o: WaveOptions): { mask: Uint8Array; notPlanned: WavePlan['notPlanned'] } {
  const excluded = new Set(o.excludes);
  const include = (o.scope.include ?? []).map((s) => new RegExp(s));
  const exclude = (o.scope.exclude ?? []).map((s) => new RegExp(s));
  const mask = new Uint8Array(graph.tables.length);
  const notPlanned: { id: TableId; reason: NotPlannedReason }[] = [];
  graph.tables.forEach((t, i) => {
    const reason = reasonFor(t, o, excluded, include, exclude);
    if (reason === null) mask[i] = 1;
    else notPlanned.push({ id: t.id, reason });
  });
  return { mask, notPlanned };
}

/** Pins and excludes must name known tables; a pinned table must be planned. */
function checkReferences(graph: DependencyGraph, o: WaveOptions, mask: Uint8Array): void {
  o.excludes.forEach((id, i) => {
    if (!graph.index.has(id)) throw unknownTable(formatPath(['excludes', i]), id);
  });
  for (const id of Object.keys(o.pins).sort(compareIds)) {
    const at = graph.index.get(id);
    const path = formatPath(['pins', id]);
    if (at === undefined) throw unknownTable(path, id);
    if (mask[at] === 0)
      throw new MigrationError(
        ErrorCode.PLAN_INVALID,
        `${path}: ${id} is pinned but not planned (excluded, out of scope, skip or rewrite-required)`,
        { paths: [path] },
      );
  }
}

function unknownTable(path: string, id: string): MigrationError {
  return new MigrationError(ErrorCode.PLAN_UNKNOWN_TABLE, `${path}: unknown table ${id}`, { paths: [path], id });
}

interface Bounds {
  /** Pinned wave per component, 0 when unpinned. */
  readonly pin: Int32Array;
  /** Latest wave each component may take (before every pinned dependent), Infinity when free. */
  readonly latest: Float64Array;
}

/** One pin per component: members of a cycle must share a wave. */
function componentPins(graph: DependencyGraph, comps: Components, o: WaveOptions): Int32Array {
  const pin = new Int32Array(comps.members.length);
  const by = new Array<TableId>(comps.members.length);
  for (const id of Object.keys(o.pins).sort(compareIds)) {
    const c = comps.comp[graph.index.get(id)!]!;
    const wave = o.pins[id]!;
    const prior = by[c];
    if (prior !== undefined && pin[c] !== wave) {
      const path = formatPath(['pins', id]);
      throw new MigrationError(
        ErrorCode.PLAN_PIN_CONFLICT,
        `${path}: ${id} (wave ${wave}) and ${prior} (wave ${pin[c]}) are in one dependency cycle and must share a wave`,
        { paths: [path, formatPath(['pins', prior])] },
      );
    }
    pin[c] = wave;
    by[c] = id;
  }
  return pin;
}

/**
 * Deadlines from pins (latest = min over pinned dependents of pin − distance) and the earliest
 * possible wave (1 + longest chain of dependencies, or the pin): when earliest > latest a pin
 * contradicts an edge, which is an error naming the pin.
 */
function pinBounds(graph: DependencyGraph, comps: Components, dag: Csr, o: WaveOptions): Bounds {
  const n = comps.members.length;
  const pin = componentPins(graph, comps, o);
  const latest = new Float64Array(n).fill(Infinity);
  const source = new Int32Array(n).fill(-1);
  for (let c = 0; c < n; c++) {
    if (pin[c]! > 0 && pin[c]! <= latest[c]!) [latest[c], source[c]] = [pin[c]!, c];
    for (let e = dag.offsets[c]!; e < dag.offsets[c + 1]!; e++) {
      const d = dag.targets[e]!;
      if (latest[d]! - 1 < latest[c]!) [latest[c], source[c]] = [latest[d]! - 1, source[d]!];
    }
  }
  const earliest = Int32Array.from(pin, (p) => Math.max(p, 1));
  for (let c = n - 1; c >= 0; c--) {
    if (earliest[c]! > latest[c]!) throw pinConflict(graph, comps, o, c, source[c]!, [earliest[c]!, latest[c]!]);
    for (let e = dag.offsets[c]!; e < dag.offsets[c + 1]!; e++) {
      const d = dag.targets[e]!;
      earliest[d] = Math.max(earliest[d]!, earliest[c]! + 1);
    }
  }
  return { pin, latest };
}

function pinConflict(
  graph: DependencyGraph,
  comps: Components,
  o: WaveOptions,
  c: number,
  src: number,
  [earliest, latest]: [number, number],
): MigrationError {
  const pinnedId = (k: number): TableId => comps.members[k]!.map((v) => graph.tables[v]!.id).find((id) => o.pins[id] !== undefined)!;
  const id = pinnedId(src);
  const path = formatPath(['pins', id]);
  const blocker = graph.tables[comps.members[c]![0]!]!.id;
  const why =
    src === c
      ? `what it reads needs it in wave ${earliest} or later`
      : `it depends on ${blocker}, which would have to migrate by wave ${latest} but cannot before wave ${earliest}`;
  return new MigrationError(ErrorCode.PLAN_PIN_CONFLICT, `${path}: ${id} is pinned to wave ${o.pins[id]} but ${why}`, {
    paths: [path],
    table: id,
    blocker,
  });
}

/** A topological order of components: by longest chain of dependencies, then by smallest table id. */
function placementOrder(comps: Components, dag: Csr): number[] {
  const n = comps.members.length;
  const depth = new Int32Array(n);
  for (let c = n - 1; c >= 0; c--) {
    for (let e = dag.offsets[c]!; e < dag.offsets[c + 1]!; e++) {
      const d = dag.targets[e]!;
      if (depth[d]! < depth[c]! + 1) depth[d] = depth[c]! + 1;
    }
  }
  const order = Array.from({ length: n }, (_, c) => c);
  return order.sort((a, b) => depth[a]! - depth[b]! || comps.members[a]![0]! - comps.members[b]![0]!);
}

interface Placement {
  readonly wave: Int32Array;
  readonly findings: Finding[];
}

/** Place every component: pinned first (reserved), then the canary, then the rest in topological order. */
function place(graph: DependencyGraph, comps: Components, dag: Csr, o: WaveOptions, bounds: Bounds, pred: Csr): Placement {
  const n = comps.members.length;
  const wave = new Int32Array(n);
  const loads = new WaveLoads(o, graph.tables, comps);
  const findings: Finding[] = [];
  const ids = (c: number): TableId[] => comps.members[c]!.map((v) => graph.tables[v]!.id);
  const load = (c: number): CompLoad => componentLoad(graph.tables, comps.members[c]!);
  for (let c = 0; c < n; c++) {
    if (bounds.pin[c] === 0) continue;
    wave[c] = bounds.pin[c]!;
    if (!loads.fits(wave[c]!, load(c))) findings.push(overCap(ids(c), wave[c]!, 'is pinned there'));
    loads.add(wave[c]!, load(c), loads.isOversize(load(c)));
  }
  const canary = o.canary ? pickCanary(graph.tables, comps, pred, bounds.pin, o.canary, loads) : [];
  for (const c of canary) wave[c] = 1;
  if (o.canary && canary.length < o.canary.tables) findings.push(canaryShort(canary.length, o.canary.tables));
  const base = canary.length > 0 ? 2 : 1;
  for (const c of placementOrder(comps, dag)) {
    if (wave[c] !== 0) continue;
    let start = base;
    for (let e = pred.offsets[c]!; e < pred.offsets[c + 1]!; e++) start = Math.max(start, wave[pred.targets[e]!]! + 1);
    const latest = bounds.latest[c]!;
    const l = load(c);
    const oversize = loads.isOversize(l);
    const w = Math.min(loads.firstFit(start, l, oversize), latest);
    if (oversize) findings.push(oversized(ids(c), w));
    if (!oversize && !loads.fits(w, l)) findings.push(overCap(ids(c), w, 'a pinned dependent needs it no later'));
    loads.add(w, l, oversize);
    wave[c] = w;
  }
  return { wave, findings };
}

function overCap(tables: TableId[], wave: number, why: string): Finding {
  return {
    code: FindingCode.PIN_OVER_CAP,
    severity: 'warning',
    message: `wave ${wave} exceeds a cap: ${tables.join(', ')} ${why}`,
    tables,
  };
}

function oversized(tables: TableId[], wave: number): Finding {
  const message = `${tables.length} table(s) that must migrate together exceed a wave cap by themselves; they get wave ${wave} alone`;
  return { code: FindingCode.OVERSIZE_COMPONENT, severity: 'warning', message, tables };
}

function canaryShort(got: number, asked: number): Finding {
  return {
    code: FindingCode.CANARY_SHORT,
    severity: 'info',
    message: `only ${got} of ${asked} canary tables qualified (low risk, class migrate, no dependencies, within caps)`,
    tables: [],
  };
}

/** Planned tables that read unplanned ones: they will read the old Hive table after migrating. */
function unplannedDependencies(graph: DependencyGraph, mask: Uint8Array): Finding[] {
  const out: Finding[] = [];
  graph.tables.forEach((t, v) => {
    if (mask[v] === 0) return;
    const missing: TableId[] = [];
    for (let e = graph.pred.offsets[v]!; e < graph.pred.offsets[v + 1]!; e++) {
      const u = graph.pred.targets[e]!;
      if (mask[u] === 0) missing.push(graph.tables[u]!.id);
    }
    if (missing.length > 0) {
      const message = `${t.id} reads ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not planned`;
      out.push({ code: FindingCode.DEPENDENCY_NOT_PLANNED, severity: 'warning', message, tables: [t.id, ...missing].sort(compareIds) });
    }
  });
  return out;
}

/** Plan waves for a graph. Throws coded errors for bad options, unknown pins/excludes, contradicting pins. */
export function planWaves(graph: DependencyGraph, input: unknown): WavePlan {
  const options = parseWaveOptions(input);
  const { mask, notPlanned } = select(graph, options);
  checkReferences(graph, options, mask);
  const comps = stronglyConnected(graph.succ, mask);
  const dag = condense(graph.succ, comps);
  const pred = condense(graph.pred, comps);
  const bounds = pinBounds(graph, comps, dag, options);
  const placed = place(graph, comps, dag, options, bounds, pred);
  const byWave = new Map<number, PlanTable[]>();
  comps.members.forEach((m, c) => {
    const list = byWave.get(placed.wave[c]!) ?? [];
    for (const v of m) list.push(graph.tables[v]!);
    byWave.set(placed.wave[c]!, list);
  });
  const waves = [...byWave.keys()]
    .sort((a, b) => a - b)
    .map((number) => ({ number, tables: byWave.get(number)!.sort((a, b) => compareIds(a.id, b.id)) }));
  const findings = [...graph.findings, ...cycleFindings(findCycles(graph)), ...unplannedDependencies(graph, mask), ...placed.findings];
  return { options, waves, notPlanned, findings };
}
