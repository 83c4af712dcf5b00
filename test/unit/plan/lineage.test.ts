// Lineage schema (the caller has parsed the YAML): path-precise LINEAGE_INVALID errors, and edges.
import { lineageEdges, parseLineage } from '../../../core/plan/lineage';
import { errorOf } from '../../helpers/errors';

describe('lineage', () => {
  it('turns every read of a job into a dependency of every write, lower-cased, deduplicated, sorted', () => {
    const doc = {
      version: 1,
      jobs: [
        { name: 'daily', reads: ['Raw.Events', 'raw.users'], writes: ['mart.daily', 'mart.users'] },
        { name: 'merge', reads: ['mart.daily', 'raw.events'], writes: ['mart.daily'] },
      ],
    };
    expect(lineageEdges(parseLineage(doc))).toEqual([
      { from: 'raw.events', to: 'mart.daily', reason: 'lineage' },
      { from: 'raw.events', to: 'mart.users', reason: 'lineage' },
      { from: 'raw.users', to: 'mart.daily', reason: 'lineage' },
      { from: 'raw.users', to: 'mart.users', reason: 'lineage' },
    ]);
  });

  it.each([
    [
      {
        version: 1,
        jobs: [
          { name: 'a', reads: [], writes: [] },
          { name: 'b', reads: [], writes: [] },
          { name: 'c', reads: [], writes: [] },
          { name: 'd', reads: ['events'], writes: ['x.y'] },
        ],
      },
      'jobs[3].reads[0]: expected db.table',
    ],
    [{ version: 1, jobs: [{ name: 'a', reads: ['a.b'], writes: ['a.b.c'] }] }, 'jobs[0].writes[0]: expected db.table'],
    [{ version: 1, jobs: [{ name: '', reads: [], writes: [] }] }, 'jobs[0].name: '],
    [{ version: 1, jobs: [{ name: 'a', reads: 'x.y', writes: [] }] }, 'jobs[0].reads: '],
    [{ version: 1, jobs: [{ name: 'a', reads: [], writes: [], owner: 'me' }] }, 'jobs[0]: '],
    [{ version: 2, jobs: [] }, 'version: '],
    [{ jobs: [] }, 'version: '],
    ['jobs: []', '(root): '],
    [null, '(root): '],
  ])('refuses %j at the exact path', (doc, expected) => {
    const e = errorOf(() => parseLineage(doc));
    expect(e.code).toBe('LINEAGE_INVALID');
    expect(e.message).toContain(`\n${expected}`);
  });

  it('names every failing path at once', () => {
    const e = errorOf(() => parseLineage({ version: 1, jobs: [{ name: 'a', reads: ['x'], writes: [7] }] }));
    expect(e.context['paths']).toEqual(['jobs[0].reads[0]', 'jobs[0].writes[0]']);
  });
});
