// A secret in any configured URI — the jdbc catalog's password (user-info and query), the
// state database's (user-info and query), an S3 endpoint's user-info — never reaches stdout or stderr,
// whatever the command prints (doctor's endpoints, coded errors, --json). Every endpoint is a port
// nothing listens on: each command fails at its first connection and prints what it tried.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../cli/main';

const SECRET = 'Hunter2-S3cr3t';
let dir = '';
let cfg = '';
const threadsBefore = process.env.HIM_FOOTER_THREADS;

beforeAll(() => {
  process.env.HIM_FOOTER_THREADS = '0';
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-secrets-'));
  cfg = path.join(dir, 'migrate.yaml');
  writeFileSync(
    cfg,
    [
      'hms: { thrift: { uri: "thrift://127.0.0.1:1", connectTimeoutMs: 1000, callTimeoutMs: 1000 } }',
      `catalog: { name: lake, type: jdbc, uri: "postgres://ice:${SECRET}@127.0.0.1:1/cat?sslmode=disable&password=${SECRET}" }`,
      `storage: { s3: { endpoint: "http://AKIA:${SECRET}@127.0.0.1:1", forcePathStyle: true, region: us-east-1, requestTimeoutMs: 1000 } }`,
      'temporal: { address: "127.0.0.1:1" }',
      `state: { url: "postgres://him:${SECRET}@127.0.0.1:1/state?password=${SECRET}" }`,
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  if (threadsBefore === undefined) delete process.env.HIM_FOOTER_THREADS;
  else process.env.HIM_FOOTER_THREADS = threadsBefore;
});

async function cli(argv: string[]): Promise<{ code: number; printed: string }> {
  let printed = '';
  const code = await runCli(argv, { out: (s) => void (printed += s), err: (s) => void (printed += s) });
  return { code, printed };
}

describe('no URI secret is printed', () => {
  it.each([[['doctor']], [['doctor', '--json']], [['assess', '--json']], [['table', 'db.t', '--json']], [['status', 'abcdef123456']]])(
    'migrate %j',
    async (args) => {
      const { code, printed } = await cli(['--config', cfg, ...args]);
      expect(code).not.toBe(0);
      // It did print what it tried (the endpoints, masked), and never the secret.
      expect(printed.length).toBeGreaterThan(0);
      expect(printed).not.toContain('CONFIG_INVALID');
      expect(printed).not.toContain(SECRET);
      expect(printed).not.toContain(encodeURIComponent(SECRET));
    },
  );

  it('doctor names the masked jdbc catalog and state URLs', async () => {
    const { printed } = await cli(['--config', cfg, 'doctor', '--json']);
    expect(printed).toContain('postgres://ice:***@127.0.0.1:1/cat?sslmode=disable&password=***');
    expect(printed).toContain('postgres://him:***@127.0.0.1:1/state?password=***');
  });
});
