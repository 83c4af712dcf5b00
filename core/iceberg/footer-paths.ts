// A data file's column paths (as its footer spells them) walked against an Iceberg schema: into
// structs by field name, and through the wrapper levels Parquet puts around a list's element and a
// map's key and value — the same rules the readers' ApplyNameMapping and our footer reader
// (adapters/formats/parquet/plan.ts leafFieldIds) follow: a list's repeated group is the element
// itself when it is a leaf, has several children, or is named `array` / `<list>_tuple` (legacy
// 2-level lists); else its one child is; a map's key/value group holds the key then the value, by
// position, whatever their names. Used for the name mapping's aliases (name-mapping.ts
// footerAliases) and validation's footer coverage (core/validate/footer-coverage.ts). Pure; no I/O.
import type { IcebergType, NestedField } from './types';

/** One level of the footer's column tree (children in column order). */
export interface FooterNode {
  readonly name: string;
  readonly children: FooterNode[];
}

/** The column paths as a tree (a prefix shared by several leaves is one node). */
export function footerTree(paths: readonly (readonly string[])[]): FooterNode[] {
  const root: FooterNode = { name: '', children: [] };
  for (const path of paths) {
    let at = root;
    for (const name of path) {
      let next = at.children.find((c) => c.name === name);
      if (next === undefined) {
        next = { name, children: [] };
        at.children.push(next);
      }
      at = next;
    }
  }
  return root.children;
}

/** The node that holds a list's element (undefined when the file has no levels below the list). */
export function listElementNode(list: FooterNode): FooterNode | undefined {
  const rep = list.children[0];
  if (rep === undefined || list.children.length !== 1) return undefined;
  const twoLevel = rep.children.length !== 1 || rep.name === 'array' || rep.name === `${list.name}_tuple`;
  return twoLevel ? rep : rep.children[0];
}

/** The nodes that hold a map's key and value, by position under its key/value group. */
export function mapEntryNodes(map: FooterNode): [FooterNode | undefined, FooterNode | undefined] {
  const kv = map.children[0];
  return kv === undefined ? [undefined, undefined] : [kv.children[0], kv.children[1]];
}

/**
 * Picks the schema field a footer name stands for among `fields` (the fields of one struct level;
 * `depth` 0 = the table's top level), or undefined when none does.
 */
export type FieldMatcher = (name: string, fields: readonly NestedField[], depth: number) => NestedField | undefined;

export interface FooterVisitor {
  readonly match: FieldMatcher;
  /** A struct-level name and the field it matched. */
  readonly matched?: (name: string, field: NestedField) => void;
  /** A footer path (from the top) whose last name matched no field at its struct level. */
  readonly unmatched?: (path: readonly string[]) => void;
}

function descend(node: FooterNode, t: IcebergType, path: readonly string[], depth: number, v: FooterVisitor): void {
  if (t.kind === 'struct') walkStruct(node.children, t.fields, path, depth + 1, v);
  else if (t.kind === 'list') {
    const el = listElementNode(node);
    if (el === undefined) return;
    const rep = node.children[0] as FooterNode;
    const at = el === rep ? [...path, rep.name] : [...path, rep.name, el.name];
    descend(el, t.element, at, depth + 1, v);
  } else if (t.kind === 'map') {
    const [k, val] = mapEntryNodes(node);
    const kv = node.children[0]?.name ?? '';
    if (k !== undefined) descend(k, t.key, [...path, kv, k.name], depth + 1, v);
    if (val !== undefined) descend(val, t.value, [...path, kv, val.name], depth + 1, v);
  }
}

function walkStruct(
  nodes: readonly FooterNode[],
  fields: readonly NestedField[],
  path: readonly string[],
  depth: number,
  v: FooterVisitor,
): void {
  for (const n of nodes) {
    const at = [...path, n.name];
    const field = v.match(n.name, fields, depth);
    if (field === undefined) {
      v.unmatched?.(at);
      continue;
    }
    v.matched?.(n.name, field);
    descend(n, field.type, at, depth, v);
  }
}

/** Walks the footer's column tree against the schema's fields, reporting matches and misses. */
export function walkFooter(tree: readonly FooterNode[], fields: readonly NestedField[], v: FooterVisitor): void {
  walkStruct(tree, fields, [], 0, v);
}

/**
 * Hive's own reading of a footer name: exact, then (top level) `_colN` as the N-th data column
 * (Hive 1.x ORC), then case-insensitively (Hive column and field names are case-insensitive).
 */
export function hiveMatcher(dataColumnCount: number): FieldMatcher {
  return (name, fields, depth) => {
    const exact = fields.find((f) => f.name === name);
    if (exact !== undefined) return exact;
    const positional = depth === 0 ? /^_col(\d+)$/.exec(name) : null;
    if (positional !== null) return fields.slice(0, dataColumnCount)[Number(positional[1])];
    return fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
  };
}
