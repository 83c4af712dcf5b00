// The one masking of URI secrets (core/mask.ts), one case per kind of URI the tool prints, and the
// two places it is applied: every MigrationError message, and (cli-level test) everything printed.
import { maskSecrets, maskUri } from '../../../core/mask';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { redactUrl } from '../../../adapters/hms/db/session';
import { redact } from '../../../adapters/state/pg-probe';
import { sdkRecord } from '../../../app/worker/log';
import { formatLine } from '../../../core/observe/log-line';

const SECRET = 'S3cr3t-Pa55';

describe('maskUri', () => {
  it.each([
    ['state URL (postgres)', `postgres://him:${SECRET}@db:5432/state`, 'postgres://him:***@db:5432/state'],
    ['HMS backing DB (mysql)', `mysql://hive:${SECRET}@db/metastore`, 'mysql://hive:***@db/metastore'],
    [
      'catalog.uri jdbc, password property',
      `jdbc:postgresql://db:5432/cat?user=ice&password=${SECRET}&ssl=true`,
      'jdbc:postgresql://db:5432/cat?user=ice&password=***&ssl=true',
    ],
    ['catalog.uri jdbc, user-info', `jdbc:postgresql://ice:${SECRET}@db/cat`, 'jdbc:postgresql://ice:***@db/cat'],
    [
      'catalog.uri jdbc, ;-properties (SQL Server)',
      `jdbc:sqlserver://db:1433;user=ice;password=${SECRET};encrypt=true`,
      'jdbc:sqlserver://db:1433;user=ice;password=***;encrypt=true',
    ],
    ['catalog.uri jdbc, Oracle thin', `jdbc:oracle:thin:ice/${SECRET}@db:1521/cat`, 'jdbc:oracle:thin:ice/***@db:1521/cat'],
    ['catalog.uri REST with a token query', `https://cat.example/api?token=${SECRET}`, 'https://cat.example/api?token=***'],
    ['catalog.uri REST with user-info', `https://svc:${SECRET}@cat.example/api`, 'https://svc:***@cat.example/api'],
    ['S3 endpoint with user-info', `http://AKIA:${SECRET}@minio:9000`, 'http://AKIA:***@minio:9000'],
    [
      'presigned S3 URL',
      `https://b.s3/k?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=${SECRET}&X-Amz-Expires=60`,
      'https://b.s3/k?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60',
    ],
    ['Temporal address with user-info', `grpc://ns:${SECRET}@temporal:7233`, 'grpc://ns:***@temporal:7233'],
    ['HMS thrift URI with user-info', `thrift://hive:${SECRET}@hms:9083`, 'thrift://hive:***@hms:9083'],
    ['a location with user-info', `s3a://AKIA:${SECRET}@bucket/wh/t`, 's3a://AKIA:***@bucket/wh/t'],
    ['a wasb location with user-info', `wasb://c:${SECRET}@acct.blob.core.windows.net/t`, 'wasb://c:***@acct.blob.core.windows.net/t'],
  ])('%s', (_kind, uri, masked) => {
    expect(maskUri(uri)).toBe(masked);
    expect(maskUri(uri)).not.toContain(SECRET);
  });

  it.each([
    's3a://wh/db/t/token=5/part-0.parquet',
    's3://b/t/key=1/password=2',
    'thrift://hms:9083',
    'postgres://nobody@db/none',
    'https://cat.example/api?warehouse=s3://wh/&v=1',
    'file:///data/wh/t',
    'part;00000?v=1#x.parquet',
  ])('leaves %s as it is (no secret: Hive partition directories named like secrets are paths, not queries)', (uri) => {
    expect(maskUri(uri)).toBe(uri);
  });

  it('masks every URI in a free text and is idempotent', () => {
    const text = `could not reach postgres://a:${SECRET}@h/db nor jdbc:mysql://h/c?password=${SECRET} (see ${SECRET.length} chars)`;
    const once = maskSecrets(text);
    expect(once).toBe('could not reach postgres://a:***@h/db nor jdbc:mysql://h/c?password=*** (see 11 chars)');
    expect(maskSecrets(once)).toBe(once);
  });

  it('the state-DB and HMS-DB redactors are the same function', () => {
    const u = `jdbc:postgresql://db/cat?password=${SECRET}`;
    expect(redactUrl(u)).toBe(maskUri(u));
    expect(redact(u)).toBe(maskUri(u));
  });

  it('a MigrationError never carries a URI secret in its message', () => {
    const e = new MigrationError(
      ErrorCode.CATALOG_UNREACHABLE,
      `catalog jdbc:postgresql://ice:${SECRET}@db/cat?password=${SECRET}: refused`,
    );
    expect(e.message).not.toContain(SECRET);
    expect(e.message).toBe('catalog jdbc:postgresql://ice:***@db/cat?password=***: refused');
  });

  it.each(['json', 'text'] as const)('a worker log line (activity failure with its error, %s) carries no URI secret', (format) => {
    const line = formatLine(
      sdkRecord({
        level: 'WARN',
        message: `Activity failed: connect postgres://him:${SECRET}@db/state`,
        timestampNanos: 1_700_000_000_000_000_000n,
        meta: { error: `jdbc:mysql://db/cat?password=${SECRET}` },
      }),
      format,
    );
    expect(line).not.toContain(SECRET);
    expect(line).toContain('postgres://him:***@db/state');
    expect(line).toContain('password=***');
    expect(line.split('\n')).toEqual([expect.any(String), '']);
    if (format === 'json') expect(JSON.parse(line)).toMatchObject({ ts: '2023-11-14T22:13:20.000Z', level: 'warn', src: 'temporal' });
    else expect(line.startsWith('2023-11-14T22:13:20.000Z WARN Activity failed')).toBe(true);
  });
});
