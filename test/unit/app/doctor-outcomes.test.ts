// How doctor turns one Temporal probe into checks (app/doctor/doctor.ts temporalOutcomes): the cases the
// stack cannot show cheaply — an attribute registered with the wrong type, workers of one role only.
// The probe itself is proven against the stack in test/e2e/doctor-checks.test.ts.
import { SEARCH_ATTRIBUTES, temporalOutcomes } from '../../../app/doctor/doctor';

const t = { address: 'temporal:7233', namespace: 'ns', taskQueue: 'q' };
const probe = { latencyMs: 3, version: '1.29.1', missingAttributes: [], wrongTypes: [], pollers: { workflow: 1, activity: 1 } };

describe('doctor: Temporal outcomes', () => {
  it('the attributes doctor asks for are the five the workflows set, with their types', () => {
    expect(SEARCH_ATTRIBUTES).toEqual([
      { name: 'MigrationPlan', type: 'KEYWORD' },
      { name: 'MigrationWave', type: 'INT' },
      { name: 'MigrationTeam', type: 'KEYWORD_LIST' },
      { name: 'MigrationStatus', type: 'KEYWORD' },
      { name: 'MigrationTable', type: 'KEYWORD' },
    ]);
  });

  it('all registered and both task types polled: three ok checks', () => {
    const out = temporalOutcomes(probe, t, 'temporal');
    expect(out.map((o) => [o.check, o.status ?? 'ok'])).toEqual([
      ['reachable', 'ok'],
      ['search attributes', 'ok'],
      ['workers', 'ok'],
    ]);
  });

  it('a wrong type fails the attributes check and says which; a missing one gets its create flags', () => {
    const out = temporalOutcomes(
      { ...probe, missingAttributes: ['MigrationTeam'], wrongTypes: ['MigrationWave: has KEYWORD, needs INT'] },
      t,
      'temporal',
    );
    const sa = out.find((o) => o.check === 'search attributes');
    expect(sa).toMatchObject({ status: 'fail', code: 'TEMPORAL_SEARCH_ATTRIBUTES_MISSING' });
    expect(sa?.detail).toBe('namespace ns: MigrationTeam missing; MigrationWave: has KEYWORD, needs INT');
    expect(sa?.remedy).toContain('--namespace ns --name MigrationTeam --type KeywordList');
    expect(sa?.remedy).not.toContain('--name MigrationWave');
  });

  it('a namespace registered before MigrationTable existed: only that one is missing, and the remedy creates only it', () => {
    const sa = temporalOutcomes({ ...probe, missingAttributes: ['MigrationTable'] }, t, 'temporal').find(
      (o) => o.check === 'search attributes',
    );
    expect([sa?.status, sa?.detail]).toEqual(['fail', 'namespace ns: MigrationTable missing']);
    expect(sa?.remedy).toContain('--namespace ns --name MigrationTable --type Keyword (');
  });

  it('workflow workers but no activity worker: a warning naming the missing role', () => {
    const w = temporalOutcomes({ ...probe, pollers: { workflow: 2, activity: 0 } }, t, 'temporal').find((o) => o.check === 'workers');
    expect(w).toMatchObject({
      status: 'warn',
      code: 'TEMPORAL_NO_WORKER',
      detail: 'task queue q: no activity poller (2 workflow, 0 activity)',
    });
  });
});
