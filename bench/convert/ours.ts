// One timed conversion for bench/convert, in its own fresh process so that its peak RSS is ours alone
// (not the bench driver's file list) and no run inherits another's warm JIT or heap — unless the job
// asks for an untimed warm-up conversion first (`warm`: the state of a long-running worker). Builds the
// in-memory TableInventory HMS would give for the generated table, then times prepareConversion +
// writeIcebergMetadata (+ REST register on S3). Prints one JSON line (OursResult) on stdout.
//   npx tsx bench/convert/ours.ts '<OursJob JSON>'
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { writeIcebergMetadata } from '../../engine/write-metadata';
import type { Reader } from '../../core/readers/encodings';
import { RestCatalog } from '../../adapters/catalog/rest';
import { footerThreadsOnEveryCpu, sharedFooterThreads } from '../../adapters/storage/object-read/footer-pool';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import { prepareConversion } from '../../core/convert/prepare';
import type { HiveColumn, StorageDescriptor, TableInventory } from '../../core/hive/model';

export interface OursJob {
  /** Table location: `s3://warehouse/<prefix>/t` or `file:///tmp/.../t`. */
  readonly location: string;
  readonly columns: readonly (readonly [string, string])[];
  readonly days: readonly string[];
  readonly footerConcurrency: number;
  readonly planHash: string;
  /** Register in the REST catalog as `<namespace>.<table>` (S3 runs; the namespace exists). */
  readonly register?: { readonly uri: string; readonly namespace: string; readonly table: string };
  readonly s3?: { readonly endpoint: string; readonly region: string };
  /**
   * Before the timed run, convert the first `warm` partitions as another table in the same process
   * (untimed): footer threads started, code compiled, sockets open — a long-running worker's state.
   */
  readonly warm?: number;
  /** `readers.required` for the conversion (default all three: the reader guard on when the matrix applies); `[]` turns it off. */
  readonly readersRequired?: readonly Reader[];
}

export interface OursResult {
  readonly seconds: number;
  readonly dataFiles: number;
  readonly records: number;
  readonly partitions: number;
  readonly metadataFiles: number;
  readonly registered: string | null;
  /** process.resourceUsage().maxRSS and /proc/self/status VmHWM, MB. */
  readonly maxRssMb: number;
  readonly vmHwmMb: number | null;
  readonly heapUsedMb: number;
  /** CPU seconds (user + system, every thread of the process) spent in the timed part. */
  readonly cpuSeconds: number;
}

const HIVE_TYPE: Readonly<Record<string, string>> = {
  long: 'bigint',
  string: 'string',
  double: 'double',
  date: 'date',
  decimal: 'decimal(12,2)',
  timestamp: 'timestamp',
  boolean: 'boolean',
};

function parquetSd(columns: readonly HiveColumn[], location: string): StorageDescriptor {
  return {
    columns,
    location,
    inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
    outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
    compressed: false,
    numBuckets: -1,
    serde: {
      name: null,
      serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
      parameters: { 'serialization.format': '1' },
    },
    bucketColumns: [],
    sortColumns: [],
    parameters: {},
    skewed: null,
    storedAsSubDirectories: false,
  };
}

/** The inventory HMS would return: an external Parquet table partitioned by `dt string`. */
export function benchInventory(job: Pick<OursJob, 'location' | 'columns' | 'days'>): TableInventory {
  const cols = job.columns.map(([name, kind]) => ({ name, type: HIVE_TYPE[kind] ?? 'string', comment: null }));
  return {
    table: {
      database: 'bench',
      name: 'convert',
      owner: 'bench',
      ownerType: 'USER',
      createTime: 1,
      lastAccessTime: 0,
      retention: 0,
      tableType: 'EXTERNAL_TABLE',
      sd: parquetSd(cols, job.location),
      partitionKeys: [{ name: 'dt', type: 'string', comment: null }],
      parameters: { EXTERNAL: 'TRUE' },
      viewOriginalText: null,
      viewExpandedText: null,
      temporary: false,
    },
    partitions: job.days.map((d) => ({
      values: [d],
      name: `dt=${d}`,
      createTime: 1,
      lastAccessTime: 0,
      sd: parquetSd(cols, `${job.location}/dt=${d}`),
      parameters: {},
    })),
  };
}

function vmHwmMb(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

async function runOnce(job: OursJob): Promise<OursResult> {
  // As `migrate table` converts (one footer thread per CPU unless HIM_FOOTER_THREADS says otherwise),
  // the threads started before the table's inventory is read: there they boot while HMS and the
  // catalog answer; here (a synthetic inventory) the timed window starts once they have loaded —
  // booted, but with nothing compiled hot yet (that is what `warm` adds).
  footerThreadsOnEveryCpu();
  await sharedFooterThreads()?.ready();
  const inventory = benchInventory(job);
  const store = new RoutingObjectStore({
    metadataPrefixes: [`${job.location}/metadata/`],
    ...(job.s3 ? { s3: { ...job.s3, forcePathStyle: true } } : {}),
  });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const prepared = prepareConversion({
    inventory,
    identity: { planHash: job.planHash, table: 'bench.convert' },
    timestampMs: Date.now(),
    toolVersion: 'bench',
  });
  const written = await writeIcebergMetadata(store, prepared, {
    footerConcurrency: job.footerConcurrency,
    listConcurrency: 16,
    ...(job.readersRequired === undefined ? {} : { readersRequired: job.readersRequired }),
  });
  let registered: string | null = null;
  if (job.register) {
    const catalog = await RestCatalog.connect({ uri: job.register.uri });
    registered = (await catalog.registerTable(tableIdent([job.register.namespace], job.register.table), prepared.metadataLocation)).outcome;
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  store.destroy();
  return {
    seconds,
    dataFiles: written.dataFiles,
    records: written.records,
    partitions: written.partitions,
    metadataFiles: written.files.length,
    registered,
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    vmHwmMb: vmHwmMb(),
    heapUsedMb: Math.round(process.memoryUsage().heapUsed / 1048576),
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

/** The warm-up (OursJob.warm) and then the timed run. */
async function run(job: OursJob): Promise<OursResult> {
  if (job.warm !== undefined && job.warm > 0) {
    const { register: _r, ...rest } = job;
    await runOnce({ ...rest, days: job.days.slice(0, job.warm), planHash: `${job.planHash}-warm-up` });
  }
  return runOnce(job);
}

if (require.main === module) {
  run(JSON.parse(process.argv[2] ?? '{}') as OursJob)
    .then((r) => {
      process.stdout.write(`${JSON.stringify(r)}\n`);
      process.exit(0);
    })
    .catch((e: unknown) => {
      process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
      process.exit(1);
    });
}
