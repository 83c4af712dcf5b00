// `tsx test/helpers/spark-class-archive-make.ts`: make the suites' Spark class archive
// (./spark-class-archive.ts) for the running stack when the component cache has none. dev/test.sh
// runs it in the background once the stack is up; exit 0 when the archive is there (or another
// process is making it), 1 when making it failed (the suites then run their jobs without it).
import { createContext } from '../../dev/stack/manifest';
import { stackEnv } from '../../dev/stack/env';
import { SHORT_JOB_OPTIONS, stackRewriteCommand } from './rewrite';
import { archiveFile, makeArchive } from './spark-class-archive';

async function main(): Promise<number> {
  const env = { ...process.env, ...stackEnv(createContext(process.env, true)) };
  const t0 = Date.now();
  const c = stackRewriteCommand(env, { classArchive: false });
  const r = await makeArchive(env, SHORT_JOB_OPTIONS, c.command, c.env);
  console.log(`spark class archive ${archiveFile(env, SHORT_JOB_OPTIONS)}: ${r} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`spark class archive not made: ${(e as Error).message}`);
    process.exit(1);
  },
);
