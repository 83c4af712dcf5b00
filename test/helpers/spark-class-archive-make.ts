// `tsx test/helpers/spark-class-archive-make.ts [--wait-seconds N]`: make the suites' Spark class
// archive (./spark-class-archive.ts) for the stack when the component cache has none. dev/test.sh
// starts it just before `stack up`: the warm-up job needs only S3 and the REST catalog, which are
// among the first components up, so the archive is made while the rest of the stack starts and the
// suites' first jobs already have it (with --wait-seconds it waits that long for the catalog).
// Exit 0 when the archive is there (or another process is making it), 1 when making it failed
// (the suites then run their jobs without it).
import { existsSync } from 'node:fs';
import { createContext } from '../../dev/stack/manifest';
import { stackEnv } from '../../dev/stack/env';
import { SHORT_JOB_OPTIONS, stackRewriteCommand } from './rewrite';
import { archiveFile, makeArchive } from './spark-class-archive';

/**
 * Until the REST catalog answers its config (it starts after S3 is up with its buckets: dependsOn in
 * temporal-dev.yml), at most `seconds`.
 */
async function waitForCatalog(env: NodeJS.ProcessEnv, seconds: number): Promise<void> {
  const url = `${env.HIM_ICEBERG_REST_URI}/v1/config`;
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > end) throw new Error(`the REST catalog did not answer within ${seconds} s (${url})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const env = { ...process.env, ...stackEnv(createContext(process.env, true)) };
  const t0 = Date.now();
  const i = argv.indexOf('--wait-seconds');
  const wait = i >= 0 ? Number(argv[i + 1]) : 0;
  if (!Number.isFinite(wait) || wait < 0) throw new Error(`--wait-seconds takes a number of seconds, got '${argv[i + 1]}'`);
  if (wait > 0 && !existsSync(archiveFile(env, SHORT_JOB_OPTIONS))) await waitForCatalog(env, wait);
  const c = stackRewriteCommand(env, { classArchive: false });
  const r = await makeArchive(env, SHORT_JOB_OPTIONS, c.command, c.env);
  console.log(`spark class archive ${archiveFile(env, SHORT_JOB_OPTIONS)}: ${r} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`spark class archive not made: ${(e as Error).message}`);
    process.exit(1);
  },
);
