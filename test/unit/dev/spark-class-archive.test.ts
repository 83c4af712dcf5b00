// The suites' Spark class archive (test/helpers/spark-class-archive.ts): its name follows what the
// archive depends on, and a job gets the archive's JVM options only once the archive is there.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { archiveFile, archiveOptions } from '../../helpers/spark-class-archive';

describe('the Spark class archive of the suites’ jobs', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-class-archive-'));
  const jars = path.join(dir, 'jars');
  const rewriteJars = path.join(dir, 'rewrite-jars');
  for (const d of [jars, rewriteJars]) mkdirSync(d);
  writeFileSync(path.join(jars, 'iceberg-spark-runtime.jar'), '');
  writeFileSync(path.join(rewriteJars, 'hadoop-aws.jar'), '');
  const env = {
    ...process.env,
    HIM_CACHE_DIR: path.join(dir, 'cache'),
    HIM_VERIFIER_PYTHON: '/venv/bin/python',
    HIM_SPARK_JARS_DIR: jars,
    HIM_SPARK_REWRITE_JARS_DIR: rewriteJars,
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is named by a hash of the jars, the driver options and the install: another of them, another archive', () => {
    const file = archiveFile(env, '-XX:TieredStopAtLevel=1');
    expect(path.dirname(file)).toBe(path.join(dir, 'cache', 'spark-class-archive'));
    expect(path.basename(file)).toMatch(/^[0-9a-f]{16}\.jsa$/);
    expect(archiveFile(env, '-XX:TieredStopAtLevel=1')).toBe(file);
    expect(archiveFile(env, '-XX:TieredStopAtLevel=4')).not.toBe(file);
    expect(archiveFile({ ...env, HIM_VERIFIER_PYTHON: '/other/bin/python' }, '-XX:TieredStopAtLevel=1')).not.toBe(file);
    writeFileSync(path.join(rewriteJars, 'aws-bundle.jar'), '');
    expect(archiveFile(env, '-XX:TieredStopAtLevel=1')).not.toBe(file);
    rmSync(path.join(rewriteJars, 'aws-bundle.jar'));
  });

  it('gives a job no options until the archive is there, then the archive with its CDS log lines off', () => {
    expect(archiveOptions(env, '-XX:TieredStopAtLevel=1')).toEqual([]);
    const file = archiveFile(env, '-XX:TieredStopAtLevel=1');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, 'archive');
    expect(archiveOptions(env, '-XX:TieredStopAtLevel=1')).toEqual([`-XX:SharedArchiveFile=${file}`, '-Xlog:cds*=off']);
  });
});
