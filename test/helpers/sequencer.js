// Jest's test sequencer with the `slow` lines of test/schedule.txt first, in their order: on a fresh
// clone jest has no timings of earlier runs and orders suites by file size, so a long suite could
// start last and become the parallel batch's tail. Every other suite keeps jest's own order.
const { readFileSync } = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const root = path.resolve(__dirname, '..', '..');
const slow = readFileSync(path.join(root, 'test', 'schedule.txt'), 'utf8')
  .split('\n')
  .map((l) => l.replace(/#.*/, '').trim().split(/\s+/))
  .filter(([kind, file]) => kind === 'slow' && file !== undefined)
  .map(([, file]) => path.join(root, file));
const rank = new Map(slow.map((f, i) => [f, i]));

class ScheduleSequencer extends Sequencer {
  async sort(tests) {
    const own = await super.sort(tests);
    const first = own.filter((t) => rank.has(t.path)).sort((a, b) => rank.get(a.path) - rank.get(b.path));
    return [...first, ...own.filter((t) => !rank.has(t.path))];
  }
}

module.exports = ScheduleSequencer;
