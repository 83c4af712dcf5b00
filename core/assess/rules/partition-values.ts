// Rule: every partition value must parse as its partition column's declared type, exactly as apply
// parses it (core/iceberg/partition-values.ts, Iceberg's fromPartitionString): an int partition
// whose value is `abc` stops the table at apply. `__HIVE_DEFAULT_PARTITION__` is null and fine.
// Key types that do not convert are TYPE_UNSUPPORTED/TYPE_INVALID already (column-types.ts). Pure; no I/O.
import { MigrationError } from '../../errors';
import { parseHiveType } from '../../hive/types';
import { identitySpec, partitionType } from '../../iceberg/partition-spec';
import { partitionTupleFromHive } from '../../iceberg/partition-values';
import { convertHiveSchema } from '../../iceberg/schema';
import type { PrimitiveType } from '../../iceberg/types';
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

type KeyTypes = { readonly name: string; readonly type: PrimitiveType }[];

/** The Iceberg types of the partition keys as apply derives them, or null when they do not convert. */
function keyTypes(keys: readonly { name: string; type: string; comment: string | null }[]): KeyTypes | null {
  try {
    const converted = convertHiveSchema(
      [],
      keys.map((k) => ({ name: k.name, type: parseHiveType(k.type, k.name), comment: k.comment })),
    );
    if (!converted.ok) return null;
    return partitionType(
      converted.schema,
      identitySpec(
        converted.schema,
        keys.map((k) => k.name),
      ),
    ).map(({ field, type }) => ({ name: field.name, type }));
  } catch (e) {
    if (e instanceof MigrationError) return null;
    throw e;
  }
}

export const partitionValueRule: Rule = (t) => {
  if (isView(t) || t.table.partitionKeys.length === 0 || t.partitions.length === 0) return [];
  const types = keyTypes(t.table.partitionKeys);
  if (types === null) return [];
  const bad: string[] = [];
  for (const p of t.partitions) {
    try {
      partitionTupleFromHive(types, p.values);
    } catch (e) {
      if (!(e instanceof MigrationError)) throw e;
      bad.push(`${p.name}: ${e.message}`);
    }
  }
  if (bad.length === 0) return [];
  return [
    finding(
      AssessCode.PARTITION_VALUE_INVALID,
      'rewrite',
      `${bad.length} of ${t.partitions.length} partition(s): ${bad.slice(0, 5).join('; ')}${bad.length > 5 ? ' …' : ''}`,
      'drop or rename those partitions in HMS (ALTER TABLE … PARTITION … RENAME TO), or change the partition column to string, then assess again',
    ),
  ];
};
