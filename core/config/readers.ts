// The `readers:` section of the configuration (core/config/schema.ts merges it into the one schema):
// which engines must read a migrated table as Hive does. Pure; no I/O.
import { z } from 'zod';
import { READERS } from '../readers/encodings';

/**
 * The readers a metadata-only migration must serve (docs/readers.md "How the plan uses the matrix"):
 * a file encoding the reader matrix measures one of them reading wrong makes the table
 * rewrite-required at plan time (READER_MISREAD) and fails its conversion (CONVERT_READER_MISREAD).
 */
export const readersSchema = z
  .object({
    /** Engines whose wrong answers refuse a table (pyiceberg, spark, trino); default all three, `[]`: refuse nothing on reader grounds. */
    required: z.array(z.enum(READERS)).default([...READERS]),
  })
  .strict();
export type ReadersConfig = z.output<typeof readersSchema>;
