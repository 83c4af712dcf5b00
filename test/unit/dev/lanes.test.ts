// The stack's bounded lanes (dev/stack/lanes.ts): at most `width` jobs at once, dependencies first,
// one job per group at a time, the first failure stops new starts and is thrown.
import { laneWidth, runLanes, type LaneJob } from '../../../dev/stack/lanes';

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function recorder(): {
  events: string[];
  job: (name: string, opts?: Partial<LaneJob> & { ms?: number; fail?: boolean }) => LaneJob;
  peak: () => number;
} {
  const events: string[] = [];
  let running = 0;
  let peak = 0;
  return {
    events,
    peak: () => peak,
    job: (name, opts = {}) => ({
      name,
      after: opts.after ?? [],
      group: opts.group,
      run: async () => {
        running++;
        peak = Math.max(peak, running);
        events.push(`start ${name}`);
        await tick(opts.ms ?? 10);
        running--;
        events.push(`end ${name}`);
        if (opts.fail) throw new Error(`${name} failed`);
      },
    }),
  };
}

describe('runLanes', () => {
  it('runs at most width jobs at once and all of them', async () => {
    const r = recorder();
    await runLanes(
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => r.job(n)),
      3,
    );
    expect(r.peak()).toBe(3);
    expect(r.events.filter((e) => e.startsWith('end'))).toHaveLength(7);
  });

  it('starts a job only after the jobs it names in after', async () => {
    const r = recorder();
    await runLanes([r.job('hms', { after: ['pg', 's3'] }), r.job('pg', { ms: 30 }), r.job('s3', { ms: 5 })], 3);
    const at = (e: string): number => r.events.indexOf(e);
    expect(at('start hms')).toBeGreaterThan(at('end pg'));
    expect(at('start hms')).toBeGreaterThan(at('end s3'));
  });

  it('never runs two jobs of one group together, while others overlap them', async () => {
    const r = recorder();
    await runLanes([r.job('go1', { group: 'go', ms: 20 }), r.job('go2', { group: 'go', ms: 20 }), r.job('mvn', { ms: 30 })], 3);
    expect(r.events.indexOf('start go2')).toBeGreaterThan(r.events.indexOf('end go1'));
    expect(r.events.indexOf('start mvn')).toBeLessThan(r.events.indexOf('end go1'));
  });

  it('throws the first failure and starts nothing after it', async () => {
    const r = recorder();
    await expect(
      runLanes([r.job('bad', { fail: true, ms: 5 }), r.job('slow', { ms: 30 }), r.job('later', { after: ['slow'] })], 2),
    ).rejects.toThrow('bad failed');
    expect(r.events).toContain('end slow');
    expect(r.events).not.toContain('start later');
  });

  it('refuses jobs that can never run (a cycle)', async () => {
    const r = recorder();
    await expect(runLanes([r.job('x', { after: ['y'] }), r.job('y', { after: ['x'] })], 3)).rejects.toThrow(/cannot order x, y/);
  });
});

describe('laneWidth', () => {
  it('defaults to 3 and takes HIM_STACK_JOBS 1..16 only', () => {
    expect(laneWidth({})).toBe(3);
    expect(laneWidth({ HIM_STACK_JOBS: '1' })).toBe(1);
    expect(() => laneWidth({ HIM_STACK_JOBS: '0' })).toThrow(/HIM_STACK_JOBS/);
    expect(() => laneWidth({ HIM_STACK_JOBS: 'many' })).toThrow(/HIM_STACK_JOBS/);
  });
});
