// The Hive input the Iceberg conversion consumes: columns whose type strings were parsed by
// core/hive/types.ts (parseHiveType). Pure; no I/O.
import type { HiveType } from '../hive/types';
import { formatHiveType } from '../hive/types';

export type HiveTypeAst = HiveType;

/** A table column with its type already parsed (core/hive/types.ts parseHiveType). */
export interface HiveColumnInput {
  readonly name: string;
  readonly type: HiveType;
  readonly comment: string | null;
}

/** Canonical Hive spelling of a type, for findings and messages. */
export function describeHiveType(t: HiveType): string {
  return formatHiveType(t);
}
