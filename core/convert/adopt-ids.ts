// A prepared conversion renumbered by the field ids its data files carry (core/iceberg/embedded-ids.ts):
// the schema takes the adopted ids, the identity spec follows its source columns to their new ids
// and the base name mapping is rebuilt. Consistent ids are adopted, inconsistent ones refused with
// FIELD_IDS_INCONSISTENT naming files and columns; no ids (or ids equal to the fresh ones) leave the
// conversion as it is. Also the per-table collector of the distinct id layouts footers show.
// Pure; no I/O.
import type { FileIdLayout } from '../iceberg/embedded-ids';
import { adoptEmbeddedIdsOrThrow } from '../iceberg/embedded-ids';
import { buildNameMapping } from '../iceberg/name-mapping';
import { identitySpec } from '../iceberg/partition-spec';
import type { PreparedConversion } from './prepare';

/** The conversion with the ids `layouts` carry adopted, `p` itself when nothing changes; throws the refusal. */
export function adoptedConversion(p: PreparedConversion, layouts: readonly FileIdLayout[]): PreparedConversion {
  if (layouts.length === 0) return p;
  const dataColumnCount = p.schema.fields.length - p.spec.fields.length;
  const lastColumnId = Math.max(0, ...p.schema.fields.map((f) => f.id));
  const { schema } = adoptEmbeddedIdsOrThrow(p.source, p.schema, lastColumnId, dataColumnCount, layouts);
  if (JSON.stringify(schema.fields) === JSON.stringify(p.schema.fields)) return p;
  return {
    ...p,
    schema,
    spec: identitySpec(
      schema,
      p.spec.fields.map((f) => f.name),
    ),
    baseNameMapping: buildNameMapping(schema),
    idsAdopted: true,
  };
}

/** Per table: the distinct (columns, ids) layouts of the footers that carry ids, each with up to 3 files. */
export class IdLayouts {
  private readonly byKey = new Map<
    string,
    { columns: readonly (readonly string[])[]; fieldIds: readonly (readonly (number | null)[])[]; files: string[] }
  >();

  /** Note one file's footer columns and ids (nothing when it carries no ids). */
  add(
    file: string,
    columns: readonly (readonly string[])[] | undefined,
    fieldIds: readonly (readonly (number | null)[])[] | undefined,
  ): void {
    if (columns === undefined || fieldIds === undefined) return;
    const key = JSON.stringify([columns, fieldIds]);
    const had = this.byKey.get(key);
    if (had === undefined) this.byKey.set(key, { columns, fieldIds, files: [file] });
    else if (had.files.length < 3) had.files.push(file);
  }

  get size(): number {
    return this.byKey.size;
  }

  /** One layout per (distinct layout, file noted), so a refusal names up to 3 files of each. */
  layouts(): FileIdLayout[] {
    return [...this.byKey.values()].flatMap((l) => l.files.map((file) => ({ file, columns: l.columns, fieldIds: l.fieldIds })));
  }
}
