// What each leaf column of a Parquet file feeds (pure; no I/O): the schema tree, field ids from the
// file or the name mapping (leafFieldIds), and per table and file layout the StatsPlan that
// accumulate.ts follows — cached per decoded schema array, which the decoder shares across files.
import type { MappedField } from '../../../core/iceberg/name-mapping';
import { isPrimitive } from '../../../core/iceberg/types';
import type { IcebergType, NestedField, PrimitiveType } from '../../../core/iceberg/types';
import type { FooterContext } from '../../../core/storage/file-stats';
import { fastKind } from './bounds';
import type { FastKind } from './bounds';
import { corruptParquet } from './footer';
import { ConvertedType, Repetition } from './thrift';
import type { FileMetaData, SchemaElement } from './thrift';

interface SchemaNode {
  readonly element: SchemaElement;
  readonly children: SchemaNode[];
  /** Leaf column index (schema order = column chunk order), for primitives. */
  readonly leaf?: number;
}

function buildTree(schema: readonly SchemaElement[], path: string): SchemaNode {
  let pos = 0;
  let leaves = 0;
  const node = (): SchemaNode => {
    const element = schema[pos++];
    if (element === undefined) throw corruptParquet(path, 'schema tree is truncated');
    const n = element.numChildren ?? 0;
    if (element.type !== undefined && n === 0) return { element, children: [], leaf: leaves++ };
    const children: SchemaNode[] = [];
    for (let i = 0; i < n; i++) children.push(node());
    return { element, children };
  };
  return node();
}

const isList = (e: SchemaElement): boolean => e.convertedType === ConvertedType.LIST || e.logicalType?.kind === 'LIST';
const isMap = (e: SchemaElement): boolean =>
  e.convertedType === ConvertedType.MAP || e.convertedType === ConvertedType.MAP_KEY_VALUE || e.logicalType?.kind === 'MAP';

function child(mf: MappedField | undefined, name: string): MappedField | undefined {
  return mf?.fields?.find((f) => f.names.includes(name));
}

/**
 * Field id per leaf column: the Parquet field_id when the file carries ids (Iceberg-written
 * files), else by name through the name mapping (ApplyNameMapping: list element → `element`,
 * map key/value by position, legacy 2-level lists included).
 */
export function leafFieldIds(root: SchemaNode, mapping: readonly MappedField[], leafCount: number): (number | undefined)[] {
  const ids: (number | undefined)[] = new Array<number | undefined>(leafCount).fill(undefined);
  const useIds = root.children.some(function has(n: SchemaNode): boolean {
    return n.element.fieldId !== undefined || n.children.some(has);
  });
  const visit = (n: SchemaNode, mf: MappedField | undefined): void => {
    if (n.leaf !== undefined) {
      ids[n.leaf] = useIds
        ? n.element.fieldId
        : n.element.repetition === Repetition.REPEATED && mf?.fields?.length === 1
          ? mf.fields[0]?.fieldId
          : mf?.fieldId;
      return;
    }
    if (isList(n.element) && n.children.length === 1) {
      const rep = n.children[0] as SchemaNode;
      const twoLevel =
        rep.leaf !== undefined ||
        rep.children.length !== 1 ||
        rep.element.name === 'array' ||
        rep.element.name === `${n.element.name}_tuple`;
      visit(twoLevel ? rep : (rep.children[0] as SchemaNode), child(mf, 'element') ?? mf?.fields?.[0]);
    } else if (isMap(n.element) && n.children.length === 1) {
      const kv = n.children[0] as SchemaNode;
      const [k, v] = kv.children;
      if (k !== undefined) visit(k, child(mf, 'key'));
      if (v !== undefined) visit(v, child(mf, 'value'));
    } else {
      for (const c of n.children) visit(c, child(mf, c.element.name));
    }
  };
  visit(root, { fieldId: -1, names: [], fields: mapping });
  return ids;
}

type PrimitiveIndex = Map<number, { type: PrimitiveType; structOnly: boolean }>;
/** One index per table schema object: every file of a table shares it. */
const primitiveIndexCache = new WeakMap<readonly NestedField[], PrimitiveIndex>();

/** Iceberg primitive fields by id, with whether they are reachable through structs only. */
function primitiveIndex(fields: readonly NestedField[]): PrimitiveIndex {
  const cached = primitiveIndexCache.get(fields);
  if (cached !== undefined) return cached;
  const out = new Map<number, { type: PrimitiveType; structOnly: boolean }>();
  const visit = (id: number, t: IcebergType, structOnly: boolean): void => {
    if (isPrimitive(t)) out.set(id, { type: t, structOnly });
    else if (t.kind === 'struct') for (const f of t.fields) visit(f.id, f.type, structOnly);
    else if (t.kind === 'list') visit(t.elementId, t.element, false);
    else {
      visit(t.keyId, t.key, false);
      visit(t.valueId, t.value, false);
    }
  };
  for (const f of fields) visit(f.id, f.type, true);
  primitiveIndexCache.set(fields, out);
  return out;
}

/** Per table and file layout (the decoder shares one schema array across equal schemas): what each leaf column feeds. */
interface LeafPlan {
  /** Index into the file's accumulators (one per distinct field id, ascending id). */
  readonly slot: number;
  readonly type: PrimitiveType;
  readonly structOnly: boolean;
  readonly element: SchemaElement;
  readonly kind: FastKind;
}

export interface StatsPlan {
  readonly nameMapping: FooterContext['nameMapping'];
  readonly fields: readonly NestedField[];
  readonly metrics: ReadonlySet<number> | undefined;
  /** Per leaf column: undefined = no metrics (unmapped, not a primitive of the schema, or excluded). */
  readonly leaves: readonly (LeafPlan | undefined)[];
  readonly slots: readonly { readonly id: number; readonly type: PrimitiveType; readonly kind: FastKind }[];
  readonly leafPaths: readonly (readonly string[])[];
  /** Per leaf, the Parquet field_id of each level of its path (null: none); undefined when the file has no ids. */
  readonly leafIds: readonly (readonly (number | null)[])[] | undefined;
  /** Two leaves with one field id (a malformed file): every column takes the typed-value path. */
  readonly sharedIds: boolean;
}

const planCache = new WeakMap<readonly SchemaElement[], StatsPlan[]>();

export function statsPlan(path: string, md: FileMetaData, ctx: FooterContext): StatsPlan {
  const cached = planCache.get(md.schema);
  const hit = cached?.find((p) => p.nameMapping === ctx.nameMapping && p.fields === ctx.schema.fields && p.metrics === ctx.metricsFieldIds);
  if (hit !== undefined) return hit;
  const root = buildTree(md.schema, path);
  const elements: SchemaElement[] = [];
  const leafPaths: string[][] = [];
  const leafIds: (number | null)[][] = [];
  let anyId = false;
  (function collect(n: SchemaNode, at: string[], idsAt: (number | null)[]): void {
    if (n.leaf !== undefined) {
      elements[n.leaf] = n.element;
      leafPaths[n.leaf] = at;
      leafIds[n.leaf] = idsAt;
    }
    for (const c of n.children) {
      anyId ||= c.element.fieldId !== undefined;
      collect(c, [...at, c.element.name], [...idsAt, c.element.fieldId ?? null]);
    }
  })(root, [], []);
  const ids = leafFieldIds(root, ctx.nameMapping, elements.length);
  const index = primitiveIndex(ctx.schema.fields);
  const used = [
    ...new Set(
      ids.filter(
        (id, i): id is number =>
          id !== undefined &&
          index.has(id) &&
          elements[i] !== undefined &&
          (ctx.metricsFieldIds === undefined || ctx.metricsFieldIds.has(id)),
      ),
    ),
  ].sort((a, b) => a - b);
  const slotOf = new Map(used.map((id, s) => [id, s]));
  let counted = 0;
  const leaves = ids.map((id, i): LeafPlan | undefined => {
    const slot = id === undefined ? undefined : slotOf.get(id);
    const field = id === undefined ? undefined : index.get(id);
    const element = elements[i];
    if (slot === undefined || field === undefined || element === undefined) return undefined;
    counted++;
    return { slot, type: field.type, structOnly: field.structOnly, element, kind: fastKind(field.type, element) };
  });
  const slots = used.map((id, s) => ({
    id,
    type: (index.get(id) as { type: PrimitiveType }).type,
    kind: leaves.find((l) => l?.slot === s)?.kind ?? 'slow',
  }));
  const plan: StatsPlan = {
    nameMapping: ctx.nameMapping,
    fields: ctx.schema.fields,
    metrics: ctx.metricsFieldIds,
    leaves,
    slots,
    leafPaths,
    leafIds: anyId ? leafIds : undefined,
    sharedIds: counted !== used.length,
  };
  planCache.set(md.schema, [plan, ...(cached ?? []).slice(0, 3)]);
  return plan;
}
