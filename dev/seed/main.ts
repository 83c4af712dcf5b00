// `npx tsx dev/seed/main.ts --hms thrift://... [--seed 42] [--prefix seed] [--manifest FILE]`
//   seeds the realistic test warehouse (real files on S3 + HMS objects) and writes its manifest;
// `... --scale N,M,K [--concurrency C]` seeds N tables × M partitions × K tiny files instead.
// `... --drop` removes what the seed/prefix made. S3 settings and the Python interpreter default to
// the local stack's (dev/stack/env.ts). Dev tooling.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createContext } from '../stack/manifest';
import { stackEnv } from '../stack/env';
import { seedWarehouse, unseedWarehouse } from './warehouse';
import { dropScale, seedScale } from './scale';
import { dropMixed, seedMixed } from './mixed';
import { seedAcid } from './acid';
import { seedViews } from './views';
import { seedRewriteWarehouse } from './lb-rewrite';
import { seedNested } from './lb-nested';
import { seedLeftBehindWarehouse } from './lb-warehouse';

const USAGE = `usage: tsx dev/seed/main.ts --hms thrift://host:port [options]
  --seed N            data seed (default 42)
  --prefix P          database / S3 prefix (default 'seed'): databases P_sales, P_misc, P_seed_complete;
                      files under s3://<bucket>/seed/P/
  --bucket B          S3 bucket (default 'hive')
  --manifest FILE     where to write the manifest (default <state dir>/seed/<prefix>-manifest.json)
  --readers           also seed P_lb_readers: tables legal for Iceberg that a common reader mis-handles
                      (float_as_double: Hive double, Parquet FLOAT files; docs/readers.md)
  --force             re-seed even when the warehouse already matches the manifest
  --drop              remove the seeded warehouse, or with --scale that scale warehouse
                      (HMS deleteData=false + its own S3 prefix)
  --scale N,M,K       N tables x M partitions x K tiny files (database P_scale_NxMxK), for benchmarks
  --left-behind rewrite  (re)seed database lb_rewrite: text/CSV/JSON, bucketed and sub-directory tables
                      only a rewrite migrates (dev/seed/lb-rewrite.ts); prints its manifest as JSON
  --left-behind nested  (re)seed database lb_nested (or --database D): Parquet tables whose old partition
                      keeps an older nested schema (struct fields added/reordered/promoted, list and map
                      value structs grown, case-variant nested names, an undeclared footer column, one
                      incompatible change; dev/seed/lb-nested.ts); prints its tables as JSON (--manifest
                      FILE writes them there too)
  --mixed N,B[,P]     N tables, half unpartitioned, half with 1-10 partitions, 10-30 tiny files each
                      (20 on average), the first B with P partitions x 1 file (default P 5000); database
                      P_mixed2_NxBxP (dev/seed/mixed.ts: the rehearsal's warehouse); with --drop removes it
  --concurrency C     scale and mixed mode: parallel HMS connections (default 16)
  --batch B           scale mode: partitions per add_partitions call (default 100)
  --left-behind acid  seed the insert-only ACID tables instead (dev/seed/acid.ts: committed, aborted and
                      open writes through the metastore's transaction API) into --database (default lb_acid);
                      prints their manifest as JSON (and writes it to --manifest when given)
  --database D        the database of --left-behind acid
  --left-behind warehouse  (re)seed database lb_warehouse: every kind of table a migration leaves behind, in one
                      database (nested struct evolution, views, insert-only ACID, CSV with a header,
                      bucketed, sub-directories, a union-typed table left out; dev/seed/lb-warehouse.ts); prints per table its
                      expected path, rows, checksum and source files as JSON (--manifest FILE writes it too)
  --views DB          seed the views warehouse instead: database DB with two Parquet
                      tables, a CSV table and three Hive views; prints its tables as JSON (--manifest FILE
                      writes them there too)
`;

function parseArgs(argv: string[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!a.startsWith('--')) throw new Error(`unexpected argument '${a}'\n${USAGE}`);
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      out.set(a.slice(2), next);
      i++;
    } else out.set(a.slice(2), true);
  }
  return out;
}

function str(args: Map<string, string | true>, k: string, dflt?: string): string {
  const v = args.get(k);
  if (v === true) throw new Error(`--${k} needs a value`);
  if (v === undefined) {
    if (dflt === undefined) throw new Error(`--${k} is required\n${USAGE}`);
    return dflt;
  }
  return v;
}

function int(args: Map<string, string | true>, k: string, dflt: number): number {
  const n = Number(str(args, k, String(dflt)));
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${k} must be a non-negative integer`);
  return n;
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.has('help')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const ctx = createContext(process.env, true);
  const env = { ...stackEnv(ctx), ...(process.env as Record<string, string>) };
  const prefix = str(args, 'prefix', 'seed');
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(prefix)) throw new Error(`--prefix must match [a-z][a-z0-9_]*, got '${prefix}'`);
  const common = {
    hms: str(args, 'hms'),
    prefix,
    bucket: str(args, 'bucket', 'hive'),
    s3: {
      endpoint: env.HIM_S3_ENDPOINT as string,
      region: env.AWS_REGION as string,
      accessKeyId: env.AWS_ACCESS_KEY_ID as string,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string,
    },
    python: env.HIM_VERIFIER_PYTHON as string,
    log: (m: string) => process.stderr.write(`[seed] ${m}\n`),
  };

  if (args.has('left-behind') && str(args, 'left-behind') === 'rewrite') {
    process.stdout.write(
      `${JSON.stringify(await seedRewriteWarehouse({ hms: common.hms, bucket: common.bucket, s3: common.s3, log: common.log }))}\n`,
    );
    return 0;
  }

  if (args.has('left-behind') && str(args, 'left-behind') === 'nested') {
    const r = await seedNested({ ...common, db: str(args, 'database', 'lb_nested') });
    const text = `${JSON.stringify(r)}\n`;
    if (args.has('manifest')) writeFileSync(str(args, 'manifest'), text);
    process.stdout.write(text);
    return 0;
  }

  if (args.has('left-behind') && str(args, 'left-behind') === 'warehouse') {
    const text = `${JSON.stringify(await seedLeftBehindWarehouse({ ...common }))}\n`;
    if (args.has('manifest')) writeFileSync(str(args, 'manifest'), text);
    process.stdout.write(text);
    return 0;
  }

  if (args.has('left-behind')) {
    if (str(args, 'left-behind') !== 'acid') throw new Error(`--left-behind takes 'acid', 'rewrite', 'nested' or 'warehouse'\n${USAGE}`);
    const m = await seedAcid({ ...common, database: str(args, 'database', 'lb_acid') });
    const text = `${JSON.stringify(m)}\n`;
    if (args.has('manifest')) writeFileSync(str(args, 'manifest'), text);
    process.stdout.write(text);
    return 0;
  }

  if (args.has('views')) {
    const db = str(args, 'views');
    if (!/^[a-z][a-z0-9_]{0,60}$/.test(db)) throw new Error(`--views must match [a-z][a-z0-9_]*, got '${db}'`);
    const r = await seedViews({ ...common, db });
    const text = JSON.stringify(r);
    if (args.has('manifest')) writeFileSync(str(args, 'manifest'), text);
    process.stdout.write(`${text}\n`);
    return 0;
  }

  if (args.has('mixed')) {
    const parts = str(args, 'mixed').split(',').map(Number);
    if (parts.length < 2 || parts.length > 3 || parts.some((n) => !Number.isInteger(n) || n < 0) || (parts[0] as number) < 1)
      throw new Error('--mixed takes N,B[,P] (integers, N ≥ 1)');
    const [tables, big, bigPartitions = 5000] = parts as [number, number, number?];
    const shape = { ...common, tables, big, bigPartitions };
    if (args.has('drop')) {
      await dropMixed(shape);
      return 0;
    }
    const r = await seedMixed({
      ...shape,
      concurrency: int(args, 'concurrency', 16),
      batch: int(args, 'batch', 100),
      force: args.has('force'),
    });
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return 0;
  }

  if (args.has('scale')) {
    const parts = str(args, 'scale').split(',').map(Number);
    if (parts.length !== 3 || parts.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--scale takes N,M,K (positive integers)');
    const [n, m, k] = parts as [number, number, number];
    if (args.has('drop')) {
      await dropScale({ ...common, tables: n, partitions: m, files: k });
      return 0;
    }
    const r = await seedScale({
      ...common,
      tables: n,
      partitions: m,
      files: k,
      concurrency: int(args, 'concurrency', 16),
      batch: int(args, 'batch', 100),
      force: args.has('force'),
    });
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return 0;
  }

  const seed = int(args, 'seed', 42);
  if (args.has('drop')) {
    await unseedWarehouse({ ...common, seed, readers: args.has('readers') });
    common.log(`dropped warehouse '${prefix}'`);
    return 0;
  }
  const result = await seedWarehouse({ ...common, seed, force: args.has('force'), readers: args.has('readers') });
  const file = str(args, 'manifest', path.join(ctx.stateDir, 'seed', `${prefix}-manifest.json`));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, result.manifestText);
  process.stdout.write(
    `${JSON.stringify({ status: result.status, manifest: file, sha256: result.manifestSha256, tables: result.manifest.tables.length, refused: result.refused, seconds: Number(result.seconds.toFixed(1)) })}\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`[seed] error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
