// Field ids embedded in data files (Parquet `field_id`, ORC `iceberg.id`, Avro `field-id`: every
// Iceberg writer embeds them). Readers resolve a file that carries ids BY ID and use the name
// mapping only for files without ids (spec "Column Projection"), so a table whose files carry ids
// must give each column the id those files use for it — fresh ids in Hive column order would point
// the readers at another column. The rule: ids consistent across files (one id → one column path,
// one column path → one id) and with the Hive columns (the id'd node has the shape Hive declares:
// leaf for a primitive, group for a struct/list/map) are ADOPTED; fresh ids go only to columns no
// file names, after every id any file uses. Otherwise the table is REFUSED (FIELD_IDS_INCONSISTENT)
// naming files and columns. Files without ids keep resolving through the name mapping. Column names
// are matched as Hive reads them (core/iceberg/footer-paths.ts hiveMatcher). Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';
import type { FooterNode } from './footer-paths';
import { footerTree, hiveMatcher, listElementNode, mapEntryNodes } from './footer-paths';
import type { IcebergType, NestedField, Schema } from './types';
import { highestFieldId } from './types';

/** One file's footer columns and, per path and level, the id it carries (null: none). */
export interface FileIdLayout {
  readonly file: string;
  readonly columns: readonly (readonly string[])[];
  /** Parallel to `columns`: the id of each level of each path; absent = the file has no ids. */
  readonly fieldIds?: readonly (readonly (number | null)[])[];
}

/** One id as a file carries it: the schema path it matched (or the footer path it did not) and the shape. */
export interface EmbeddedId {
  readonly id: number;
  /** Schema path (`s.x`, `arr.element`, `m.value`) when matched; else `?` + the footer path. */
  readonly column: string;
  readonly matched: boolean;
  /** The file node is a leaf (true) or a group (false); for the shape check. */
  readonly leaf: boolean;
}

export interface IdConflict {
  readonly reason: 'id-names-two-columns' | 'column-has-two-ids' | 'shape';
  readonly column: string;
  readonly files: readonly string[];
  readonly message: string;
}

export type EmbeddedIdDecision =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'adopt';
      readonly schema: Schema;
      readonly lastColumnId: number;
      /** Schema path → adopted id. */
      readonly adopted: ReadonlyMap<string, number>;
      readonly filesWithIds: number;
    }
  | { readonly kind: 'refuse'; readonly conflicts: readonly IdConflict[] };

const dot = (prefix: string, name: string): string => (prefix === '' ? name : `${prefix}.${name}`);

function idsByNode(tree: readonly FooterNode[], layout: FileIdLayout): Map<FooterNode, number> {
  const out = new Map<FooterNode, number>();
  layout.columns.forEach((path, i) => {
    const ids = layout.fieldIds?.[i] ?? [];
    let level: readonly FooterNode[] = tree;
    path.forEach((name, d) => {
      const node = level.find((n) => n.name === name);
      if (node === undefined) return;
      const id = ids[d];
      if (typeof id === 'number' && !out.has(node)) out.set(node, id);
      level = node.children;
    });
  });
  return out;
}

/** Every id a file carries, with the schema path it stands for (Hive's reading of the names). */
export function embeddedIds(schema: Schema, dataColumnCount: number, layout: FileIdLayout): EmbeddedId[] {
  if (layout.fieldIds === undefined) return [];
  const tree = footerTree(layout.columns);
  const ids = idsByNode(tree, layout);
  const match = hiveMatcher(dataColumnCount);
  const out: EmbeddedId[] = [];
  const note = (node: FooterNode, column: string, matched: boolean): void => {
    const id = ids.get(node);
    if (id !== undefined) out.push({ id, column, matched, leaf: node.children.length === 0 });
  };
  const unmatched = (node: FooterNode, at: string): void => {
    note(node, `?${at}`, false);
    for (const c of node.children) unmatched(c, dot(at, c.name));
  };
  const descend = (node: FooterNode, t: IcebergType, at: string, depth: number): void => {
    note(node, at, true);
    if (t.kind === 'struct') structLevel(node.children, t.fields, at, depth + 1);
    else if (t.kind === 'list') {
      const el = listElementNode(node);
      if (el !== undefined) descend(el, t.element, `${at}.element`, depth + 1);
    } else if (t.kind === 'map') {
      const [k, v] = mapEntryNodes(node);
      if (k !== undefined) descend(k, t.key, `${at}.key`, depth + 1);
      if (v !== undefined) descend(v, t.value, `${at}.value`, depth + 1);
    }
  };
  const structLevel = (nodes: readonly FooterNode[], fields: readonly NestedField[], prefix: string, depth: number): void => {
    for (const n of nodes) {
      const f = match(n.name, fields, depth);
      if (f === undefined) unmatched(n, dot(prefix, n.name));
      else descend(n, f.type, dot(prefix, f.name), depth);
    }
  };
  structLevel(tree, schema.fields, '', 0);
  return out;
}

/** Schema path → the field's type, for the shape check. */
function typesByPath(fields: readonly NestedField[], prefix = '', out = new Map<string, IcebergType>()): Map<string, IcebergType> {
  const visit = (t: IcebergType, at: string): void => {
    out.set(at, t);
    if (t.kind === 'struct') typesByPath(t.fields, at, out);
    else if (t.kind === 'list') visit(t.element, `${at}.element`);
    else if (t.kind === 'map') {
      visit(t.key, `${at}.key`);
      visit(t.value, `${at}.value`);
    }
  };
  for (const f of fields) visit(f.type, dot(prefix, f.name));
  return out;
}

const isLeafType = (t: IcebergType): boolean => t.kind !== 'struct' && t.kind !== 'list' && t.kind !== 'map';

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l === undefined) m.set(k, [v]);
  else if (!l.includes(v)) l.push(v);
}

interface Seen {
  readonly columnsById: Map<number, string[]>;
  readonly idsByColumn: Map<string, number[]>;
  readonly filesBy: Map<string, string[]>;
  readonly conflicts: IdConflict[];
}

function collect(schema: Schema, dataColumnCount: number, layouts: readonly FileIdLayout[]): Seen & { filesWithIds: number } {
  const seen: Seen = { columnsById: new Map(), idsByColumn: new Map(), filesBy: new Map(), conflicts: [] };
  const types = typesByPath(schema.fields);
  const shapeReported = new Set<string>();
  let filesWithIds = 0;
  for (const layout of layouts) {
    const ids = embeddedIds(schema, dataColumnCount, layout);
    if (ids.length > 0) filesWithIds++;
    for (const e of ids) {
      push(seen.columnsById, e.id, e.column);
      push(seen.filesBy, `i${e.id}\u0000${e.column}`, layout.file);
      if (!e.matched) continue;
      push(seen.idsByColumn, e.column, e.id);
      const t = types.get(e.column);
      if (t !== undefined && isLeafType(t) !== e.leaf && !shapeReported.has(e.column)) {
        shapeReported.add(e.column);
        seen.conflicts.push({
          reason: 'shape',
          column: e.column,
          files: [layout.file],
          message: `column '${e.column}' is a ${t.kind} in Hive but ${layout.file} writes it (id ${e.id}) as a ${e.leaf ? 'primitive' : 'group'}`,
        });
      }
    }
  }
  return { ...seen, filesWithIds };
}

function crossConflicts(seen: Seen): IdConflict[] {
  const out: IdConflict[] = [];
  const files = (id: number, col: string): string[] => seen.filesBy.get(`i${id}\u0000${col}`) ?? [];
  for (const [id, cols] of seen.columnsById) {
    if (cols.length < 2) continue;
    const where = cols.map((c) => `'${c}' in ${files(id, c).slice(0, 3).join(', ')}`).join('; ');
    out.push({
      reason: 'id-names-two-columns',
      column: cols.join(', '),
      files: cols.flatMap((c) => files(id, c)),
      message: `field id ${id} names different columns: ${where}`,
    });
  }
  for (const [col, ids] of seen.idsByColumn) {
    if (ids.length < 2) continue;
    const where = ids.map((i) => `${i} in ${files(i, col).slice(0, 3).join(', ')}`).join('; ');
    out.push({
      reason: 'column-has-two-ids',
      column: col,
      files: ids.flatMap((i) => files(i, col)),
      message: `column '${col}' carries different field ids: ${where}`,
    });
  }
  return out;
}

/** The schema with `adopted` ids where given and fresh ones after `start` elsewhere, in AssignFreshIds order. */
function reassign(fields: readonly NestedField[], adopted: ReadonlyMap<string, number>, next: { id: number }, prefix = ''): NestedField[] {
  const idOf = (at: string): number => adopted.get(at) ?? ++next.id;
  const ids = fields.map((f) => idOf(dot(prefix, f.name)));
  const retype = (t: IcebergType, at: string): IcebergType => {
    if (t.kind === 'struct') return { kind: 'struct', fields: reassign(t.fields, adopted, next, at) };
    if (t.kind === 'list') {
      const elementId = idOf(`${at}.element`);
      return { ...t, elementId, element: retype(t.element, `${at}.element`) };
    }
    if (t.kind === 'map') {
      const keyId = idOf(`${at}.key`);
      const valueId = idOf(`${at}.value`);
      return { ...t, keyId, valueId, key: retype(t.key, `${at}.key`), value: retype(t.value, `${at}.value`) };
    }
    return t;
  };
  return fields.map((f, i) => ({ ...f, id: ids[i] ?? 0, type: retype(f.type, dot(prefix, f.name)) }));
}

/**
 * Adopt the ids `layouts` carry into `schema` (the Hive conversion with fresh ids), refuse when they
 * disagree, or `none` when no file carries ids (the schema stays as it is).
 */
export function decideEmbeddedIds(schema: Schema, dataColumnCount: number, layouts: readonly FileIdLayout[]): EmbeddedIdDecision {
  const seen = collect(schema, dataColumnCount, layouts);
  if (seen.filesWithIds === 0) return { kind: 'none' };
  const conflicts = [...crossConflicts(seen), ...seen.conflicts];
  if (conflicts.length > 0) return { kind: 'refuse', conflicts };
  const adopted = new Map<string, number>();
  for (const [col, ids] of seen.idsByColumn) adopted.set(col, ids[0] as number);
  const start = Math.max(0, ...seen.columnsById.keys());
  const fields = reassign(schema.fields, adopted, { id: start });
  return {
    kind: 'adopt',
    schema: { ...schema, fields },
    lastColumnId: Math.max(start, highestFieldId(fields)),
    adopted,
    filesWithIds: seen.filesWithIds,
  };
}

/** The refusal as a coded error naming (up to 10 of) the conflicts, files and columns in context. */
export function fieldIdsError(table: string, conflicts: readonly IdConflict[]): MigrationError {
  const shown = conflicts.slice(0, 10);
  return new MigrationError(
    ErrorCode.FIELD_IDS_INCONSISTENT,
    `${table}: data files carry Iceberg field ids that cannot hold in one schema: ${shown.map((c) => c.message).join('; ')}${
      conflicts.length > shown.length ? ` (and ${conflicts.length - shown.length} more)` : ''
    }`,
    { table, columns: shown.map((c) => c.column), files: [...new Set(shown.flatMap((c) => c.files))].slice(0, 20) },
  );
}

/** decideEmbeddedIds, with a refusal thrown (FIELD_IDS_INCONSISTENT) and `none` as the schema unchanged. */
export function adoptEmbeddedIdsOrThrow(
  table: string,
  schema: Schema,
  lastColumnId: number,
  dataColumnCount: number,
  layouts: readonly FileIdLayout[],
): { schema: Schema; lastColumnId: number; adopted: number } {
  const d = decideEmbeddedIds(schema, dataColumnCount, layouts);
  if (d.kind === 'refuse') throw fieldIdsError(table, d.conflicts);
  if (d.kind === 'none') return { schema, lastColumnId, adopted: 0 };
  return { schema: d.schema, lastColumnId: d.lastColumnId, adopted: d.adopted.size };
}

/** Schema path (`s.x`, `arr.element`, `m.value`) → its field id, for every field. */
export function idsByPath(fields: readonly NestedField[], prefix = '', out = new Map<string, number>()): Map<string, number> {
  const visit = (t: IcebergType, at: string): void => {
    if (t.kind === 'struct') idsByPath(t.fields, at, out);
    else if (t.kind === 'list') {
      out.set(`${at}.element`, t.elementId);
      visit(t.element, `${at}.element`);
    } else if (t.kind === 'map') {
      out.set(`${at}.key`, t.keyId);
      out.set(`${at}.value`, t.valueId);
      visit(t.key, `${at}.key`);
      visit(t.value, `${at}.value`);
    }
  };
  for (const f of fields) {
    out.set(dot(prefix, f.name), f.id);
    visit(f.type, dot(prefix, f.name));
  }
  return out;
}
