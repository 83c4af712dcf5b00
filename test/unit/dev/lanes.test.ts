// The stack's bounded lanes (dev/stack/lanes.ts): at most `width` jobs at once, dependencies first,
// one job per group at a time, the first failure stops new starts and is thrown; and the install
// jobs made from the real manifest (Go builds first, one at a time, back to back).
import { laneWidth, runLanes, type LaneJob } from '../../../dev/stack/lanes';
import { createContext, startOrder } from '../../../dev/stack/manifest';
import { installJobs } from '../../../dev/stack/stack';

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

describe('the stack install jobs (dev/stack/stack.ts installJobs)', () => {
  const ctx = createContext(process.env, true);
  const jobs = installJobs(ctx, startOrder(ctx.manifest));
  const go = ['s3', 'temporal', 'temporal-tls', 'toxiproxy'];

  it('puts every Go build first, in the one group that runs one at a time (the TLS proxy from the repo too)', () => {
    const names = jobs.map((j) => j.name.replace(/^install:/, ''));
    expect(new Set(names.slice(0, go.length))).toEqual(new Set(go));
    expect(jobs.filter((j) => j.group === 'go').map((j) => j.name.replace(/^install:/, ''))).toEqual(names.slice(0, go.length));
    expect(names.length).toBeGreaterThan(go.length);
  });

  it('gives a lane freed by a Go build to the next Go build, before any other install waiting', async () => {
    const r = recorder();
    // Go builds take 30 ms, the rest 5 ms: with 3 lanes, the next Go build starts as the one before ends.
    await runLanes(
      jobs.map((j) => r.job(j.name, { group: j.group, ms: j.group === 'go' ? 30 : 5 })),
      3,
    );
    const goStarts = r.events.filter((e) => e.startsWith('start ') && go.includes(e.slice('start install:'.length)));
    for (let i = 1; i < goStarts.length; i++) {
      const prevEnd = r.events.findIndex((e) => e === `end ${(goStarts[i - 1] as string).slice('start '.length)}`);
      expect(r.events[prevEnd + 1]).toBe(goStarts[i]);
    }
    expect(goStarts).toHaveLength(go.length);
  });
});
