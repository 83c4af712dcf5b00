// Generates the docs that follow the code: docs/configuration.md (the config schema),
// docs/errors.md (every error code: exit code, retried, what to do), docs/exit-codes.md (the one
// exit-code table, per command, and the numeric flags) and the reader-matrix section of
// docs/readers.md (core/readers/matrix.ts; the rest of that page is written by hand).
//   npx tsx dev/docs/gen.ts          rewrite them
//   npx tsx dev/docs/gen.ts --check  exit 1 when a committed doc differs (test/unit/docs/generated-docs.test.ts does the same)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configurationMd } from './configuration';
import { errorsMd, exitCodesMd } from './errors';
import { readersMd } from './readers';

export const ROOT = path.resolve(__dirname, '..', '..');

/** Each generated doc (path from the repo root) and its content. */
export function generatedDocs(): Map<string, string> {
  return new Map([
    ['docs/configuration.md', configurationMd()],
    ['docs/errors.md', errorsMd()],
    ['docs/exit-codes.md', exitCodesMd()],
    ['docs/readers.md', readersMd(readFileSync(path.join(ROOT, 'docs/readers.md'), 'utf8'))],
  ]);
}

/** The generated docs whose committed file differs (or is missing). */
export function staleDocs(): string[] {
  return [...generatedDocs()]
    .filter(([file, text]) => {
      try {
        return readFileSync(path.join(ROOT, file), 'utf8') !== text;
      } catch {
        return true;
      }
    })
    .map(([file]) => file);
}

if (require.main === module) {
  if (process.argv.includes('--check')) {
    const stale = staleDocs();
    for (const f of stale) process.stderr.write(`${f} is out of date: run npx tsx dev/docs/gen.ts\n`);
    process.exit(stale.length === 0 ? 0 : 1);
  }
  for (const [file, text] of generatedDocs()) {
    writeFileSync(path.join(ROOT, file), text);
    process.stdout.write(`wrote ${file}\n`);
  }
}
