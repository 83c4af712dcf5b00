// A migrated table record `db.<name>` of plan 'p'×64 for the activity and operation unit tests, with overrides; the deps' plain fields they share.
import type { TableRecord } from '../../../core/state/store';
import { inv, table } from '../assess/fixture';

export const PLAN = 'p'.repeat(64);

/** The plain fields of the operations' deps that the unit tests' fakes share (spread, then add the ports a test needs). */
export const BASE_DEPS = { namespacePrefix: 'ice_', toolVersion: '0.3.0', actor: 'test', catalog: { name: 'lake' } } as const;

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
