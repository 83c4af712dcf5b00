// Per-wave running totals for the wave planner (tables, files, bytes, tables per team) with the
// cap and blast-radius checks, first-fit search and canary choice. Pure; no I/O.
import type { Components, Csr } from './graph';
import type { PlanTable, WaveOptions } from './types';
import { compareIds } from './compare-ids';
import { TableClass } from '../assess/types';

/** What one component (a table, or a cycle of tables) adds to a wave. Tables without a team are not counted per team. */
export interface CompLoad {
  readonly tables: number;
  readonly files: number;
  readonly bytes: number;
  readonly teams: ReadonlyMap<string, number>;
}

interface Load {
  tables: number;
  files: number;
  bytes: number;
  readonly teams: Map<string, number>;
  closed: boolean;
}

export function componentLoad(tables: readonly PlanTable[], members: readonly number[]): CompLoad {
  let files = 0;
  let bytes = 0;
  const teams = new Map<string, number>();
  for (const v of members) {
    const t = tables[v]!;
    files += t.files;
    bytes += t.bytes;
    if (t.team !== null) teams.set(t.team, (teams.get(t.team) ?? 0) + 1);
  }
  return { tables: members.length, files, bytes, teams };
}

/** K% of a team's planned tables, rounded up, at least 1. */
export function teamLimit(pct: number, total: number): number {
  return Math.max(1, Math.ceil((pct * total) / 100));
}

export class WaveLoads {
  private readonly loads: Load[] = [];
  /** Skip list over waves that can take nothing more (table cap reached, or closed): jump[w] > w. */
  private readonly jump: number[] = [];
  private readonly limits = new Map<string, number>();

  constructor(
    private readonly o: WaveOptions,
    tables: readonly PlanTable[],
    comps: Components,
  ) {
    const totals = new Map<string, number>();
    tables.forEach((t, v) => {
      if (t.team !== null && comps.comp[v] !== -1) totals.set(t.team, (totals.get(t.team) ?? 0) + 1);
    });
    for (const [team, total] of totals) this.limits.set(team, teamLimit(o.teamBlastRadiusPct, total));
  }

  /** A component no wave can hold: it exceeds a cap or a team's blast radius by itself. */
  isOversize(l: CompLoad): boolean {
    if (l.tables > this.o.maxTablesPerWave || l.files > this.o.maxFilesPerWave || l.bytes > this.o.maxBytesPerWave) return true;
    for (const [team, n] of l.teams) if (n > (this.limits.get(team) ?? 0)) return true;
    return false;
  }

  fits(w: number, l: CompLoad): boolean {
    const load = this.loads[w];
    if (load === undefined) return !this.isOversize(l);
    if (load.closed) return false;
    if (load.tables + l.tables > this.o.maxTablesPerWave) return false;
    if (load.files + l.files > this.o.maxFilesPerWave || load.bytes + l.bytes > this.o.maxBytesPerWave) return false;
    for (const [team, n] of l.teams) if ((load.teams.get(team) ?? 0) + n > (this.limits.get(team) ?? 0)) return false;
    return true;
  }

  /** Add a component to wave w; `close` keeps every later component out (an oversize component goes alone). */
  add(w: number, l: CompLoad, close: boolean): void {
    let load = this.loads[w];
    if (load === undefined) {
      load = { tables: 0, files: 0, bytes: 0, teams: new Map(), closed: false };
      this.loads[w] = load;
    }
    load.tables += l.tables;
    load.files += l.files;
    load.bytes += l.bytes;
    for (const [team, n] of l.teams) load.teams.set(team, (load.teams.get(team) ?? 0) + n);
    load.closed ||= close;
    if (load.closed || load.tables >= this.o.maxTablesPerWave) this.jump[w] = w + 1;
  }

  /** The first wave ≥ start that takes l (for an oversize component: the first empty, open wave). */
  firstFit(start: number, l: CompLoad, oversize: boolean): number {
    for (let w = this.open(start); ; w = this.open(w + 1)) {
      const load = this.loads[w];
      if (oversize ? load === undefined || (load.tables === 0 && !load.closed) : this.fits(w, l)) return w;
    }
  }

  /** Smallest wave ≥ w not skipped, with path compression. */
  private open(w: number): number {
    let root = w;
    while (this.jump[root] !== undefined) root = this.jump[root]!;
    for (let v = w; v !== root; ) {
      const next = this.jump[v]!;
      this.jump[v] = root;
      v = next;
    }
    return root;
  }
}

/**
 * The canary: small (fewest bytes, then files), low-risk, class `migrate` tables with no
 * planned dependencies, taken round-robin across teams (in team-name order) so the first wave
 * touches as many teams as possible; every pick must fit wave 1's caps and blast radius.
 */
export function pickCanary(
  tables: readonly PlanTable[],
  comps: Components,
  pred: Csr,
  pin: Int32Array,
  canary: NonNullable<WaveOptions['canary']>,
  loads: WaveLoads,
): number[] {
  const groups = new Map<string, number[]>();
  comps.members.forEach((m, c) => {
    const t = tables[m[0]!]!;
    if (m.length !== 1 || pin[c] !== 0 || pred.offsets[c] !== pred.offsets[c + 1]) return;
    if (t.risk !== 'low' || t.class !== TableClass.MIGRATE || t.kind !== 'table') return;
    if (canary.teams && (t.team === null || !canary.teams.includes(t.team))) return;
    const key = t.team ?? '';
    const group = groups.get(key) ?? [];
    group.push(c);
    groups.set(key, group);
  });
  const size = (c: number): PlanTable => tables[comps.members[c]![0]!]!;
  const queues = [...groups.keys()]
    .sort(compareIds)
    .map((k) =>
      groups.get(k)!.sort((a, b) => size(a).bytes - size(b).bytes || size(a).files - size(b).files || compareIds(size(a).id, size(b).id)),
    );
  const picked: number[] = [];
  const cursor = queues.map(() => 0);
  for (let progress = true; progress && picked.length < canary.tables; ) {
    progress = false;
    queues.forEach((q, i) => {
      while (picked.length < canary.tables && cursor[i]! < q.length) {
        const c = q[cursor[i]!++]!;
        const l = componentLoad(tables, comps.members[c]!);
        if (!loads.fits(1, l)) continue;
        loads.add(1, l, false);
        picked.push(c);
        progress = true;
        break;
      }
    });
  }
  return picked;
}
