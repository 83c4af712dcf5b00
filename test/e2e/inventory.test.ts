// `migrate inventory` end to end: the real CLI binary against the stack's HMS (hms-pg, as the
// stack's migrate.yaml names it), over Thrift and over the backing database, on a database of
// our own (the fixture of the hms-thrift tests: 5 tables, 4 partitions).
import path from 'node:path';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import type { Run } from '../helpers/cli';
import { MIGRATE, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import { createFixture, dropFixture, fixture } from '../adapters/hms-thrift/fixture';

const env = testStack();
const cfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const f = fixture(uniqueName('him_inv'));
const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });

const migrate = (args: string[]): Promise<Run> => run(MIGRATE, args);

const expected = {
  name: f.db.name,
  tables: 5,
  partitions: 4,
  byKind: { EXTERNAL_TABLE: 3, MANAGED_TABLE: 1, VIRTUAL_VIEW: 1 },
  byFormat: { parquet: 1, orc: 1, text: 2 },
};

describe('migrate inventory', () => {
  beforeAll(async () => {
    await createFixture(writer, f);
  });
  afterAll(async () => {
    await dropFixture(writer, f);
    await writer.close();
  });

  it('--json over Thrift: our database with its counts, exit 0', async () => {
    const r = await migrate(['inventory', '--config', cfg, '--json', '--database', f.db.name]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      ok: boolean;
      source: string;
      databases: unknown[];
      totals: { tables: number };
      calls: Record<string, { calls: number }>;
    };
    expect(out).toMatchObject({ ok: true, source: 'thrift', databases: [expected], totals: { tables: 5, partitions: 4 } });
    expect(out.calls.get_table_objects_by_name_req?.calls).toBe(1);
    expect(r.stderr).toBe('');
  });

  it('the whole warehouse lists our database too (text output)', async () => {
    // The shared stack may hold a scale warehouse (1k+ tables): no rate limit for this one.
    const r = await migrate(['inventory', '--config', cfg, '--calls-per-second', '0']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${f.db.name}\\s+5\\s+4\\s+1\\s+3\\s+1\\s+0\\s+0\\s+orc 1 · parquet 1 · text 2$`, 'm'));
    expect(r.stdout).toMatch(/^total\s+\d+/m);
  });

  it('--source db (backing Postgres) gives the same counts', async () => {
    const r = await migrate([
      'inventory',
      '--config',
      cfg,
      '--json',
      '--source',
      'db',
      '--set',
      `hms.db.url=${env.HIM_HMS_POSTGRES_URL}`,
      '--database',
      f.db.name,
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, source: 'db', databases: [expected] });
  });

  it('--source db without hms.db.url is a usage error (exit 2); an unknown database is HMS_NOT_FOUND (exit 1)', async () => {
    const u = await migrate(['inventory', '--config', cfg, '--source', 'db']);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('error [USAGE]: --source db needs hms.db.url');
    const n = await migrate(['inventory', '--config', cfg, '--json', '--database', uniqueName('him_nodb')]);
    expect(n.code).toBe(1);
    expect(JSON.parse(n.stdout)).toMatchObject({ ok: false, error: { code: 'HMS_NOT_FOUND' } });
  });
});
