// The Temporal UI list's rendered text (dev/tools/ui-screenshot.ts) read back as workflow id →
// MigrationStatus: only the rows, whatever else the page says.
import { listedStatuses } from '../../../dev/tools/ui-screenshot';

const PAGE = [
  'Workflows',
  '7',
  'Workflows',
  'MigrationPlan =',
  '"73076c21395d"',
  '\t\tStatus\tWorkflow ID\tMigrationStatus\tMigrationTable\tMigrationWave\tMigrationTeam\tType',
  'Select Workflow migrate&#x2F;73076c21395d',
  '\t',
  'Completed',
  '\tmigrate/73076c21395d\tfailed\t\t1\thim-seed\tmigrationWorkflow',
  'Completed',
  '\tmigrate/73076c21395d/wave-1/db.orders\tsucceeded\tdb.orders\t1\tpayments\ttableWorkflow',
  'Running',
  '\tmigrate/73076c21395d/wave-2\trunning\t\t2\tpayments\twaveWorkflow',
  'Per Page',
  '1–7',
].join('\n');

describe('listedStatuses', () => {
  it('reads each row of the list: id → MigrationStatus; the header and other text are not rows', () => {
    expect(listedStatuses(PAGE)).toEqual({
      'migrate/73076c21395d': 'failed',
      'migrate/73076c21395d/wave-1/db.orders': 'succeeded',
      'migrate/73076c21395d/wave-2': 'running',
    });
  });

  it('an empty list has no rows', () => {
    expect(listedStatuses('0\nWorkflows\nNo Workflows running in this Namespace')).toEqual({});
  });
});
