// The conversion engine: the port core/engine-port/conversion-engine.ts (`ConversionEngine`)
// implemented over this repository's adapters (formats, Avro, storage listing, results Parquet).
// Only the composition root (cli/compose.ts) calls `createEngine()`; the worker's assembly passes it
// on as ActivityDeps.engine and the in-process commands take it as an argument, so tests can hand
// in another.
import { runRewriteJob, stopRewriteJob } from './rewrite-job';
import { runReadBackJob } from './readback-job';
import { proveReadBack } from './readback';
import { runViewCheckJob } from './view-check-job';
import { writeResults } from '../adapters/results/parquet';
import { checkTableDrift } from './drift-check';
import { validateConversion } from './validate-conversion';
import { syncMigratedTable, validateSyncedTable } from './sync-record';
import { storageLag } from './storage-lag';
import { planPutBack } from './put-back';
import { writeIcebergMetadata } from './write-metadata';
import { convertTable } from './convert-table';
import type { ConversionEngine } from '../core/engine-port/conversion-engine';

/** The engine over this repository's adapters (formats, Avro, storage listing, results Parquet). */
export function createEngine(): ConversionEngine {
  return {
    writeIcebergMetadata,
    validateConversion,
    convertTable,
    checkTableDrift,
    writeResults,
    syncMigratedTable,
    storageLag,
    validateSyncedTable,
    planPutBack,
    runRewriteJob,
    stopRewriteJob,
    runViewCheckJob,
    runReadBackJob,
    proveReadBack,
  };
}
