// Golden Avro writer schemas (test/fixtures/iceberg/avro): the exact JSON that goes into the file
// headers. Regenerate with UPDATE_GOLDEN=1 and review the diff against V2Metadata.java.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifestEntrySchema, manifestFileSchema } from '../../../adapters/avro/schemas';
import { avroType } from '../../../adapters/avro/container';
import { identitySpec, UNPARTITIONED_SPEC } from '../../../core/iceberg/partition-spec';
import type { Schema } from '../../../core/iceberg/types';
import { prim } from '../../../core/iceberg/types';

const DIR = join(__dirname, '../../fixtures/iceberg/avro');
const golden = (name: string, value: unknown): void => {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(join(DIR, name), text);
  expect(text).toBe(readFileSync(join(DIR, name), 'utf8'));
};

const schema: Schema = {
  schemaId: 0,
  fields: [
    { id: 1, name: 'id', required: false, type: prim.long },
    { id: 2, name: 'dt', required: false, type: prim.date },
    { id: 3, name: 'amt', required: false, type: { kind: 'decimal', precision: 9, scale: 2 } },
    { id: 4, name: 'amt2', required: false, type: { kind: 'decimal', precision: 9, scale: 2 } },
    { id: 5, name: 'ts', required: false, type: prim.timestamp },
    { id: 6, name: '1st col', required: false, type: prim.string },
  ],
};

test('manifest_entry (partitioned, repeated decimal, non-Avro name) and unpartitioned', () => {
  const partitioned = manifestEntrySchema(schema, identitySpec(schema, ['dt', 'amt', 'amt2', 'ts', '1st col']));
  golden('manifest-entry-partitioned.avsc.json', partitioned);
  golden('manifest-entry-unpartitioned.avsc.json', manifestEntrySchema(schema, UNPARTITIONED_SPEC));
  expect(() => avroType(partitioned as never)).not.toThrow();
});

test('manifest_file', () => {
  golden('manifest-file.avsc.json', manifestFileSchema());
  expect(() => avroType(manifestFileSchema() as never)).not.toThrow();
});
