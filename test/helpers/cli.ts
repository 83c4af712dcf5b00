// Running the real binaries from e2e tests: a command with the stack's environment, its exit code
// and output (never a thrown error for a non-zero exit), from the repo root.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { testStack } from './stack-env';

export const ROOT = path.resolve(__dirname, '..', '..');
export const MIGRATE = path.join(ROOT, 'bin', 'migrate');
export const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

export type Run = { code: number; stdout: string; stderr: string };

export async function run(cmd: string, args: readonly string[], timeout = 600_000, extraEnv: Record<string, string> = {}): Promise<Run> {
  return promisify(execFile)(cmd, [...args], {
    env: { ...process.env, ...testStack(), ...extraEnv },
    cwd: ROOT,
    maxBuffer: 64 << 20,
    timeout,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** The stack's migrate.yaml text with its `catalog:` section replaced by `section` (YAML lines, `catalog:` first). */
export function withCatalogSection(config: string, section: string): string {
  const out = config.replace(/catalog:\n(\s+.*\n)+?(?=\S)/, section);
  if (out === config) throw new Error('no catalog section to replace in the config');
  return out;
}
