// Next-step hints ("next: migrate status <id>") repeat the --config the command was given, quoted
// for a POSIX shell when needed, so the printed line runs as it is; without --config they add
// nothing (MIGRATE_CONFIG or ./migrate.yaml find the config again). Each run of the CLI starts
// without one (runCli resets it).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../cli/main';
import { hint, setHintConfig } from '../../../cli/output';

afterEach(() => setHintConfig(undefined));

describe('next-step hints', () => {
  it('append -c <file>, quoted only when the shell needs it', () => {
    setHintConfig(undefined);
    expect(hint('migrate status abc')).toBe('migrate status abc');
    setHintConfig('/etc/migrate/prod.yaml');
    expect(hint('migrate status abc')).toBe('migrate status abc -c /etc/migrate/prod.yaml');
    setHintConfig("/tmp/my config's.yaml");
    expect(hint('migrate apply plan.json')).toBe(`migrate apply plan.json -c '/tmp/my config'\\''s.yaml'`);
  });

  it('a command run with --config sets it; the next run without one starts clean', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'him-hints-'));
    try {
      const cfg = path.join(dir, 'migrate.yaml');
      writeFileSync(cfg, 'temporal: { address: "127.0.0.1:1" }\n');
      await runCli(['doctor', '-c', cfg, '--role', 'workflows', '--timeout', '500', '--json'], {
        out: () => undefined,
        err: () => undefined,
      });
      expect(hint('migrate status x')).toBe(`migrate status x -c ${cfg}`);
      await runCli(['--version'], { out: () => undefined, err: () => undefined });
      expect(hint('migrate status x')).toBe('migrate status x');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
