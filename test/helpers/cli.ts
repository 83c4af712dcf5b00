// Running the real binaries from e2e tests: a command with the stack's environment, its exit code
// and output (never a thrown error for a non-zero exit), from the repo root.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { verifierCommand } from '../../dev/seed/python';
import { testStack } from './stack-env';

export const ROOT = path.resolve(__dirname, '..', '..');
export const MIGRATE = path.join(ROOT, 'bin', 'migrate');
export const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
/**
 * `run(TSX, [file, ...args])` runs `node --import <tsx's loader> file ...args`: the loader the tsx
 * CLI hands the node process it starts, without the CLI's own node process in front of it (~0.2 CPU s
 * of ~0.85 a call: the suites seed and drop warehouses with dev/seed this way). tsx's `-e` needs its
 * CLI (spawn TSX for it).
 */
const TSX_LOADER = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

export type Run = { code: number; stdout: string; stderr: string };

export async function run(cmd: string, args: readonly string[], timeout = 600_000, extraEnv: Record<string, string> = {}): Promise<Run> {
  const env = { ...process.env, ...testStack(), ...extraEnv };
  // The verifier venv's python through its fork server when the stack runs one (dev/seed/python.ts).
  const [file, argv] =
    cmd === TSX && args[0] !== '-e' ? [process.execPath, ['--import', TSX_LOADER, ...args]] : verifierCommand(cmd, args, env);
  return promisify(execFile)(file, argv, {
    env,
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
