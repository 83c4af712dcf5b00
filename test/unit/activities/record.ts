// A migrated table record `db.<name>` of plan 'p'×64 for the activity unit tests, with overrides.
import type { TableRecord } from '../../../core/state/store';
import { inv, table } from '../assess/fixture';

export const PLAN = 'p'.repeat(64);

export function migratedRecord(o: Partial<TableRecord> = {}, name = 't'): TableRecord {
  return {
    planHash: PLAN,
    tableId: `db.${name}`,
    wave: 1,
    status: 'migrated',
    original: inv(table({ database: 'db', name })),
    originalDigest: 'd',
    target: `lake:ice_db.${name}`,
    metadataLocation: `s3://w/ice_db/${name}/metadata/v1.metadata.json`,
    snapshotId: '42',
    writtenFiles: [],
    validation: { ok: true },
    errorCode: null,
    errorMessage: null,
    ...o,
  } as TableRecord;
}
