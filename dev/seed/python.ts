// Run a dev/seed Python script with the verifier venv's interpreter (pyarrow). Dev tooling.
import { execFile } from 'node:child_process';
import path from 'node:path';

const PYFORK = path.join(__dirname, '..', 'verifier', 'pyfork.py');

/**
 * The command line for `python <args>` with the verifier venv's interpreter: through its fork server
 * (dev/verifier/pyfork.py, a child of an interpreter with pyarrow and PyIceberg already imported: up to
 * ~0.6 CPU s less a call) when the stack runs one (HIM_VERIFIER_PYFORK) and `args` is a script or `-c`;
 * otherwise `python` itself. Same output, environment, directory and exit status either way.
 */
export function verifierCommand(python: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): [string, string[]] {
  const socket = env.HIM_VERIFIER_PYFORK;
  const first = args[0] ?? '-';
  if (!socket || python !== env.HIM_VERIFIER_PYTHON || (first.startsWith('-') && first !== '-c')) return [python, [...args]];
  return [python, ['-S', PYFORK, '--socket', socket, '--python', python, '--', ...args]];
}

export function runPython(python: string, args: readonly string[], timeoutMs = 300_000): Promise<string> {
  const [script, ...rest] = args;
  if (script === undefined) throw new Error('runPython: no script');
  const [file, argv] = verifierCommand(python, [path.join(__dirname, script), ...rest]);
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: timeoutMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(script)} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}
