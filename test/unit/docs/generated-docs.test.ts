// The docs generated from the code stay current and complete: docs/configuration.md (config schema),
// docs/errors.md (error codes), docs/exit-codes.md (the exit-code table) and the reader-matrix section
// of docs/readers.md must equal what dev/docs/gen.ts produces now; every error code has a meaning and
// a remedy; every config key a description; every environment variable the doc names really sets that
// key; migrate.example.yaml is a valid configuration with every section.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../cli/config';
import { configSchema } from '../../../core/config/schema';
import { ErrorCode, isMigrationError } from '../../../core/errors';
import { configKeys } from '../../../dev/docs/configuration';
import { errorDocs } from '../../../dev/docs/errors';
import { ROOT, generatedDocs } from '../../../dev/docs/gen';

describe('generated docs', () => {
  it.each([...generatedDocs()].map(([f, text]) => [f, text] as const))(
    '%s is current (else: run npx tsx dev/docs/gen.ts)',
    (file, text) => {
      const committed = readFileSync(path.join(ROOT, file), 'utf8');
      // A diff that names the first differing line reads better than two 20 kB strings.
      const a = committed.split('\n');
      const b = text.split('\n');
      const at = a.findIndex((line, i) => line !== b[i]);
      expect({ file, firstDifferentLine: at === -1 && a.length === b.length ? null : at + 1, hint: 'run npx tsx dev/docs/gen.ts' }).toEqual(
        {
          file,
          firstDifferentLine: null,
          hint: 'run npx tsx dev/docs/gen.ts',
        },
      );
    },
  );

  it('every error code has what it means (its JSDoc in core/errors.ts) and what to do (core/error-remedies.ts)', () => {
    const docs = errorDocs();
    expect(docs.map((d) => d.code).sort()).toEqual(Object.values(ErrorCode).sort());
    for (const d of docs) {
      expect({ code: d.code, meaning: (d.meaning ?? '').length > 15, remedy: d.remedy.length > 15 }).toEqual({
        code: d.code,
        meaning: true,
        remedy: true,
      });
    }
    expect(readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8')).toContain('| `STATE_DB_NOT_FOUND` | 1 |');
    expect(readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8')).toContain('| `PLAN_HASH_MISMATCH` | 2 |');
    expect(readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8')).toContain('| `INTERNAL` | 70 |');
  });

  it('every configuration key has a type and a description, every section is there', () => {
    const keys = configKeys();
    for (const k of keys)
      expect({ path: k.path, described: (k.description ?? '').length > 5, typed: k.type !== '' }).toEqual({
        path: k.path,
        described: true,
        typed: true,
      });
    const sections = new Set(keys.map((k) => k.path.split('.')[0]));
    expect([...sections].sort()).toEqual(Object.keys(configSchema.shape).sort());
    const doc = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
    for (const k of ['plan.waves.maxTablesPerWave', 'validation.resultsLocation', 'temporal.taskQueue', 'plan.signing.keyEnv'])
      expect(doc).toContain(`| \`${k}\` |`);
  });

  const withEnv = configKeys().filter((k) => k.env !== undefined);
  it.each(withEnv.map((k) => [k.env as string, k] as const))('%s sets the key the doc says', (env, k) => {
    // A value of the wrong type: the error must name the documented path and this variable as its source.
    const bad = /^(integer|number|boolean|")/.test(k.type) ? 'not-a-value' : '42';
    let message = '';
    try {
      loadConfig({ env: { [env]: bad }, sets: [], cwd: ROOT, file: path.join(ROOT, 'migrate.example.yaml') });
    } catch (e) {
      if (!isMigrationError(e)) throw e;
      message = e.message;
    }
    expect(message).toContain(`  ${k.path}: `);
    expect(message).toContain(`(from environment ${env})`);
  });

  it('migrate.example.yaml is a valid configuration with every section, plan: and validation: included', () => {
    const { config } = loadConfig({ env: {}, sets: [], cwd: ROOT, file: path.join(ROOT, 'migrate.example.yaml') });
    expect(Object.keys(config).sort()).toEqual(Object.keys(configSchema.shape).sort());
  });
});
