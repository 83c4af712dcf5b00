// CPU cost of the per-file work a footer thread does, on one thread with no I/O scheduling or
// message passing around it: FileMetaData decode (formats/parquet/compact.ts), the
// column-to-metrics mapping with bounds written straight as the manifest entry's Avro metric maps
// (formats/parquet/stats.ts parquetStatsEncoded), the reply codec both ways
// (adapters/formats/file-stats-codec.ts) and, on the main thread's side, the manifest entry around those
// bytes. Footers of the same
// pyarrow files bench/convert uses (gen_files.py), read into memory once. Minimum over repetitions,
// so a busy shared machine disturbs it far less than the end-to-end files/s.
//   npx tsx bench/convert/footer-cpu.ts [--columns 20] [--variants 100] [--iterations 20000] [--reps 5]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AvroBytes, encodeAddedEntry } from '../../adapters/avro/entry-encoder';
import { decodeFileStats, encodeFileStats } from '../../adapters/formats/file-stats-codec';
import { decodeParquetFooterSync, parquetStatsEncoded } from '../../adapters/formats/parquet';
import { prepareConversion } from '../../core/convert/prepare';
import { testStack } from '../../test/helpers/stack-env';
import { benchInventory } from './ours';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const COLUMNS = Number(arg('columns', '20'));
const VARIANTS = Number(arg('variants', '100'));
const ITERATIONS = Number(arg('iterations', '20000'));
const REPS = Number(arg('reps', '5'));

function footerOf(file: string): Uint8Array {
  const b = readFileSync(file);
  const len = b.readUInt32LE(b.length - 8);
  return new Uint8Array(b.subarray(b.length - 8 - len, b.length - 8));
}

function main(): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-footer-cpu-'));
  try {
    const py = testStack().HIM_VERIFIER_PYTHON ?? 'python3';
    const gen = JSON.parse(
      execFileSync(py, [
        path.join(__dirname, 'gen_files.py'),
        dir,
        '--variants',
        String(VARIANTS),
        '--columns',
        String(COLUMNS),
        '--rows',
        '200',
        '--partitions',
        String(VARIANTS),
      ]).toString(),
    ) as { variants: { dt: string }[]; columns: [string, string][] };
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.parquet'))
      .sort();
    const footers = files.map((f) => footerOf(path.join(dir, f)));
    const inv = benchInventory({ location: 'file:///bench/t', columns: gen.columns, days: gen.variants.map((v) => v.dt) });
    const p = prepareConversion({
      inventory: inv,
      identity: { planHash: 'footer-cpu', table: 'bench.convert' },
      timestampMs: 1,
      toolVersion: 'bench',
    });
    const ctx = { schema: p.schema, nameMapping: p.baseNameMapping };
    const partition = Buffer.from([2, 2, 0x30]);
    const out = new AvroBytes();
    const metrics = new AvroBytes();
    const phases = { decode: Infinity, stats: Infinity, codec: Infinity, entry: Infinity };
    for (let rep = 0; rep < REPS; rep++) {
      const t = { decode: 0, stats: 0, codec: 0, entry: 0 };
      for (let i = 0; i < ITERATIONS; i++) {
        const bytes = footers[i % footers.length] as Uint8Array;
        const t0 = performance.now();
        const md = decodeParquetFooterSync('f', bytes);
        const t1 = performance.now();
        // As a footer thread does it: the metric maps written as Avro while the stats are assembled.
        metrics.reset();
        const stats = parquetStatsEncoded('f', md, ctx, metrics);
        const t2 = performance.now();
        const back = decodeFileStats(
          encodeFileStats({
            recordCount: stats.recordCount,
            splitOffsets: stats.splitOffsets,
            boundsWithheld: stats.boundsWithheld,
            encodedMetrics: stats.encodedMetrics,
          }),
        );
        const t3 = performance.now();
        out.reset();
        encodeAddedEntry(
          out,
          { ...back, filePath: `file:///bench/t/dt=x/part-${i}.parquet`, fileFormat: 'PARQUET', partition: [], fileSizeInBytes: 30_000 },
          partition,
        );
        const t4 = performance.now();
        t.decode += t1 - t0;
        t.stats += t2 - t1;
        t.codec += t3 - t2;
        t.entry += t4 - t3;
      }
      for (const k of Object.keys(t) as (keyof typeof t)[]) phases[k] = Math.min(phases[k], (t[k] * 1000) / ITERATIONS);
    }
    const total = phases.decode + phases.stats + phases.codec + phases.entry;
    console.log(
      `footer CPU (${COLUMNS} columns, ${footers.length} distinct footers of ${Math.round(footers.reduce((s, f) => s + f.length, 0) / footers.length)} B, ${ITERATIONS} per rep, min of ${REPS}), µs per file:`,
    );
    console.log(
      `  decode ${phases.decode.toFixed(1)} · stats+bounds+metrics Avro ${phases.stats.toFixed(1)} · reply codec ${phases.codec.toFixed(1)} · manifest entry ${phases.entry.toFixed(1)} · total ${total.toFixed(1)} (= ${Math.round(1e6 / total)} files/s per core)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
