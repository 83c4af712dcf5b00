// Run a dev/seed Python script with the verifier venv's interpreter (pyarrow). Dev tooling.
import { execFile } from 'node:child_process';
import path from 'node:path';

export function runPython(python: string, args: readonly string[], timeoutMs = 300_000): Promise<string> {
  const [script, ...rest] = args;
  if (script === undefined) throw new Error('runPython: no script');
  return new Promise((resolve, reject) => {
    execFile(python, [path.join(__dirname, script), ...rest], { timeout: timeoutMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(script)} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}
