// The table status state machine (core/state/status.ts): the forward path apply records, and the
// statuses off it (skipped, failed, rolled back) that have reached no forward step.
import type { TableStatus } from '../../../core/state/store';
import { CUTOVER_STEPS, FORWARD_STEPS, inFlight, isLive, nextCutoverStep, nextStep, reached } from '../../../core/state/status';

const OFF_PATH: TableStatus[] = ['skipped', 'failed', 'rolled-back'];

describe('table status', () => {
  it('orders the forward steps as apply records them', () => {
    expect(FORWARD_STEPS).toEqual(['pending', 'original-saved', 'written', 'registered', 'migrated']);
  });

  it('a record has reached its own step and every earlier one, none later', () => {
    expect(reached('written', 'pending')).toBe(true);
    expect(reached('written', 'original-saved')).toBe(true);
    expect(reached('written', 'written')).toBe(true);
    expect(reached('written', 'registered')).toBe(false);
    expect(reached('migrated', 'registered')).toBe(true);
    expect(reached('pending', 'original-saved')).toBe(false);
  });

  it.each(OFF_PATH)('%s has reached no forward step (a retry must not skip one)', (s) => {
    for (const step of FORWARD_STEPS) expect(reached(s, step)).toBe(false);
  });

  it('walks the forward path one step at a time, ending at migrated', () => {
    const path: TableStatus[] = ['pending'];
    for (let s = nextStep('pending'); s !== null; s = nextStep(s)) path.push(s);
    expect(path).toEqual([...FORWARD_STEPS]);
    for (const s of OFF_PATH) expect(nextStep(s)).toBeNull();
  });

  it('in flight: an original saved and not yet migrated', () => {
    const all: TableStatus[] = [...FORWARD_STEPS, ...OFF_PATH];
    expect(all.filter(inFlight)).toEqual(['original-saved', 'written', 'registered']);
  });

  it('cutover: migrated → fenced → cutover, each past every forward step; the forward path still ends at migrated', () => {
    expect(CUTOVER_STEPS).toEqual(['migrated', 'fenced', 'cutover']);
    const path: TableStatus[] = ['migrated'];
    for (let s = nextCutoverStep('migrated'); s !== null; s = nextCutoverStep(s)) path.push(s);
    expect(path).toEqual([...CUTOVER_STEPS]);
    for (const s of ['fenced', 'cutover'] as const) {
      for (const step of FORWARD_STEPS) expect(reached(s, step)).toBe(true);
      expect(nextStep(s)).toBeNull();
      expect(inFlight(s)).toBe(false);
    }
    expect(reached('fenced', 'cutover')).toBe(false);
    expect(reached('cutover', 'fenced')).toBe(true);
    expect(reached('migrated', 'fenced')).toBe(false);
    for (const s of [...OFF_PATH, 'pending', 'registered'] as TableStatus[]) expect(nextCutoverStep(s)).toBeNull();
  });

  it('live (what sync, validation and rollback cover): migrated, fenced, cut over', () => {
    const all: TableStatus[] = [...FORWARD_STEPS, 'fenced', 'cutover', ...OFF_PATH];
    expect(all.filter(isLive)).toEqual(['migrated', 'fenced', 'cutover']);
  });
});
